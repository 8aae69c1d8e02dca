import { IANA_RR_TYPES } from './rr-type-registry.ts';

/** Record type numbers the engine's codecs and checks name (the full list is rr-type-registry.ts). */
export const RR_TYPE = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  MB: 7,
  MG: 8,
  MR: 9,
  PTR: 12,
  HINFO: 13,
  MINFO: 14,
  MX: 15,
  TXT: 16,
  RP: 17,
  AFSDB: 18,
  X25: 19,
  ISDN: 20,
  RT: 21,
  NSAP_PTR: 23,
  PX: 26,
  AAAA: 28,
  LOC: 29,
  SRV: 33,
  NAPTR: 35,
  KX: 36,
  CERT: 37,
  DNAME: 39,
  OPT: 41,
  DS: 43,
  SSHFP: 44,
  RRSIG: 46,
  NSEC: 47,
  DNSKEY: 48,
  DHCID: 49,
  NSEC3: 50,
  NSEC3PARAM: 51,
  TLSA: 52,
  SMIMEA: 53,
  NINFO: 56,
  TALINK: 58,
  CDS: 59,
  CDNSKEY: 60,
  OPENPGPKEY: 61,
  CSYNC: 62,
  ZONEMD: 63,
  SVCB: 64,
  HTTPS: 65,
  SPF: 99,
  NID: 104,
  L32: 105,
  L64: 106,
  LP: 107,
  EUI48: 108,
  EUI64: 109,
  IXFR: 251,
  AXFR: 252,
  ANY: 255,
  URI: 256,
  CAA: 257,
  AVC: 258,
  RESINFO: 261,
  WALLET: 262,
  TA: 32768,
  DLV: 32769,
} as const;

const NAME_BY_TYPE = new Map<number, string>(IANA_RR_TYPES.map(([name, value]) => [value, name]));
const TYPE_BY_NAME = new Map<string, number>(IANA_RR_TYPES);

/** Class numbers of RFC 1035 §3.2.4 (and the CLASSnnn form of RFC 3597). */
const CLASS_BY_NAME = new Map<string, number>([
  ['IN', 1],
  ['CS', 2],
  ['CH', 3],
  ['HS', 4],
]);
const NAME_BY_CLASS = new Map<number, string>([...CLASS_BY_NAME].map(([name, value]) => [value, name]));

const GENERIC_TYPE = /^TYPE(\d{1,5})$/i;
const GENERIC_CLASS = /^CLASS(\d{1,5})$/i;

/**
 * The number of a type mnemonic of the IANA registry (`MX`, `mx`) or of the RFC 3597 form
 * `TYPE15`; undefined otherwise.
 */
export function typeNumber(text: string): number | undefined {
  const known = TYPE_BY_NAME.get(text) ?? TYPE_BY_NAME.get(text.toUpperCase());
  if (known !== undefined) return known;
  const generic = GENERIC_TYPE.exec(text);
  if (generic === null) return undefined;
  const value = Number(generic[1]);
  return value <= 0xffff ? value : undefined;
}

/** The registry mnemonic of a type number, or `TYPEnnn` (RFC 3597 §5) for an unassigned one. */
export function typeName(type: number): string {
  return NAME_BY_TYPE.get(type) ?? `TYPE${type}`;
}

/** True for a type number the IANA registry assigns (it has a mnemonic). */
export function isRegisteredType(type: number): boolean {
  return NAME_BY_TYPE.has(type);
}

/** The number of a class mnemonic (`IN`) or of `CLASSnnn`; undefined when the text is not a class. */
export function classNumber(text: string): number | undefined {
  if (text === 'IN') return 1;
  // Every class mnemonic has two letters; anything longer can only be CLASSnnn.
  if (text.length === 2) return CLASS_BY_NAME.get(text.toUpperCase());
  if ((text.charCodeAt(0) | 0x20) !== 0x63) return undefined;
  const generic = GENERIC_CLASS.exec(text);
  if (generic === null) return undefined;
  const value = Number(generic[1]);
  return value <= 0xffff ? value : undefined;
}

/** The mnemonic of a class number, or `CLASSnnn`. */
export function className(value: number): string {
  return NAME_BY_CLASS.get(value) ?? `CLASS${value}`;
}

/** DNSSEC algorithm mnemonics accepted in DS and DNSKEY text (RFC 8624 table), by number. */
export const DNSSEC_ALGORITHMS: ReadonlyMap<string, number> = new Map([
  ['RSAMD5', 1],
  ['DH', 2],
  ['DSA', 3],
  ['RSASHA1', 5],
  ['DSA-NSEC3-SHA1', 6],
  ['RSASHA1-NSEC3-SHA1', 7],
  ['RSASHA256', 8],
  ['RSASHA512', 10],
  ['ECC-GOST', 12],
  ['ECDSAP256SHA256', 13],
  ['ECDSAP384SHA384', 14],
  ['ED25519', 15],
  ['ED448', 16],
  ['INDIRECT', 252],
  ['PRIVATEDNS', 253],
  ['PRIVATEOID', 254],
]);

/** Response codes of RFC 1035 §4.1.1 and RFC 2136 by number, for messages. */
export const RCODE_NAMES: readonly string[] = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
];

/** The name of a response code, e.g. `REFUSED`, or `RCODE12`. */
export function rcodeName(rcode: number): string {
  return RCODE_NAMES[rcode] ?? `RCODE${rcode}`;
}
