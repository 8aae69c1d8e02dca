import ipaddr from 'ipaddr.js';

/** A parsed CIDR range. */
export interface CidrRange {
  text: string;
  range: [ipaddr.IPv4 | ipaddr.IPv6, number];
}

/** True when the text is an IPv4 or IPv6 CIDR range (or a single address). */
export function isValidCidr(text: string): boolean {
  return parseCidr(text) !== undefined;
}

/** Parses `a.b.c.d/n`, `x::y/n` or a bare address (a /32 or /128 range). */
export function parseCidr(text: string): CidrRange | undefined {
  try {
    if (text.includes('/')) return { text, range: ipaddr.parseCIDR(text) };
    const addr = ipaddr.parse(text);
    return { text, range: [addr, addr.kind() === 'ipv4' ? 32 : 128] };
  } catch {
    return undefined;
  }
}

/** True when the address lies in the range; IPv4-mapped IPv6 addresses count as IPv4. */
export function isInRange(address: string, cidr: CidrRange): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(address);
  } catch {
    return false;
  }
  const [base, bits] = cidr.range;
  if (addr.kind() !== base.kind()) return false;
  return (addr as ipaddr.IPv4).match(base as ipaddr.IPv4, bits);
}
