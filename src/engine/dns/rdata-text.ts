import { PresentationError } from './dns-name.ts';
import { algorithm, DNSSEC_TEXT } from './dnssec-rdata.ts';
import type { RdataParser } from './rdata-codec.ts';
import { parseLocText } from './loc-rdata.ts';
import { decodeRdata, hasTextCodec } from './rdata-wire.ts';
import { isRegisteredType, RR_TYPE, typeName } from './rr-types.ts';
import { parseSvcbText } from './svcb.ts';
import type { TokenCursor } from './token-cursor.ts';
import { canonicalIpv4, canonicalIpv6 } from './ip-text.ts';
import {
  base64Bytes,
  decodeCharacterString,
  decodeText,
  genericRdata,
  hexBytes,
  parseSeconds,
  parseUint,
  QUOTE_MARK,
  quoteText,
  toBase64,
  toHex,
} from './text-values.ts';
import { DnsWireError, WireReader } from './wire-reader.ts';

const nameOnly: RdataParser = (c) => c.name('target name');
const numberAndName =
  (number: string, name: string): RdataParser =>
  (c) =>
    `${c.uint(number, 0xffff)} ${c.name(name)}`;
const twoNames =
  (first: string, second: string): RdataParser =>
  (c) =>
    `${c.name(first)} ${c.name(second)}`;

/** One or more character strings, quoted or not (TXT, SPF). */
const strings: RdataParser = (c) =>
  c
    .rest('text')
    .map((token) => quoteText(decodeCharacterString(token)))
    .join(' ');

const quoted = (c: TokenCursor, what: string): string => quoteText(decodeCharacterString(c.next(what)));

/** An X.121 PSDN address (RFC 1183 §3.1): at least four decimal digits, as BIND checks. */
function x25Address(bytes: string): string {
  if (!/^\d{4,}$/.test(bytes)) throw new PresentationError(`bad X25 address "${bytes}": at least 4 decimal digits`);
  return quoteText(bytes);
}

/** An ISDN address and an optional subaddress (RFC 1183 §3.2). */
function isdn(c: TokenCursor): string {
  const address = quoted(c, 'ISDN address');
  return c.hasMore() ? `${address} ${quoted(c, 'subaddress')}` : address;
}

const tlsa: RdataParser = (c) => {
  const head = `${c.uint('usage', 0xff)} ${c.uint('selector', 0xff)} ${c.uint('matching type', 0xff)}`;
  return `${head} ${toHex(hexBytes(c.joinedRest('certificate data'), 'certificate data'))}`;
};

const base64Rest =
  (what: string): RdataParser =>
  (c) =>
    toBase64(base64Bytes(c.joinedRest(what), what));

/** An EUI-48 or EUI-64 address (RFC 7043): exactly `xx-xx-…` hex pairs. */
const eui =
  (size: number): RdataParser =>
  (c) => {
    const text = c.word('address');
    if (!new RegExp(`^[0-9a-f]{1,2}(?:-[0-9a-f]{1,2}){${size - 1}}$`, 'i').test(text))
      throw new PresentationError(`bad EUI-${size * 8} address "${text}": ${size} hex bytes joined by "-"`);
    return text
      .toLowerCase()
      .split('-')
      .map((byte) => byte.padStart(2, '0'))
      .join('-');
  };

/** A 64-bit ILNP locator or node identifier (RFC 6742): four groups of 1-4 hex digits. */
const ilnp64: RdataParser = (c) => {
  const preference = c.uint('preference', 0xffff);
  const text = c.word('locator');
  if (!/^[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){3}$/i.test(text))
    throw new PresentationError(`bad 64-bit locator "${text}": four groups of hex joined by ":"`);
  return `${preference} ${text
    .split(':')
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}`;
};

/** CERT certificate types by mnemonic (RFC 4398 §2.1). */
const CERT_TYPES = new Map([
  ['PKIX', 1],
  ['SPKI', 2],
  ['PGP', 3],
  ['IPKIX', 4],
  ['ISPKI', 5],
  ['IPGP', 6],
  ['ACPKIX', 7],
  ['IACPKIX', 8],
  ['URI', 253],
  ['OID', 254],
]);

const cert: RdataParser = (c) => {
  const typeText = c.word('certificate type');
  const certType = CERT_TYPES.get(typeText.toUpperCase()) ?? parseUint(typeText, 0xffff, 'certificate type');
  return `${certType} ${c.uint('key tag', 0xffff)} ${algorithm(c)} ${base64Rest('certificate')(c)}`;
};

const PARSERS = new Map<number, RdataParser>([
  [RR_TYPE.A, (c) => canonicalIpv4(c.word('IPv4 address'))],
  [RR_TYPE.AAAA, (c) => canonicalIpv6(c.word('IPv6 address'))],
  [RR_TYPE.NS, nameOnly],
  [RR_TYPE.CNAME, nameOnly],
  [RR_TYPE.PTR, nameOnly],
  [RR_TYPE.DNAME, nameOnly],
  [RR_TYPE.MB, nameOnly],
  [RR_TYPE.MG, nameOnly],
  [RR_TYPE.MR, nameOnly],
  [RR_TYPE.NSAP_PTR, nameOnly],
  [RR_TYPE.MX, numberAndName('preference', 'exchange')],
  [RR_TYPE.AFSDB, numberAndName('subtype', 'hostname')],
  [RR_TYPE.RT, numberAndName('preference', 'intermediate host')],
  [RR_TYPE.KX, numberAndName('preference', 'exchanger')],
  [RR_TYPE.LP, numberAndName('preference', 'locator name')],
  [RR_TYPE.TXT, strings],
  [RR_TYPE.SPF, strings],
  [RR_TYPE.AVC, strings],
  [RR_TYPE.NINFO, strings],
  [RR_TYPE.RESINFO, strings],
  [RR_TYPE.WALLET, strings],
  [RR_TYPE.HINFO, (c) => `${quoted(c, 'CPU')} ${quoted(c, 'OS')}`],
  [RR_TYPE.X25, (c) => x25Address(decodeCharacterString(c.next('PSDN address')))],
  [RR_TYPE.ISDN, isdn],
  [
    RR_TYPE.SOA,
    (c) => {
      const names = `${c.name('primary name server')} ${c.name('mailbox')}`;
      const serial = c.uint('serial', 0xffffffff);
      const times = ['refresh', 'retry', 'expire', 'minimum'].map((what) => parseSeconds(c.word(what), what));
      return `${names} ${serial} ${times.join(' ')}`;
    },
  ],
  [
    RR_TYPE.SRV,
    (c) => `${c.uint('priority', 0xffff)} ${c.uint('weight', 0xffff)} ${c.uint('port', 0xffff)} ${c.name('target')}`,
  ],
  [RR_TYPE.RP, twoNames('mailbox', 'TXT name')],
  [RR_TYPE.MINFO, twoNames('responsible mailbox', 'error mailbox')],
  [RR_TYPE.TALINK, twoNames('previous name', 'next name')],
  [RR_TYPE.PX, (c) => `${c.uint('preference', 0xffff)} ${c.name('MAP822')} ${c.name('MAPX400')}`],
  [
    RR_TYPE.NAPTR,
    (c) => {
      const numbers = `${c.uint('order', 0xffff)} ${c.uint('preference', 0xffff)}`;
      return `${numbers} ${quoted(c, 'flags')} ${quoted(c, 'services')} ${quoted(c, 'regexp')} ${c.name('replacement')}`;
    },
  ],
  [
    RR_TYPE.CAA,
    (c) => {
      const flags = c.uint('flags', 0xff);
      const tag = c.word('tag');
      if (!/^[A-Za-z0-9]{1,15}$/.test(tag))
        throw new PresentationError(`bad CAA tag "${tag}": 1 to 15 letters or digits`);
      return `${flags} ${tag} ${quoteText(decodeText(c.next('value')))}`;
    },
  ],
  [
    RR_TYPE.SSHFP,
    (c) =>
      `${c.uint('algorithm', 0xff)} ${c.uint('fingerprint type', 0xff)} ${toHex(hexBytes(c.joinedRest('fingerprint'), 'fingerprint'))}`,
  ],
  [RR_TYPE.TLSA, tlsa],
  [RR_TYPE.SMIMEA, tlsa],
  [RR_TYPE.SVCB, parseSvcbText],
  [RR_TYPE.HTTPS, parseSvcbText],
  [RR_TYPE.LOC, parseLocText],
  [RR_TYPE.OPENPGPKEY, base64Rest('public key')],
  [RR_TYPE.DHCID, base64Rest('digest')],
  [
    RR_TYPE.URI,
    (c) => {
      const head = `${c.uint('priority', 0xffff)} ${c.uint('weight', 0xffff)}`;
      const target = c.next('target');
      if (!target.startsWith(QUOTE_MARK)) throw new PresentationError('the URI target must be quoted');
      return `${head} ${quoteText(decodeText(target))}`;
    },
  ],
  [RR_TYPE.CERT, cert],
  [RR_TYPE.EUI48, eui(6)],
  [RR_TYPE.EUI64, eui(8)],
  [RR_TYPE.L32, (c) => `${c.uint('preference', 0xffff)} ${canonicalIpv4(c.word('locator'))}`],
  [RR_TYPE.L64, ilnp64],
  [RR_TYPE.NID, ilnp64],
  ...DNSSEC_TEXT,
]);

/** RFC 3597 §5 generic data `\# length hex…`, decoded to the type's own text when the engine has a codec. */
function parseGeneric(c: TokenCursor, type: number): string {
  c.next('\\#');
  const length = c.uint('data length', 0xffff);
  const hex = length === 0 && !c.hasMore() ? '' : c.joinedRest('hex data');
  const bytes = Buffer.from(hexBytes(hex, 'RFC 3597 data'), 'latin1');
  if (bytes.length !== length)
    throw new PresentationError(`RFC 3597 data has ${bytes.length} bytes, the length says ${length}`);
  if (!hasTextCodec(type)) return genericRdata(bytes, 0, bytes.length);
  try {
    return decodeRdata(new WireReader(bytes, 0, false), type, bytes.length);
  } catch (err) {
    if (err instanceof DnsWireError)
      throw new PresentationError(`RFC 3597 data is not valid ${typeName(type)} data: ${err.message}`);
    throw err;
  }
}

/**
 * The data of a registered type the engine has no parser for, kept as written: its tokens
 * joined by one space, quoted ones in quotes, escapes untouched. Indexing needs the owner
 * name only; the data is not checked, so it is not canonical.
 */
function opaqueText(c: TokenCursor): string {
  return c
    .rest()
    .map((token) => (token.startsWith(QUOTE_MARK) ? `${token}"` : token))
    .join(' ');
}

/**
 * Canonical text of the record data of `type` read from the cursor; leftovers are an error.
 * A type of the IANA registry without a parser here keeps its data as written (opaqueText);
 * an unassigned `TYPEnnn` only takes the RFC 3597 form.
 */
export function parseRdata(c: TokenCursor, type: number): string {
  let text: string;
  if (c.peek() === '\\#') {
    text = parseGeneric(c, type);
  } else {
    const parser = PARSERS.get(type);
    if (parser !== undefined) text = parser(c);
    else if (isRegisteredType(type)) text = opaqueText(c);
    else throw new PresentationError(`type ${typeName(type)} is only accepted in the RFC 3597 form (\\# length hex)`);
  }
  c.expectEnd();
  return text;
}
