import { lowerAscii, nameToWire, ownerForm } from './dns-name.ts';
import { decodeRdata } from './rdata-wire.ts';
import { className, RR_TYPE, typeName } from './rr-types.ts';
import type { ZoneRecord } from './zone-record.ts';
import { DnsWireError, WireReader } from './wire-reader.ts';

export { DnsWireError } from './wire-reader.ts';

/**
 * The DNS message format of RFC 1035 §4 (with EDNS0, RFC 6891): queries are encoded, answers
 * decoded into ZoneRecords whose data is canonical text (see zone-record.ts).
 */

/** The fixed 12-byte header of a message. */
export interface DnsHeader {
  id: number;
  isResponse: boolean;
  opcode: number;
  isAuthoritative: boolean;
  isTruncated: boolean;
  /** Response code, extended by the OPT record when there is one (decodeMessage only). */
  rcode: number;
  questionCount: number;
  answerCount: number;
  authorityCount: number;
  additionalCount: number;
}

/** One question: canonical name (with trailing dot), type and class numbers. */
export interface DnsQuestion {
  name: string;
  type: number;
  class: number;
}

/** A decoded message. The OPT pseudo-record is not among `additionals`; its payload size is `ednsUdpSize`. */
export interface DnsMessage extends DnsHeader {
  questions: DnsQuestion[];
  answers: ZoneRecord[];
  authorities: ZoneRecord[];
  additionals: ZoneRecord[];
  ednsUdpSize: number | undefined;
}

/** Reads the header; a message shorter than 12 bytes is malformed. */
export function readHeader(buf: Buffer): DnsHeader {
  if (buf.length < 12) throw new DnsWireError('message shorter than its header');
  const flags = buf.readUInt16BE(2);
  return {
    id: buf.readUInt16BE(0),
    isResponse: (flags & 0x8000) !== 0,
    opcode: (flags >> 11) & 0xf,
    isAuthoritative: (flags & 0x0400) !== 0,
    isTruncated: (flags & 0x0200) !== 0,
    rcode: flags & 0xf,
    questionCount: buf.readUInt16BE(4),
    answerCount: buf.readUInt16BE(6),
    authorityCount: buf.readUInt16BE(8),
    additionalCount: buf.readUInt16BE(10),
  };
}

/** Reads one question at the reader. */
export function readQuestion(reader: WireReader): DnsQuestion {
  const name = reader.name();
  return { name, type: reader.u16(), class: reader.u16() };
}

/** Reads one resource record at the reader; `type` is its number, the record's type its mnemonic. */
export function readRecord(reader: WireReader): { record: ZoneRecord; type: number; classValue: number; ttl: number } {
  const owner = ownerForm(reader.name());
  const at = reader.pos;
  const record = readRecordBody(reader, owner);
  const buf = reader.buf;
  return { record, type: buf.readUInt16BE(at), classValue: buf.readUInt16BE(at + 2), ttl: buf.readUInt32BE(at + 4) };
}

/** Reads the rest of a resource record whose owner (in owner form) the caller has read or knows. */
export function readRecordBody(reader: WireReader, owner: string): ZoneRecord {
  const type = reader.u16();
  const classValue = reader.u16();
  const ttl = reader.u32();
  const length = reader.u16();
  const data = type === RR_TYPE.OPT ? skip(reader, length) : decodeRdata(reader, type, length);
  // A TTL with the top bit set reads as 0 (RFC 2181 §8).
  return { name: owner, ttl: ttl > 0x7fffffff ? 0 : ttl, class: className(classValue), type: typeName(type), data };
}

function skip(reader: WireReader, length: number): string {
  reader.need(length);
  reader.pos += length;
  return '';
}

/** Decodes a whole message; any malformation throws DnsWireError. */
export function decodeMessage(buf: Buffer): DnsMessage {
  const header = readHeader(buf);
  const reader = new WireReader(buf, 12);
  const questions: DnsQuestion[] = [];
  for (let i = 0; i < header.questionCount; i += 1) questions.push(readQuestion(reader));
  const section = (count: number, onOpt?: (classValue: number, ttl: number) => void): ZoneRecord[] => {
    const records: ZoneRecord[] = [];
    for (let i = 0; i < count; i += 1) {
      const { record, type, classValue, ttl } = readRecord(reader);
      if (type === RR_TYPE.OPT && onOpt !== undefined) onOpt(classValue, ttl);
      else records.push(record);
    }
    return records;
  };
  let ednsUdpSize: number | undefined;
  let rcode = header.rcode;
  const answers = section(header.answerCount);
  const authorities = section(header.authorityCount);
  const additionals = section(header.additionalCount, (classValue, ttl) => {
    ednsUdpSize = classValue;
    rcode |= (ttl >>> 24) << 4;
  });
  return { ...header, rcode, questions, answers, authorities, additionals, ednsUdpSize };
}

/** How a query is built. */
export interface QueryOptions {
  /** RD bit: ask a recursive resolver to recurse (default true). */
  isRecursionDesired?: boolean;
  /** Advertise EDNS0 with this UDP payload size; 0 or undefined sends no OPT record. */
  ednsUdpSize?: number;
  /** Class number, default 1 (IN). */
  class?: number;
}

/**
 * Wire form of a query name: presentation text (escapes allowed), read as absolute, ASCII
 * lower-cased. Plain names (no backslash), nearly all of them, are written in one pass.
 */
export function queryNameWire(name: string): Buffer {
  if (name.includes('\\')) {
    // Length bytes are at most 63, below 'A', so lowering ASCII letters never touches them.
    return Buffer.from(lowerAscii(nameToWire(name === '' ? '.' : name)), 'latin1');
  }
  const text = name.endsWith('.') ? name.slice(0, -1) : name;
  if (text.length === 0) return Buffer.from([0]);
  if (text.length > 253) throw new DnsWireError(`name "${name}" is longer than 255 bytes`);
  const buf = Buffer.allocUnsafe(text.length + 2);
  let lengthAt = 0;
  for (let i = 0; i <= text.length; i += 1) {
    const code = i === text.length ? 0x2e : text.charCodeAt(i);
    if (code === 0x2e) {
      const length = i - lengthAt;
      if (length === 0 || length > 63) throw new DnsWireError(`bad label length in name "${name}"`);
      buf[lengthAt] = length;
      lengthAt = i + 1;
    } else {
      if (code > 0xff)
        throw new DnsWireError(`name "${name}" has a character outside latin1; convert it with domainToASCII`);
      buf[i + 1] = code >= 0x41 && code <= 0x5a ? code + 32 : code;
    }
  }
  buf[text.length + 1] = 0;
  return buf;
}

/**
 * The fixed parts of the queries one client sends (flags, class, EDNS0), written once: a query
 * is then its id, name and type copied behind them. The bulk resolver builds one message per
 * query sent, so this is on its hot path.
 */
export class QueryTemplate {
  private readonly flags: number;
  private readonly classValue: number;
  private readonly opt: Buffer;

  constructor(options: QueryOptions = {}) {
    this.flags = options.isRecursionDesired === false ? 0 : 0x0100;
    this.classValue = options.class ?? 1;
    const edns = options.ednsUdpSize !== undefined && options.ednsUdpSize > 0 ? options.ednsUdpSize : 0;
    this.opt = Buffer.alloc(edns > 0 ? 11 : 0);
    if (edns > 0) {
      // OPT: root owner, type 41, class = payload size, extended rcode/version/flags 0, no options.
      this.opt.writeUInt16BE(RR_TYPE.OPT, 1);
      this.opt.writeUInt16BE(edns, 3);
    }
  }

  /** Length of the query for a name in wire form. */
  length(nameWire: Buffer): number {
    return 12 + nameWire.length + 4 + this.opt.length;
  }

  /** The query for a name in wire form; with `prefix` 2, behind its two-byte length, as TCP sends it. */
  encode(id: number, nameWire: Buffer, type: number, prefix: 0 | 2 = 0): Buffer {
    const length = this.length(nameWire);
    const buf = Buffer.allocUnsafe(prefix + length);
    if (prefix === 2) {
      buf[0] = length >> 8;
      buf[1] = length & 0xff;
    }
    this.write(buf, prefix, id, nameWire, type);
    return buf;
  }

  /** Writes the query at `at` of `buf` (which has room for it). */
  write(buf: Buffer, at: number, id: number, nameWire: Buffer, type: number): void {
    const opt = this.opt;
    buf[at] = id >> 8;
    buf[at + 1] = id & 0xff;
    buf[at + 2] = this.flags >> 8;
    buf[at + 3] = this.flags & 0xff;
    // One question, no answer or authority records; the OPT record when EDNS is on.
    buf[at + 4] = 0;
    buf[at + 5] = 1;
    buf[at + 6] = 0;
    buf[at + 7] = 0;
    buf[at + 8] = 0;
    buf[at + 9] = 0;
    buf[at + 10] = 0;
    buf[at + 11] = opt.length > 0 ? 1 : 0;
    let pos = at + 12;
    // A byte loop: names are short, and Buffer#copy costs more than it saves below ~64 bytes.
    for (let i = 0; i < nameWire.length; i += 1) buf[pos + i] = nameWire[i] as number;
    pos += nameWire.length;
    buf[pos] = type >> 8;
    buf[pos + 1] = type & 0xff;
    buf[pos + 2] = this.classValue >> 8;
    buf[pos + 3] = this.classValue & 0xff;
    pos += 4;
    for (let i = 0; i < opt.length; i += 1) buf[pos + i] = opt[i] as number;
  }
}

/** Builds a one-question query from a name already in wire form (see queryNameWire). */
export function buildQuery(id: number, nameWire: Buffer, type: number, options: QueryOptions = {}): Buffer {
  return new QueryTemplate(options).encode(id, nameWire, type);
}

/** Builds a query for a name in presentation form. */
export function encodeQuery(id: number, name: string, type: number, options: QueryOptions = {}): Buffer {
  return buildQuery(id, queryNameWire(name), type, options);
}
