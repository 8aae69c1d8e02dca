import { isInRange, parseCidr, type CidrRange, type IpAddress } from '../../shared/cidr.ts';

/** An IPv4 address carried inside an IPv6 address, and the mechanism that carries it. */
export interface EmbeddedIpv4 {
  address: IpAddress;
  /** `IPv4-mapped`, `IPv4-compatible`, `NAT64`, `6to4`, `Teredo server` or `Teredo client`. */
  via: string;
}

const range = (text: string): CidrRange => parseCidr(text) as CidrRange;
const MAPPED = range('::ffff:0:0/96');
const COMPATIBLE = range('::/96');
const UNSPECIFIED = range('::/128');
const LOOPBACK = range('::1/128');
const NAT64 = range('64:ff9b::/96');
const SIX_TO_FOUR = range('2002::/16');
const TEREDO = range('2001::/32');

const ipv4 = (value: bigint): IpAddress => ({ family: 4, value: value & 0xffffffffn });

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) stands for: a socket dials it over IPv4. */
export function mappedIpv4(ip: IpAddress): IpAddress | undefined {
  return isInRange(ip, MAPPED) ? ipv4(ip.value) : undefined;
}

/**
 * The IPv4 addresses a packet to this IPv6 address reaches through a translator or a tunnel:
 * - IPv4-compatible ::a.b.c.d (deprecated, RFC 4291 §2.5.5.1): the last 32 bits (not ::, ::1);
 * - NAT64 64:ff9b::/96 (RFC 6052 §2.2): the last 32 bits;
 * - 6to4 2002:AABB:CCDD::/48 (RFC 3056 §2): bits 16–47;
 * - Teredo 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (RFC 4380 §4): the server at bits 32–63 and
 *   the client's public address, the last 32 bits XOR 0xffffffff. A Teredo relay sends to the
 *   client and a Teredo client talks to the server, so both are judged.
 * The local-use NAT64 prefix 64:ff9b:1::/48 is not decoded: its translator may place the IPv4
 * address at any RFC 6052 offset, so it stays denied as a whole unless allowed.
 */
export function embeddedIpv4(ip: IpAddress): EmbeddedIpv4[] {
  if (ip.family !== 6) return [];
  if (isInRange(ip, NAT64)) return [{ address: ipv4(ip.value), via: 'NAT64' }];
  if (isInRange(ip, SIX_TO_FOUR)) return [{ address: ipv4(ip.value >> 80n), via: '6to4' }];
  if (isInRange(ip, TEREDO)) {
    return [
      { address: ipv4(ip.value >> 64n), via: 'Teredo server' },
      { address: ipv4(ip.value ^ 0xffffffffn), via: 'Teredo client' },
    ];
  }
  if (isInRange(ip, COMPATIBLE) && !isInRange(ip, UNSPECIFIED) && !isInRange(ip, LOOPBACK)) {
    return [{ address: ipv4(ip.value), via: 'IPv4-compatible' }];
  }
  return [];
}
