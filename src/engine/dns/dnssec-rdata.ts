import { PresentationError } from './dns-name.ts';
import type { RdataDecoder, RdataParser } from './rdata-codec.ts';
import { DNSSEC_ALGORITHMS, RR_TYPE, typeName, typeNumber } from './rr-types.ts';
import {
  base32HexBytes,
  base64Bytes,
  formatDnssecTime,
  hexBytes,
  parseDnssecTime,
  parseUint,
  toBase32Hex,
  toBase64,
  toHex,
} from './text-values.ts';
import type { TokenCursor } from './token-cursor.ts';
import { decodeTypeBitmap, parseTypeBitmap } from './type-bitmap.ts';
import { DnsWireError, type WireReader } from './wire-reader.ts';

/**
 * Record data of DNSSEC and zone-integrity types, text and wire: DS, CDS, TA, DLV, DNSKEY,
 * CDNSKEY (RFC 4034, 7344), RRSIG and NSEC (RFC 4034), NSEC3 and NSEC3PARAM (RFC 5155), CSYNC
 * (RFC 7477) and ZONEMD (RFC 8976). Both paths give the same canonical text: numbers in
 * decimal (algorithms too), times as `YYYYMMDDHHmmSS`, hex upper-case, base32hex upper-case,
 * base64 unbroken, type lists in number order. The checks are BIND's.
 */

/** A DNSSEC algorithm by number or mnemonic (RFC 4034 appendix A.1). */
export function algorithm(c: TokenCursor): number {
  const token = c.word('algorithm');
  const known = DNSSEC_ALGORITHMS.get(token.toUpperCase());
  if (known !== undefined) return known;
  const value = Number(token);
  if (!/^\d{1,3}$/.test(token) || value > 255) throw new PresentationError(`unknown algorithm "${token}"`);
  return value;
}

// Digest sizes of the DS digest types that have one (RFC 4034, 4509, 6605): a shorter or longer
// digest is a typo, and BIND refuses it.
const DIGEST_SIZE = new Map([
  [1, 20],
  [2, 32],
  [4, 48],
]);

function checkedDigest(digestType: number, bytes: string): string {
  const size = DIGEST_SIZE.get(digestType);
  if (size !== undefined && bytes.length !== size)
    throw new PresentationError(`digest type ${digestType} needs ${size} bytes, got ${bytes.length}`);
  return toHex(bytes);
}

const digest: RdataParser = (c) => {
  const keyTag = c.uint('key tag', 0xffff);
  const alg = algorithm(c);
  const digestType = c.uint('digest type', 0xff);
  return `${keyTag} ${alg} ${digestType} ${checkedDigest(digestType, hexBytes(c.joinedRest('digest'), 'digest'))}`;
};

const key: RdataParser = (c) => {
  const flags = c.uint('flags', 0xffff);
  const protocol = c.uint('protocol', 0xff);
  const alg = algorithm(c);
  return `${flags} ${protocol} ${alg} ${toBase64(base64Bytes(c.joinedRest('public key'), 'public key'))}`;
};

const rrsig: RdataParser = (c) => {
  const coveredText = c.word('type covered');
  const covered = typeNumber(coveredText);
  if (covered === undefined) throw new PresentationError(`unknown type covered "${coveredText}"`);
  const alg = algorithm(c);
  const labels = c.uint('labels', 0xff);
  const originalTtl = c.uint('original TTL', 0xffffffff);
  const expiration = parseDnssecTime(c.word('signature expiration'), 'signature expiration');
  const inception = parseDnssecTime(c.word('signature inception'), 'signature inception');
  const keyTag = c.uint('key tag', 0xffff);
  const signer = c.name("signer's name");
  const signature = toBase64(base64Bytes(c.joinedRest('signature'), 'signature'));
  return `${typeName(covered)} ${alg} ${labels} ${originalTtl} ${formatDnssecTime(expiration)} ${formatDnssecTime(inception)} ${keyTag} ${signer} ${signature}`;
};

/** NSEC3 hash algorithm: a number, or SHA-1, the only one defined (RFC 5155 §11). */
function hashAlgorithm(c: TokenCursor): number {
  const token = c.word('hash algorithm');
  return token.toUpperCase() === 'SHA-1' ? 1 : parseUint(token, 0xff, 'hash algorithm');
}

/** The salt: `-` for none, else 1 to 255 bytes of hex. */
function salt(c: TokenCursor): string {
  const token = c.word('salt');
  if (token === '-') return '-';
  const bytes = hexBytes(token, 'salt');
  if (bytes.length > 255) throw new PresentationError(`salt longer than 255 bytes (${bytes.length})`);
  return toHex(bytes);
}

/** The next hashed owner name: 1 to 255 bytes, 20 for SHA-1 (RFC 5155 §3.1.7). */
function checkedHash(hashAlg: number, bytes: string): string {
  if (bytes.length < 1 || bytes.length > 255)
    throw new PresentationError(`next hashed owner name of ${bytes.length} bytes`);
  if (hashAlg === 1 && bytes.length !== 20)
    throw new PresentationError(`a SHA-1 next hashed owner name has 20 bytes, got ${bytes.length}`);
  return toBase32Hex(bytes);
}

const nsec3Param: RdataParser = (c) =>
  `${hashAlgorithm(c)} ${c.uint('flags', 0xff)} ${c.uint('iterations', 0xffff)} ${salt(c)}`;

const nsec3: RdataParser = (c) => {
  const hashAlg = hashAlgorithm(c);
  const head = `${hashAlg} ${c.uint('flags', 0xff)} ${c.uint('iterations', 0xffff)} ${salt(c)}`;
  const hash = checkedHash(hashAlg, base32HexBytes(c.word('next hashed owner name'), 'next hashed owner name'));
  const types = parseTypeBitmap(c, true);
  return types === '' ? `${head} ${hash}` : `${head} ${hash} ${types}`;
};

/** ZONEMD digest sizes (RFC 8976 §5.3): SHA-384 and SHA-512; any other at least 12 bytes. */
const ZONEMD_DIGEST_SIZE = new Map([
  [1, 48],
  [2, 64],
]);

function checkedZoneDigest(hashAlg: number, bytes: string): string {
  const size = ZONEMD_DIGEST_SIZE.get(hashAlg);
  if (size !== undefined && bytes.length !== size)
    throw new PresentationError(`ZONEMD hash algorithm ${hashAlg} needs ${size} bytes, got ${bytes.length}`);
  if (bytes.length < 12) throw new PresentationError(`ZONEMD digest shorter than 12 bytes (${bytes.length})`);
  return toHex(bytes);
}

// The types that share the DS and the DNSKEY format.
const DIGEST_TYPES = [RR_TYPE.DS, RR_TYPE.CDS, RR_TYPE.TA, RR_TYPE.DLV];
const KEY_TYPES = [RR_TYPE.DNSKEY, RR_TYPE.CDNSKEY];

/** Text parsers of the DNSSEC and zone-integrity types. */
export const DNSSEC_TEXT: ReadonlyArray<[number, RdataParser]> = [
  ...DIGEST_TYPES.map((type): [number, RdataParser] => [type, digest]),
  ...KEY_TYPES.map((type): [number, RdataParser] => [type, key]),
  [RR_TYPE.RRSIG, rrsig],
  [RR_TYPE.NSEC, (c) => `${c.name('next domain name')} ${parseTypeBitmap(c, false)}`],
  [RR_TYPE.NSEC3, nsec3],
  [RR_TYPE.NSEC3PARAM, nsec3Param],
  [
    RR_TYPE.CSYNC,
    (c) => joinNonEmpty(`${c.uint('SOA serial', 0xffffffff)} ${c.uint('flags', 0xffff)}`, parseTypeBitmap(c, true)),
  ],
  [
    RR_TYPE.ZONEMD,
    (c) => {
      const head = `${c.uint('serial', 0xffffffff)} ${c.uint('scheme', 0xff)}`;
      const hashAlg = c.uint('hash algorithm', 0xff);
      return `${head} ${hashAlg} ${checkedZoneDigest(hashAlg, hexBytes(c.joinedRest('digest'), 'digest'))}`;
    },
  ],
];

function joinNonEmpty(head: string, tail: string): string {
  return tail === '' ? head : `${head} ${tail}`;
}

/** The bytes left until the end of the record data, as latin1. */
const remaining = (r: WireReader, end: number): string => r.bytes(end - r.pos);

/** A wire check failed: the same checks as the text path, reported as a wire error. */
function wireChecked<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof PresentationError) throw new DnsWireError(err.message);
    throw err;
  }
}

const wireDigest: RdataDecoder = (r, end) => {
  const head = `${r.u16()} ${r.u8()}`;
  const digestType = r.u8();
  return `${head} ${digestType} ${wireChecked(() => checkedDigest(digestType, remaining(r, end)))}`;
};

const wireKey: RdataDecoder = (r, end) => `${r.u16()} ${r.u8()} ${r.u8()} ${toBase64(remaining(r, end))}`;

const wireRrsig: RdataDecoder = (r, end) => {
  const head = `${typeName(r.u16())} ${r.u8()} ${r.u8()} ${r.u32()}`;
  const times = `${formatDnssecTime(r.u32())} ${formatDnssecTime(r.u32())}`;
  const keyTag = r.u16();
  const signer = r.name();
  if (r.pos >= end) throw new DnsWireError('RRSIG without a signature');
  return `${head} ${times} ${keyTag} ${signer} ${toBase64(remaining(r, end))}`;
};

function wireSalt(r: WireReader): string {
  const length = r.u8();
  return length === 0 ? '-' : toHex(r.bytes(length));
}

const wireNsec3: RdataDecoder = (r, end) => {
  const hashAlg = r.u8();
  const head = `${hashAlg} ${r.u8()} ${r.u16()} ${wireSalt(r)}`;
  const hash = r.bytes(r.u8());
  return joinNonEmpty(`${head} ${wireChecked(() => checkedHash(hashAlg, hash))}`, decodeTypeBitmap(r, end, true));
};

const wireZonemd: RdataDecoder = (r, end) => {
  const head = `${r.u32()} ${r.u8()}`;
  const hashAlg = r.u8();
  return `${head} ${hashAlg} ${wireChecked(() => checkedZoneDigest(hashAlg, remaining(r, end)))}`;
};

/** Wire decoders of the DNSSEC and zone-integrity types. */
export const DNSSEC_WIRE: ReadonlyArray<[number, RdataDecoder]> = [
  ...DIGEST_TYPES.map((type): [number, RdataDecoder] => [type, wireDigest]),
  ...KEY_TYPES.map((type): [number, RdataDecoder] => [type, wireKey]),
  [RR_TYPE.RRSIG, wireRrsig],
  [RR_TYPE.NSEC, (r, end) => `${r.name()} ${decodeTypeBitmap(r, end, false)}`],
  [RR_TYPE.NSEC3, wireNsec3],
  [RR_TYPE.NSEC3PARAM, (r) => `${r.u8()} ${r.u8()} ${r.u16()} ${wireSalt(r)}`],
  [RR_TYPE.CSYNC, (r, end) => joinNonEmpty(`${r.u32()} ${r.u16()}`, decodeTypeBitmap(r, end, true))],
  [RR_TYPE.ZONEMD, wireZonemd],
];
