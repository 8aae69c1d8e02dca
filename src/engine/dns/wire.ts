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
  const name = reader.name();
  const type = reader.u16();
  const classValue = reader.u16();
  const ttl = reader.u32();
  const length = reader.u16();
  const data = type === RR_TYPE.OPT ? skip(reader, length) : decodeRdata(reader, type, length);
  // A TTL with the top bit set reads as 0 (RFC 2181 §8).
  const shownTtl = ttl > 0x7fffffff ? 0 : ttl;
  return { record: { name: ownerForm(name), ttl: shownTtl, class: className(classValue), type: typeName(type), data }, type, classValue, ttl };
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
      if (code > 0xff) throw new DnsWireError(`name "${name}" has a character outside latin1; convert it with domainToASCII`);
      buf[i + 1] = code >= 0x41 && code <= 0x5a ? code + 32 : code;
    }
  }
  buf[text.length + 1] = 0;
  return buf;
}

/** Builds a one-question query from a name already in wire form (see queryNameWire). */
export function buildQuery(id: number, nameWire: Buffer, type: number, options: QueryOptions = {}): Buffer {
  const edns = options.ednsUdpSize !== undefined && options.ednsUdpSize > 0 ? options.ednsUdpSize : 0;
  const buf = Buffer.allocUnsafe(12 + nameWire.length + 4 + (edns > 0 ? 11 : 0));
  buf.writeUInt16BE(id, 0);
  buf.writeUInt16BE(options.isRecursionDesired === false ? 0 : 0x0100, 2);
  buf.writeUInt16BE(1, 4);
  buf.writeUInt16BE(0, 6);
  buf.writeUInt16BE(0, 8);
  buf.writeUInt16BE(edns > 0 ? 1 : 0, 10);
  nameWire.copy(buf, 12);
  let at = 12 + nameWire.length;
  buf.writeUInt16BE(type, at);
  buf.writeUInt16BE(options.class ?? 1, at + 2);
  at += 4;
  if (edns > 0) {
    // OPT: root owner, type 41, class = payload size, extended rcode/version/flags 0, no options.
    buf[at] = 0;
    buf.writeUInt16BE(RR_TYPE.OPT, at + 1);
    buf.writeUInt16BE(edns, at + 3);
    buf.writeUInt32BE(0, at + 5);
    buf.writeUInt16BE(0, at + 9);
  }
  return buf;
}

/** Builds a query for a name in presentation form. */
export function encodeQuery(id: number, name: string, type: number, options: QueryOptions = {}): Buffer {
  return buildQuery(id, queryNameWire(name), type, options);
}
