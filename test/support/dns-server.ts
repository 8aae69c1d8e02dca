import dgram from 'node:dgram';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** Records of one name; a TXT record given as an array is sent as several character strings. */
export interface DnsRecords {
  a?: string[];
  aaaa?: string[];
  txt?: Array<string | string[]>;
  /** Never answer queries for this name (timeout tests). */
  isSilent?: boolean;
  /** Answer SERVFAIL for this name. */
  isFailing?: boolean;
}

const TYPE_A = 1;
const TYPE_TXT = 16;
const TYPE_AAAA = 28;
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;
// Classic DNS-over-UDP limit: a larger answer is truncated so the client retries over TCP.
const UDP_LIMIT = 512;

/** A parsed question: the lower-case name, its type, and the raw bytes to echo back. */
interface Question {
  id: number;
  flags: number;
  name: string;
  type: number;
  raw: Buffer;
}

function parseQuery(msg: Buffer): Question | undefined {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    const length = msg[offset];
    if (length === undefined || length > 63) return undefined;
    offset += 1;
    if (length === 0) break;
    labels.push(msg.subarray(offset, offset + length).toString('latin1'));
    offset += length;
  }
  if (offset + 4 > msg.length) return undefined;
  // Echo the question as sent: resolvers that randomise the name's case compare it byte for byte.
  return {
    id: msg.readUInt16BE(0),
    flags: msg.readUInt16BE(2),
    name: labels.join('.').toLowerCase(),
    type: msg.readUInt16BE(offset),
    raw: msg.subarray(12, offset + 4),
  };
}

function txtData(record: string | string[]): Buffer {
  const chunks = (Array.isArray(record) ? record : [record]).flatMap((text) => {
    const bytes = Buffer.from(text, 'utf8');
    const out: Buffer[] = [];
    for (let i = 0; i < bytes.length || i === 0; i += 255) out.push(bytes.subarray(i, i + 255));
    return out;
  });
  return Buffer.concat(chunks.flatMap((chunk) => [Buffer.from([chunk.length]), chunk]));
}

function answerData(records: DnsRecords, type: number): Buffer[] {
  if (type === TYPE_A) return (records.a ?? []).map((ip) => Buffer.from(ipaddr.IPv4.parse(ip).toByteArray()));
  if (type === TYPE_AAAA) return (records.aaaa ?? []).map((ip) => Buffer.from(ipaddr.IPv6.parse(ip).toByteArray()));
  if (type === TYPE_TXT) return (records.txt ?? []).map(txtData);
  return [];
}

function buildResponse(q: Question, rcode: number, type: number, rdatas: Buffer[], isTruncated: boolean): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(q.id, 0);
  // QR=1, AA=1, RD copied from the query, TC when truncated.
  header.writeUInt16BE(0x8400 | (q.flags & 0x0100) | (isTruncated ? 0x0200 : 0) | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(isTruncated ? 0 : rdatas.length, 6);
  if (isTruncated) return Buffer.concat([header, q.raw]);
  const answers = rdatas.map((rdata) => {
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // pointer to the name in the question
    rr.writeUInt16BE(type, 2);
    rr.writeUInt16BE(1, 4); // class IN
    rr.writeUInt32BE(60, 6);
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, q.raw, ...answers]);
}

/** An authoritative DNS server on 127.0.0.1 (UDP and TCP, same port) answering from a map. */
export class TestDnsServer {
  private readonly records = new Map<string, DnsRecords>();
  private udp: dgram.Socket | undefined;
  private tcp: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  /** Queries received, as `TYPE name` over `udp` or `tcp`, e.g. `TXT example.test udp`. */
  readonly queries: string[] = [];
  /** `127.0.0.1:PORT`, once started. */
  address = '';

  /** Sets (or replaces) the records of a name; the name is case-insensitive, no trailing dot. */
  set(name: string, records: DnsRecords): void {
    this.records.set(name.toLowerCase().replace(/\.$/, ''), records);
  }

  /** Removes every record. */
  clear(): void {
    this.records.clear();
  }

  /** The answer to one query, or undefined to stay silent. */
  private answer(msg: Buffer, transport: 'udp' | 'tcp'): Buffer | undefined {
    const q = parseQuery(msg);
    if (q === undefined) return undefined;
    const typeName =
      q.type === TYPE_A ? 'A' : q.type === TYPE_AAAA ? 'AAAA' : q.type === TYPE_TXT ? 'TXT' : String(q.type);
    this.queries.push(`${typeName} ${q.name} ${transport}`);
    const records = this.records.get(q.name);
    if (records?.isSilent === true) return undefined;
    if (records === undefined) return buildResponse(q, RCODE_NXDOMAIN, q.type, [], false);
    if (records.isFailing === true) return buildResponse(q, RCODE_SERVFAIL, q.type, [], false);
    const response = buildResponse(q, 0, q.type, answerData(records, q.type), false);
    if (transport === 'udp' && response.length > UDP_LIMIT) return buildResponse(q, 0, q.type, [], true);
    return response;
  }

  /** Binds UDP on a free port, then TCP on the same port (retrying when that one is taken). */
  async start(): Promise<void> {
    for (let tryCount = 0; tryCount < 10; tryCount += 1) {
      const udp = dgram.createSocket('udp4');
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(0, '127.0.0.1', () => resolve());
      });
      const port = udp.address().port;
      const tcp = net.createServer((socket) => this.serveTcp(socket));
      const isListening = await new Promise<boolean>((resolve) => {
        tcp.once('error', () => resolve(false));
        tcp.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (!isListening) {
        udp.close();
        continue;
      }
      udp.on('message', (msg, rinfo) => {
        const response = this.answer(msg, 'udp');
        if (response !== undefined) udp.send(response, rinfo.port, rinfo.address);
      });
      this.udp = udp;
      this.tcp = tcp;
      this.address = `127.0.0.1:${port}`;
      return;
    }
    throw new Error('test dns server: no free port for UDP and TCP');
  }

  private serveTcp(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      // Each message is framed by a two-byte length.
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const size = pending.readUInt16BE(0);
        const response = this.answer(pending.subarray(2, 2 + size), 'tcp');
        pending = pending.subarray(2 + size);
        if (response === undefined) continue;
        const frame = Buffer.alloc(2);
        frame.writeUInt16BE(response.length, 0);
        socket.write(Buffer.concat([frame, response]));
      }
    });
  }

  /** Closes both sockets and every open TCP connection. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all([
      new Promise<void>((resolve) => (this.udp === undefined ? resolve() : this.udp.close(() => resolve()))),
      new Promise<void>((resolve) => (this.tcp === undefined ? resolve() : this.tcp.close(() => resolve()))),
    ]);
    this.udp = undefined;
    this.tcp = undefined;
  }
}
