import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { isIP, type Socket } from 'node:net';
import { connectTcp, frameMessage, TcpMessageReader } from './dns-tcp.ts';

/**
 * The sockets of the bulk resolver. UDP channels are connected dgram sockets (one source port
 * each, and the kernel drops datagrams from any other peer); the TCP channel carries the
 * queries whose UDP answer was truncated, pipelined on one connection per server.
 */

/** A query on the wire: its message (the id is written by the channel) and where its question ends. */
export interface WireQuery {
  id: number;
  message: Buffer;
  questionEnd: number;
}

/** Random 16-bit query ids from a pool of crypto bytes, so an off-path attacker cannot guess them cheaply. */
export class RandomIds {
  private pool = randomBytes(8192);
  private at = 0;

  next(): number {
    if (this.at + 2 > this.pool.length) {
      this.pool = randomBytes(8192);
      this.at = 0;
    }
    const id = this.pool.readUInt16BE(this.at);
    this.at += 2;
    return id;
  }
}

/** True when the message answers the query: a response with the same id and the same question, byte for byte. */
export function isAnswerTo(message: Buffer, query: WireQuery): boolean {
  return (
    message.length >= query.questionEnd &&
    (message[2] as number) >= 0x80 &&
    message.readUInt16BE(4) === 1 &&
    message.compare(query.message, 12, query.questionEnd, 12, query.questionEnd) === 0
  );
}

/** One connected UDP socket towards a server; matches answers to queries by id and question. */
export class UdpChannel<Q extends WireQuery> {
  private readonly slots = new Map<number, Q>();
  private socket: dgram.Socket | undefined;

  constructor(
    private readonly address: string,
    private readonly port: number,
    private readonly ids: RandomIds,
    private readonly onAnswer: (query: Q, message: Buffer) => void,
  ) {}

  /** Binds an ephemeral port and connects it to the server. */
  async open(): Promise<void> {
    // Large buffers: a burst of answers to a full window must not overflow the 208 KiB default.
    const socket = dgram.createSocket({ type: isIP(this.address) === 6 ? 'udp6' : 'udp4', recvBufferSize: 4 << 20 });
    // Answers that arrive after close, ICMP errors of a connected socket (port unreachable):
    // the query times out and is retried; the socket must not bring the process down.
    socket.on('error', () => undefined);
    socket.on('message', (message: Buffer) => this.receive(message));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(this.port, this.address, () => {
        socket.removeListener('error', reject);
        resolve();
      });
    });
    this.socket = socket;
  }

  /** Sends a query under a fresh id not in use on this socket. */
  send(query: Q): void {
    let id = this.ids.next();
    while (this.slots.has(id)) id = this.ids.next();
    query.id = id;
    query.message.writeUInt16BE(id, 0);
    this.slots.set(id, query);
    this.socket?.send(query.message);
  }

  /** Stops waiting for the query's answer (timed out or abandoned). */
  forget(query: Q): void {
    if (this.slots.get(query.id) === query) this.slots.delete(query.id);
  }

  private receive(message: Buffer): void {
    if (message.length < 12) return;
    const query = this.slots.get(message.readUInt16BE(0));
    // A late, forged or misrouted datagram does not match: drop it and keep waiting.
    if (query === undefined || !isAnswerTo(message, query)) return;
    this.slots.delete(query.id);
    this.onAnswer(query, message);
  }

  close(): void {
    this.slots.clear();
    this.socket?.close();
    this.socket = undefined;
  }
}

/** DNS over TCP to one server for truncated answers: one lazily opened connection, queries pipelined (RFC 7766). */
export class TcpChannel<Q extends WireQuery> {
  private readonly pending = new Map<number, Q>();
  private socket: Socket | undefined;
  private connecting: Promise<Socket> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly address: string,
    private readonly port: number,
    private readonly ids: RandomIds,
    private readonly timeoutMs: number,
    private readonly onAnswer: (query: Q, message: Buffer) => void,
    private readonly onFailure: (query: Q, reason: string) => void,
  ) {}

  /** Sends a query (a copy: the UDP message may still be referenced), connecting first if needed. */
  send(query: Q): void {
    let id = this.ids.next();
    while (this.pending.has(id)) id = this.ids.next();
    query.id = id;
    query.message = Buffer.from(query.message);
    query.message.writeUInt16BE(id, 0);
    this.pending.set(id, query);
    clearTimeout(this.idleTimer);
    void this.connection().then(
      (socket) => {
        if (this.pending.get(id) === query) socket.write(frameMessage(query.message));
      },
      (err: Error) => this.failAll(`TCP connection to ${this.address}:${this.port} failed: ${err.message}`),
    );
  }

  forget(query: Q): void {
    if (this.pending.get(query.id) === query) this.pending.delete(query.id);
    this.scheduleIdleClose();
  }

  private connection(): Promise<Socket> {
    if (this.socket !== undefined) return Promise.resolve(this.socket);
    this.connecting ??= connectTcp(this.address, this.port, this.timeoutMs).then((socket) => {
      const framer = new TcpMessageReader();
      socket.on('data', (data: Buffer) => {
        for (const message of framer.push(data)) this.receive(message);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        if (this.socket === socket) this.socket = undefined;
        this.failAll(`TCP connection to ${this.address}:${this.port} closed`);
      });
      this.socket = socket;
      this.connecting = undefined;
      return socket;
    });
    this.connecting.catch(() => (this.connecting = undefined));
    return this.connecting;
  }

  private receive(message: Buffer): void {
    if (message.length < 12) return;
    const query = this.pending.get(message.readUInt16BE(0));
    if (query === undefined || !isAnswerTo(message, query)) return;
    this.pending.delete(query.id);
    this.scheduleIdleClose();
    this.onAnswer(query, message);
  }

  private failAll(reason: string): void {
    const queries = [...this.pending.values()];
    this.pending.clear();
    for (const query of queries) this.onFailure(query, reason);
  }

  /** Closes the connection once nothing is pending for a while, so an idle resolver holds no socket. */
  private scheduleIdleClose(): void {
    if (this.pending.size > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), 5000);
    this.idleTimer.unref();
  }

  close(): void {
    clearTimeout(this.idleTimer);
    this.pending.clear();
    this.socket?.destroy();
    this.socket = undefined;
  }
}
