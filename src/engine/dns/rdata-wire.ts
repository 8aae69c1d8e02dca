import { DNSSEC_WIRE } from './dnssec-rdata.ts';
import { decodeLoc } from './loc-rdata.ts';
import { RR_TYPE } from './rr-types.ts';
import { decodeSvcb } from './svcb.ts';
import { formatIpv6 } from './ip-text.ts';
import { genericRdata, quoteText, toBase64, toHex } from './text-values.ts';
import type { RdataDecoder } from './rdata-codec.ts';
import type { WireReader } from './wire-reader.ts';
import { DnsWireError } from './wire-reader.ts';

const nameOnly: RdataDecoder = (r) => r.name();
const numberAndName: RdataDecoder = (r) => `${r.u16()} ${r.name()}`;
const twoNames: RdataDecoder = (r) => `${r.name()} ${r.name()}`;

/** Every character-string up to the end (TXT, SPF), each quoted. */
const strings: RdataDecoder = (r, end) => {
  if (r.pos >= end) throw new DnsWireError('TXT data without a string');
  let text = quoteText(r.characterString());
  while (r.pos < end) text += ` ${quoteText(r.characterString())}`;
  return text;
};

/** The bytes left until the end of the record data, as latin1. */
const remaining = (r: WireReader, end: number): string => r.bytes(end - r.pos);

/** The bytes left, at least one, as base64 (OPENPGPKEY, DHCID). */
const base64Rest: RdataDecoder = (r, end) => {
  if (r.pos >= end) throw new DnsWireError('empty record data');
  return toBase64(remaining(r, end));
};

/** An EUI-48 or EUI-64 address (RFC 7043): hex pairs joined by `-`, lower-case. */
const eui =
  (size: number): RdataDecoder =>
  (r) =>
    [...r.bytes(size)].map((byte) => byte.charCodeAt(0).toString(16).padStart(2, '0')).join('-');

/** A 64-bit ILNP locator or node identifier (RFC 6742): four 16-bit groups in hex. */
const ilnp64: RdataDecoder = (r) =>
  `${r.u16()} ${[r.u16(), r.u16(), r.u16(), r.u16()].map((group) => group.toString(16)).join(':')}`;

const tlsa: RdataDecoder = (r, end) => `${r.u8()} ${r.u8()} ${r.u8()} ${toHex(remaining(r, end))}`;

const DECODERS = new Map<number, RdataDecoder>([
  [
    RR_TYPE.A,
    (r) => {
      r.need(4);
      const b = r.buf;
      const at = r.pos;
      r.pos += 4;
      return `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
    },
  ],
  [
    RR_TYPE.AAAA,
    (r) => {
      r.need(16);
      const text = formatIpv6(r.buf, r.pos);
      r.pos += 16;
      return text;
    },
  ],
  [RR_TYPE.NS, nameOnly],
  [RR_TYPE.CNAME, nameOnly],
  [RR_TYPE.PTR, nameOnly],
  [RR_TYPE.DNAME, nameOnly],
  [RR_TYPE.MB, nameOnly],
  [RR_TYPE.MG, nameOnly],
  [RR_TYPE.MR, nameOnly],
  [RR_TYPE.NSAP_PTR, nameOnly],
  [RR_TYPE.MX, numberAndName],
  [RR_TYPE.AFSDB, numberAndName],
  [RR_TYPE.RT, numberAndName],
  [RR_TYPE.KX, numberAndName],
  [RR_TYPE.LP, numberAndName],
  [RR_TYPE.MINFO, twoNames],
  [RR_TYPE.TALINK, twoNames],
  [RR_TYPE.TXT, strings],
  [RR_TYPE.SPF, strings],
  [RR_TYPE.AVC, strings],
  [RR_TYPE.NINFO, strings],
  [RR_TYPE.RESINFO, strings],
  [RR_TYPE.WALLET, strings],
  [RR_TYPE.HINFO, (r) => `${quoteText(r.characterString())} ${quoteText(r.characterString())}`],
  [RR_TYPE.SOA, (r) => `${r.name()} ${r.name()} ${r.u32()} ${r.u32()} ${r.u32()} ${r.u32()} ${r.u32()}`],
  [RR_TYPE.SRV, (r) => `${r.u16()} ${r.u16()} ${r.u16()} ${r.name()}`],
  [RR_TYPE.RP, twoNames],
  [RR_TYPE.PX, (r) => `${r.u16()} ${r.name()} ${r.name()}`],
  [
    RR_TYPE.X25,
    (r) => {
      const address = r.characterString();
      if (!/^\d{4,}$/.test(address)) throw new DnsWireError('X25 address is not at least 4 decimal digits');
      return quoteText(address);
    },
  ],
  [
    RR_TYPE.ISDN,
    (r, end) => {
      const address = quoteText(r.characterString());
      return r.pos < end ? `${address} ${quoteText(r.characterString())}` : address;
    },
  ],
  [
    RR_TYPE.NAPTR,
    (r) =>
      `${r.u16()} ${r.u16()} ${quoteText(r.characterString())} ${quoteText(r.characterString())} ${quoteText(r.characterString())} ${r.name()}`,
  ],
  [
    RR_TYPE.CAA,
    (r, end) => {
      const flags = r.u8();
      const tag = r.characterString();
      if (tag.length === 0 || !/^[A-Za-z0-9]+$/.test(tag)) throw new DnsWireError('bad CAA tag');
      return `${flags} ${tag} ${quoteText(remaining(r, end))}`;
    },
  ],
  [RR_TYPE.SSHFP, (r, end) => `${r.u8()} ${r.u8()} ${toHex(remaining(r, end))}`],
  [RR_TYPE.TLSA, tlsa],
  [RR_TYPE.SMIMEA, tlsa],
  [RR_TYPE.SVCB, decodeSvcb],
  [RR_TYPE.HTTPS, decodeSvcb],
  [RR_TYPE.LOC, decodeLoc],
  [RR_TYPE.OPENPGPKEY, base64Rest],
  [RR_TYPE.DHCID, base64Rest],
  [RR_TYPE.URI, (r, end) => `${r.u16()} ${r.u16()} ${quoteText(remaining(r, end))}`],
  [RR_TYPE.CERT, (r, end) => `${r.u16()} ${r.u16()} ${r.u8()} ${base64Rest(r, end)}`],
  [RR_TYPE.EUI48, eui(6)],
  [RR_TYPE.EUI64, eui(8)],
  [RR_TYPE.L32, (r) => `${r.u16()} ${r.u8()}.${r.u8()}.${r.u8()}.${r.u8()}`],
  [RR_TYPE.L64, ilnp64],
  [RR_TYPE.NID, ilnp64],
  ...DNSSEC_WIRE,
]);

/** True when the engine has a presentation codec for the type (others use RFC 3597 `\#`). */
export function hasTextCodec(type: number): boolean {
  return DECODERS.has(type);
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
  if (reader.pos !== end)
    throw new DnsWireError(`record data of type ${type} has ${reader.pos < end ? 'extra' : 'missing'} bytes`);
  return text;
}
