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
  else for (const [, digits, unit] of text.matchAll(/(\d+)([wdhms])/gi)) total += Number(digits) * (TTL_UNITS[(unit ?? 's').toLowerCase()] ?? 1);
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
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new PresentationError(`bad base64 in ${what}`);
  return Buffer.from(text, 'base64').toString('latin1');
}

/** Upper-case hex of bytes (BIND prints digests and fingerprints this way). */
export function toHex(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('hex').toUpperCase();
}

/** Base64 of bytes. */
export function toBase64(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('base64');
}
