import { PresentationError } from './dns-name.ts';
import { decodeRdata, genericRdata, hasTextCodec } from './rdata-wire.ts';
import { DNSSEC_ALGORITHMS, RR_TYPE, typeName } from './rr-types.ts';
import { parseSvcbText } from './svcb.ts';
import type { TokenCursor } from './token-cursor.ts';
import { canonicalIpv4, canonicalIpv6 } from './ip-text.ts';
import { base64Bytes, decodeCharacterString, decodeText, hexBytes, parseSeconds, quoteText, toBase64, toHex } from './text-values.ts';
import { DnsWireError, WireReader } from './wire-reader.ts';

/** Reads one type's record data from zone-file tokens into canonical text (see zone-record.ts). */
type RdataParser = (c: TokenCursor) => string;

const nameOnly: RdataParser = (c) => c.name('target name');

/** One or more character strings, quoted or not (TXT, SPF). */
const strings: RdataParser = (c) =>
  c
    .rest('text')
    .map((token) => quoteText(decodeCharacterString(token)))
    .join(' ');

const quoted = (c: TokenCursor, what: string): string => quoteText(decodeCharacterString(c.next(what)));

/** A DNSSEC algorithm by number or mnemonic (RFC 4034 appendix A.1). */
function algorithm(c: TokenCursor): number {
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

const digest: RdataParser = (c) => {
  const keyTag = c.uint('key tag', 0xffff);
  const alg = algorithm(c);
  const digestType = c.uint('digest type', 0xff);
  const bytes = hexBytes(c.joinedRest('digest'), 'digest');
  const size = DIGEST_SIZE.get(digestType);
  if (size !== undefined && bytes.length !== size) throw new PresentationError(`digest type ${digestType} needs ${size} bytes, got ${bytes.length}`);
  return `${keyTag} ${alg} ${digestType} ${toHex(bytes)}`;
};

const key: RdataParser = (c) => {
  const flags = c.uint('flags', 0xffff);
  const protocol = c.uint('protocol', 0xff);
  const alg = algorithm(c);
  return `${flags} ${protocol} ${alg} ${toBase64(base64Bytes(c.joinedRest('public key'), 'public key'))}`;
};

const PARSERS = new Map<number, RdataParser>([
  [RR_TYPE.A, (c) => canonicalIpv4(c.word('IPv4 address'))],
  [RR_TYPE.AAAA, (c) => canonicalIpv6(c.word('IPv6 address'))],
  [RR_TYPE.NS, nameOnly],
  [RR_TYPE.CNAME, nameOnly],
  [RR_TYPE.PTR, nameOnly],
  [RR_TYPE.DNAME, nameOnly],
  [RR_TYPE.MX, (c) => `${c.uint('preference', 0xffff)} ${c.name('exchange')}`],
  [RR_TYPE.TXT, strings],
  [RR_TYPE.SPF, strings],
  [RR_TYPE.HINFO, (c) => `${quoted(c, 'CPU')} ${quoted(c, 'OS')}`],
  [RR_TYPE.SOA, (c) => {
    const names = `${c.name('primary name server')} ${c.name('mailbox')}`;
    const serial = c.uint('serial', 0xffffffff);
    const times = ['refresh', 'retry', 'expire', 'minimum'].map((what) => parseSeconds(c.word(what), what));
    return `${names} ${serial} ${times.join(' ')}`;
  }],
  [RR_TYPE.SRV, (c) => `${c.uint('priority', 0xffff)} ${c.uint('weight', 0xffff)} ${c.uint('port', 0xffff)} ${c.name('target')}`],
  [RR_TYPE.RP, (c) => `${c.name('mailbox')} ${c.name('TXT name')}`],
  [RR_TYPE.NAPTR, (c) => {
    const numbers = `${c.uint('order', 0xffff)} ${c.uint('preference', 0xffff)}`;
    return `${numbers} ${quoted(c, 'flags')} ${quoted(c, 'services')} ${quoted(c, 'regexp')} ${c.name('replacement')}`;
  }],
  [RR_TYPE.CAA, (c) => {
    const flags = c.uint('flags', 0xff);
    const tag = c.word('tag');
    if (!/^[A-Za-z0-9]{1,15}$/.test(tag)) throw new PresentationError(`bad CAA tag "${tag}": 1 to 15 letters or digits`);
    return `${flags} ${tag} ${quoteText(decodeText(c.next('value')))}`;
  }],
  [RR_TYPE.DS, digest],
  [RR_TYPE.CDS, digest],
  [RR_TYPE.DNSKEY, key],
  [RR_TYPE.CDNSKEY, key],
  [RR_TYPE.SSHFP, (c) => `${c.uint('algorithm', 0xff)} ${c.uint('fingerprint type', 0xff)} ${toHex(hexBytes(c.joinedRest('fingerprint'), 'fingerprint'))}`],
  [RR_TYPE.TLSA, (c) => {
    const head = `${c.uint('usage', 0xff)} ${c.uint('selector', 0xff)} ${c.uint('matching type', 0xff)}`;
    return `${head} ${toHex(hexBytes(c.joinedRest('certificate data'), 'certificate data'))}`;
  }],
  [RR_TYPE.SVCB, parseSvcbText],
  [RR_TYPE.HTTPS, parseSvcbText],
]);

/** RFC 3597 §5 generic data `\# length hex…`, decoded to the type's own text when the engine has a codec. */
function parseGeneric(c: TokenCursor, type: number): string {
  c.next('\\#');
  const length = c.uint('data length', 0xffff);
  const hex = length === 0 && !c.hasMore() ? '' : c.joinedRest('hex data');
  const bytes = Buffer.from(hexBytes(hex, 'RFC 3597 data'), 'latin1');
  if (bytes.length !== length) throw new PresentationError(`RFC 3597 data has ${bytes.length} bytes, the length says ${length}`);
  if (!hasTextCodec(type)) return genericRdata(bytes, 0, bytes.length);
  try {
    return decodeRdata(new WireReader(bytes, 0, false), type, bytes.length);
  } catch (err) {
    if (err instanceof DnsWireError) throw new PresentationError(`RFC 3597 data is not valid ${typeName(type)} data: ${err.message}`);
    throw err;
  }
}

/** Canonical text of the record data of `type` read from the cursor; leftovers are an error. */
export function parseRdata(c: TokenCursor, type: number): string {
  let text: string;
  if (c.peek() === '\\#') {
    text = parseGeneric(c, type);
  } else {
    const parser = PARSERS.get(type);
    if (parser === undefined) throw new PresentationError(`type ${typeName(type)} is only accepted in the RFC 3597 form (\\# length hex)`);
    text = parser(c);
  }
  c.expectEnd();
  return text;
}
