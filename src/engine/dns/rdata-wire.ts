import { RR_TYPE } from './rr-types.ts';
import { decodeSvcb } from './svcb.ts';
import { formatIpv6 } from './ip-text.ts';
import { quoteText, toBase64, toHex } from './text-values.ts';
import type { WireReader } from './wire-reader.ts';
import { DnsWireError } from './wire-reader.ts';

/** Turns the record data at the reader (ending at `end`) into canonical presentation text. */
type RdataDecoder = (r: WireReader, end: number) => string;

const nameOnly: RdataDecoder = (r) => r.name();

/** Every character-string up to the end (TXT, SPF), each quoted. */
const strings: RdataDecoder = (r, end) => {
  if (r.pos >= end) throw new DnsWireError('TXT data without a string');
  let text = quoteText(r.characterString());
  while (r.pos < end) text += ` ${quoteText(r.characterString())}`;
  return text;
};

/** The bytes left until the end of the record data, as latin1. */
const remaining = (r: WireReader, end: number): string => r.bytes(end - r.pos);

const DECODERS = new Map<number, RdataDecoder>([
  [RR_TYPE.A, (r) => {
    r.need(4);
    const b = r.buf;
    const at = r.pos;
    r.pos += 4;
    return `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
  }],
  [RR_TYPE.AAAA, (r) => {
    r.need(16);
    const text = formatIpv6(r.buf, r.pos);
    r.pos += 16;
    return text;
  }],
  [RR_TYPE.NS, nameOnly],
  [RR_TYPE.CNAME, nameOnly],
  [RR_TYPE.PTR, nameOnly],
  [RR_TYPE.DNAME, nameOnly],
  [RR_TYPE.MX, (r) => `${r.u16()} ${r.name()}`],
  [RR_TYPE.TXT, strings],
  [RR_TYPE.SPF, strings],
  [RR_TYPE.HINFO, (r) => `${quoteText(r.characterString())} ${quoteText(r.characterString())}`],
  [RR_TYPE.SOA, (r) => `${r.name()} ${r.name()} ${r.u32()} ${r.u32()} ${r.u32()} ${r.u32()} ${r.u32()}`],
  [RR_TYPE.SRV, (r) => `${r.u16()} ${r.u16()} ${r.u16()} ${r.name()}`],
  [RR_TYPE.RP, (r) => `${r.name()} ${r.name()}`],
  [RR_TYPE.NAPTR, (r) => `${r.u16()} ${r.u16()} ${quoteText(r.characterString())} ${quoteText(r.characterString())} ${quoteText(r.characterString())} ${r.name()}`],
  [RR_TYPE.CAA, (r, end) => {
    const flags = r.u8();
    const tag = r.characterString();
    if (tag.length === 0 || !/^[A-Za-z0-9]+$/.test(tag)) throw new DnsWireError('bad CAA tag');
    return `${flags} ${tag} ${quoteText(remaining(r, end))}`;
  }],
  [RR_TYPE.DS, digest],
  [RR_TYPE.CDS, digest],
  [RR_TYPE.DNSKEY, key],
  [RR_TYPE.CDNSKEY, key],
  [RR_TYPE.SSHFP, (r, end) => `${r.u8()} ${r.u8()} ${toHex(remaining(r, end))}`],
  [RR_TYPE.TLSA, (r, end) => `${r.u8()} ${r.u8()} ${r.u8()} ${toHex(remaining(r, end))}`],
  [RR_TYPE.SVCB, decodeSvcb],
  [RR_TYPE.HTTPS, decodeSvcb],
]);

function digest(r: WireReader, end: number): string {
  return `${r.u16()} ${r.u8()} ${r.u8()} ${toHex(remaining(r, end))}`;
}

function key(r: WireReader, end: number): string {
  return `${r.u16()} ${r.u8()} ${r.u8()} ${toBase64(remaining(r, end))}`;
}

/** True when the engine has a presentation codec for the type (others use RFC 3597 `\#`). */
export function hasTextCodec(type: number): boolean {
  return DECODERS.has(type);
}

/** RFC 3597 §5 generic text: `\# length HEX`. */
export function genericRdata(bytes: Buffer, start: number, end: number): string {
  return end === start ? '\\# 0' : `\\# ${end - start} ${bytes.toString('hex', start, end).toUpperCase()}`;
}

/**
 * Canonical text of one record's data: `length` bytes at `reader.pos` of a type. Types without
 * a codec come out in RFC 3597 form. Leaves the reader at the end of the data.
 */
export function decodeRdata(reader: WireReader, type: number, length: number): string {
  const start = reader.pos;
  const end = start + length;
  if (end > reader.buf.length) throw new DnsWireError('record data runs past the end of the message');
  const decoder = DECODERS.get(type);
  if (decoder === undefined) {
    reader.pos = end;
    return genericRdata(reader.buf, start, end);
  }
  const text = decoder(reader, end);
  if (reader.pos !== end) throw new DnsWireError(`record data of type ${type} has ${reader.pos < end ? 'extra' : 'missing'} bytes`);
  return text;
}
