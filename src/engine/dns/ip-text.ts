import { PresentationError } from './dns-name.ts';

/**
 * IP addresses in record data. Parsed by hand, one pass over the characters: a zone of a
 * hundred thousand hosts spends a noticeable share of its parse time here otherwise.
 */

/** True for a dotted quad of decimal octets without leading zeros (as inet_pton reads it). */
function isIpv4(text: string, start = 0): boolean {
  let parts = 0;
  let value = 0;
  let digits = 0;
  for (let i = start; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0x30 && code <= 0x39) {
      if (digits > 0 && value === 0) return false;
      value = value * 10 + (code - 0x30);
      digits += 1;
      if (value > 255) return false;
    } else if (code === 0x2e) {
      if (digits === 0) return false;
      parts += 1;
      value = 0;
      digits = 0;
    } else {
      return false;
    }
  }
  return parts === 3 && digits > 0;
}

/** Canonical text of an IPv4 address: the same dotted quad, validated. */
export function canonicalIpv4(text: string): string {
  if (!isIpv4(text)) throw new PresentationError(`bad IPv4 address "${text}"`);
  return text;
}

/** The four bytes of a dotted-quad IPv4 address. */
export function ipv4Bytes(text: string): number[] {
  return canonicalIpv4(text).split('.').map(Number);
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  return -1;
}

/** The eight 16-bit groups of an IPv6 address in any RFC 4291 §2.2 form, or undefined. */
function ipv6Groups(text: string): number[] | undefined {
  const groups: number[] = [];
  let gap = -1;
  let i = 0;
  const end = text.length;
  if (text.charCodeAt(0) === 0x3a) {
    if (text.charCodeAt(1) !== 0x3a) return undefined;
    gap = 0;
    i = 2;
  }
  while (i < end) {
    let value = 0;
    let j = i;
    while (j < end && j - i < 5) {
      const digit = hexValue(text.charCodeAt(j));
      if (digit < 0) break;
      value = value * 16 + digit;
      j += 1;
    }
    if (j < end && text.charCodeAt(j) === 0x2e) {
      // An IPv4 tail takes the last two groups.
      if (groups.length > 6 || !isIpv4(text, i)) return undefined;
      const [a = 0, b = 0, c = 0, d = 0] = text.slice(i).split('.').map(Number);
      groups.push((a << 8) | b, (c << 8) | d);
      break;
    }
    if (j === i || j - i > 4) return undefined;
    groups.push(value);
    if (j === end) break;
    if (text.charCodeAt(j) !== 0x3a) return undefined;
    if (text.charCodeAt(j + 1) === 0x3a) {
      if (gap !== -1) return undefined;
      gap = groups.length;
      i = j + 2;
    } else {
      i = j + 1;
      if (i === end) return undefined;
    }
  }
  if (gap === -1) return groups.length === 8 ? groups : undefined;
  if (groups.length > 7) return undefined;
  const zeros = new Array<number>(8 - groups.length).fill(0);
  return [...groups.slice(0, gap), ...zeros, ...groups.slice(gap)];
}

/** RFC 5952 text of eight groups: lower-case, no leading zeros, the longest run of 2+ zero groups as `::`. */
function formatGroups(groups: ArrayLike<number>): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  let out = '';
  for (let i = 0; i < 8; i += 1) {
    if (i === bestStart) {
      out += '::';
      i += bestLength - 1;
      continue;
    }
    if (out.length > 0 && !out.endsWith(':')) out += ':';
    out += (groups[i] as number).toString(16);
  }
  return out;
}

/** The 16 bytes of an IPv6 address. */
export function ipv6Bytes(text: string): number[] {
  const groups = ipv6Groups(text);
  if (groups === undefined) throw new PresentationError(`bad IPv6 address "${text}"`);
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}

/** Canonical (RFC 5952) text of an IPv6 address. */
export function canonicalIpv6(text: string): string {
  const groups = ipv6Groups(text);
  if (groups === undefined) throw new PresentationError(`bad IPv6 address "${text}"`);
  return formatGroups(groups);
}

/** RFC 5952 text of the 16 address bytes at `offset`. */
export function formatIpv6(bytes: Uint8Array | number[], offset = 0): string {
  const groups: number[] = [];
  for (let i = 0; i < 8; i += 1) groups.push(((bytes[offset + 2 * i] ?? 0) << 8) | (bytes[offset + 2 * i + 1] ?? 0));
  return formatGroups(groups);
}
