import { decodeEscape, PresentationError } from './dns-name.ts';

/**
 * Presentation-form values inside record data: character strings, numbers, TTLs, addresses,
 * hex and base64. Byte strings are latin1 JS strings (one char per byte), so nothing is lost
 * between a zone file, the wire and the canonical text.
 */

/** A token that came from a quoted string carries this first character; its text follows. */
export const QUOTE_MARK = '"';

/** Decodes a character-string token (quoted or not) to its bytes, escapes applied. */
export function decodeText(token: string): string {
  const text = token.charCodeAt(0) === 0x22 ? token.slice(1) : token;
  if (!text.includes('\\')) return text;
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    if (text.charCodeAt(i) !== 0x5c) {
      out += text[i];
      continue;
    }
    const { char, length } = decodeEscape(text, i);
    out += char;
    i += length - 1;
  }
  return out;
}

/** Decodes a character-string token and checks the 255-byte limit of RFC 1035 §3.3. */
export function decodeCharacterString(token: string): string {
  const bytes = decodeText(token);
  if (bytes.length > 255) throw new PresentationError(`character string longer than 255 bytes (${bytes.length})`);
  return bytes;
}

/** Canonical quoted form of bytes: `"` and `\` escaped, bytes outside 0x20-0x7e as `\DDD` (BIND's form). */
export function quoteText(bytes: string): string {
  let isPlain = true;
  for (let i = 0; i < bytes.length; i += 1) {
    const code = bytes.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) {
      isPlain = false;
      break;
    }
  }
  if (isPlain) return `"${bytes}"`;
  let out = '"';
  for (let i = 0; i < bytes.length; i += 1) {
    const code = bytes.charCodeAt(i);
    if (code === 0x22 || code === 0x5c) out += `\\${bytes[i]}`;
    else if (code < 0x20 || code > 0x7e) out += `\\${String(code).padStart(3, '0')}`;
    else out += bytes[i];
  }
  return `${out}"`;
}

/** An unsigned decimal integer no greater than max. */
export function parseUint(text: string, max: number, what: string): number {
  if (!/^\d{1,10}$/.test(text)) throw new PresentationError(`${what} must be a number, got "${text}"`);
  const value = Number(text);
  if (value > max) throw new PresentationError(`${what} ${text} is out of range (0-${max})`);
  return value;
}

const TTL_UNITS: Record<string, number> = { w: 604800, d: 86400, h: 3600, m: 60, s: 1 };
const TTL_TEXT = /^(?:\d+|(?:\d+[wdhms])+)$/i;
const MAX_TTL = 0x7fffffff;

/** True when the text reads as a TTL (`3600`, `1h30m`, `2W`), as opposed to a class or type. */
export function isTtlText(text: string): boolean {
  const first = text.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && TTL_TEXT.test(text);
}

/** Seconds written in decimal or with units (`1w2d3h4m5s`, case-insensitive, summed as BIND does), at most 2^32-1. */
export function parseSeconds(text: string, what: string): number {
  if (!isTtlText(text)) throw new PresentationError(`bad ${what} "${text}": use seconds or units such as 1h30m`);
  let total = 0;
  if (/^\d+$/.test(text)) total = Number(text);
  else
    for (const [, digits, unit] of text.matchAll(/(\d+)([wdhms])/gi))
      total += Number(digits) * (TTL_UNITS[(unit ?? 's').toLowerCase()] ?? 1);
  if (total > 0xffffffff) throw new PresentationError(`${what} "${text}" is out of range (at most 4294967295)`);
  return total;
}

/** Seconds of a TTL; values above 2^31-1 read as 0 (RFC 2181 §8), as BIND reads them. */
export function parseTtl(text: string): number {
  const total = parseSeconds(text, 'TTL');
  return total > MAX_TTL ? 0 : total;
}

/** Bytes (latin1) of hex text, case-insensitive; an odd length or another character is an error. */
export function hexBytes(text: string, what: string): string {
  if (text.length % 2 !== 0 || !/^[0-9a-f]*$/i.test(text)) throw new PresentationError(`bad hex in ${what}`);
  return Buffer.from(text, 'hex').toString('latin1');
}

/** Bytes (latin1) of base64 text; padding is required and nothing else is allowed, as BIND reads it. */
export function base64Bytes(text: string, what: string): string {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text))
    throw new PresentationError(`bad base64 in ${what}`);
  return Buffer.from(text, 'base64').toString('latin1');
}

/** Upper-case hex of bytes (BIND prints digests and fingerprints this way). */
export function toHex(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('hex').toUpperCase();
}

/** RFC 3597 §5 generic text of record data: `\\# length HEX`. */
export function genericRdata(bytes: Buffer, start: number, end: number): string {
  return end === start ? '\\# 0' : `\\# ${end - start} ${bytes.toString('hex', start, end).toUpperCase()}`;
}

/** Base64 of bytes. */
export function toBase64(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('base64');
}

const BASE32HEX = '0123456789ABCDEFGHIJKLMNOPQRSTUV';

/**
 * Bytes (latin1) of base32hex text without padding (RFC 4648 §7, as NSEC3 writes hashes):
 * case-insensitive; a length no byte count gives, or unused trailing bits that are not zero,
 * is an error, as BIND reads it.
 */
export function base32HexBytes(text: string, what: string): string {
  if (![0, 2, 4, 5, 7].includes(text.length % 8)) throw new PresentationError(`bad base32hex in ${what}`);
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i += 1) {
    const value = BASE32HEX.indexOf(text[i]!.toUpperCase());
    if (value === -1) throw new PresentationError(`bad base32hex in ${what}`);
    buffer = ((buffer << 5) | value) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((buffer >> bits) & 0xff);
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0)
    throw new PresentationError(`bad base32hex in ${what}: trailing bits are not zero`);
  return out;
}

/** Upper-case base32hex of bytes without padding (BIND prints NSEC3 hashes this way). */
export function toBase32Hex(bytes: string): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    buffer = ((buffer << 8) | bytes.charCodeAt(i)) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32HEX[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32HEX[(buffer << (5 - bits)) & 31];
  return out;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A DNSSEC time (RFC 4034 §3.2: RRSIG expiration and inception) as its 32-bit value: either
 * `YYYYMMDDHHmmSS` in UTC, taken modulo 2^32 as serial-number arithmetic wants it (BIND reads
 * years 0-9999 and a leap second 60), or at most 10 decimal digits of seconds.
 */
export function parseDnssecTime(text: string, what: string): number {
  if (/^\d{1,10}$/.test(text)) {
    const value = Number(text);
    if (value > 0xffffffff) throw new PresentationError(`${what} ${text} is out of range (at most 4294967295)`);
    return value;
  }
  const parts = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (parts === null) throw new PresentationError(`bad ${what} "${text}": use YYYYMMDDHHmmSS or seconds`);
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const isLeap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && isLeap ? 29 : DAYS_IN_MONTH[month - 1];
  if (days === undefined || day < 1 || day > days || hour > 23 || minute > 59 || second > 60)
    throw new PresentationError(`${what} "${text}" is not a valid date and time`);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second);
  const seconds = Math.floor(date.getTime() / 1000);
  return ((seconds % 2 ** 32) + 2 ** 32) % 2 ** 32;
}

/** `YYYYMMDDHHmmSS` (UTC) of a 32-bit DNSSEC time read as seconds since 1970 (so up to 2106). */
export function formatDnssecTime(value: number): string {
  return new Date(value * 1000).toISOString().replace(/[-T:]/g, '').slice(0, 14);
}
