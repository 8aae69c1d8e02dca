import { isIP } from 'node:net';

/** An IP address as a number: 32 bits for IPv4, 128 bits for IPv6 (a zone index is dropped). */
export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

/** A parsed CIDR range; `text` is how it was written. */
export interface CidrRange {
  text: string;
  family: 4 | 6;
  prefix: number;
  /** The address bits above the prefix (`value >> (width - prefix)`). */
  network: bigint;
}

const WIDTH = { 4: 32, 6: 128 } as const;

/**
 * Parses an IP literal the way the socket layer reads it (inet_pton): only what node's isIP()
 * accepts, so `127.1` or `0x7f.0.0.1` are not addresses. ipaddr.js is not used here because it
 * reads the IPv4-compatible `::8.8.8.8` as the IPv4-mapped `::ffff:8.8.8.8`, while a socket
 * dials the IPv6 address ::808:808.
 */
export function parseIp(text: string): IpAddress | undefined {
  const family = isIP(text);
  if (family === 4) return { family, value: BigInt(ipv4Number(text)) };
  const value = family === 6 ? ipv6Number(text) : undefined;
  return value === undefined ? undefined : { family: 6, value };
}

function ipv4Number(text: string): number {
  return text.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

/** The 128 bits of an IPv6 literal already validated by isIP(); undefined if it is not eight groups after all. */
function ipv6Number(text: string): bigint | undefined {
  const zone = text.indexOf('%');
  let body = zone === -1 ? text : text.slice(0, zone);
  const lastColon = body.lastIndexOf(':');
  if (body.includes('.', lastColon)) {
    // A trailing dotted quad fills the last two groups.
    const v4 = ipv4Number(body.slice(lastColon + 1));
    body = `${body.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [left = '', right] = body.split('::');
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const missing = 8 - head.length - tail.length;
  if (right === undefined ? missing !== 0 : missing < 1) return undefined;
  const groups = right === undefined ? head : [...head, ...Array<string>(missing).fill('0'), ...tail];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** The dotted-quad form of an IPv4 address. */
export function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** True when the text is an IPv4 or IPv6 CIDR range (or a single address). */
export function isValidCidr(text: string): boolean {
  return parseCidr(text) !== undefined;
}

/** Parses `a.b.c.d/n`, `x::y/n` or a bare address (a /32 or /128 range); bits below the prefix are ignored. */
export function parseCidr(text: string): CidrRange | undefined {
  const slash = text.indexOf('/');
  const ip = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (ip === undefined) return undefined;
  const width = WIDTH[ip.family];
  const prefixText = slash === -1 ? String(width) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > width) return undefined;
  return rangeOf(text, ip, Number(prefixText));
}

/** The range of the `prefix` leading bits of an address. */
export function rangeOf(text: string, ip: IpAddress, prefix: number): CidrRange {
  return { text, family: ip.family, prefix, network: ip.value >> BigInt(WIDTH[ip.family] - prefix) };
}

/** True when the address lies in the range (same family only: an IPv4-mapped address is IPv6 here). */
export function isInRange(ip: IpAddress, range: CidrRange): boolean {
  return ip.family === range.family && ip.value >> BigInt(WIDTH[ip.family] - range.prefix) === range.network;
}
