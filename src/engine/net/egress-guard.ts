import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { DnsResolver } from '../dns/resolver.ts';
import { isInRange, parseCidr, type CidrRange } from './cidr.ts';

/** A range denied by default, with the word used in messages. */
interface DeniedRange {
  label: string;
  cidr: CidrRange;
}

// Order matters: the first match names the range in the message, so the specific metadata
// addresses come before the link-local and private ranges that contain them.
const DENIED: ReadonlyArray<[label: string, cidrs: string[]]> = [
  ['metadata', ['169.254.169.254/32', 'fd00:ec2::254/128']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['CGNAT', ['100.64.0.0/10']],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
  ['reserved', ['240.0.0.0/4']],
];

const DENIED_RANGES: DeniedRange[] = DENIED.flatMap(([label, cidrs]) =>
  cidrs.map((text) => ({ label, cidr: parseCidr(text) as CidrRange })),
);

// IPv6 prefixes that carry an IPv4 address a gateway may forward to: the well-known NAT64
// prefix (last 32 bits) and 6to4 (bits 16-47). Without this, 64:ff9b::7f00:1 would reach
// 127.0.0.1 through a NAT64 gateway although 127.0.0.0/8 is denied.
const NAT64 = parseCidr('64:ff9b::/96') as CidrRange;
const SIX_TO_FOUR = parseCidr('2002::/16') as CidrRange;

/** The IPv4 address embedded in a NAT64 or 6to4 IPv6 address, if any. */
function embeddedIpv4(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  const parts = ipaddr.IPv6.parse(address).parts;
  const pair = isInRange(address, NAT64) ? [parts[6], parts[7]] : isInRange(address, SIX_TO_FOUR) ? [parts[1], parts[2]] : undefined;
  if (pair === undefined) return undefined;
  const [hi = 0, lo = 0] = pair;
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
}

/** The outcome of checking one address. */
export interface EgressDecision {
  isAllowed: boolean;
  /** Why the address is denied, e.g. `127.0.0.1 is in loopback range 127.0.0.0/8`. */
  reason?: string;
}

/**
 * The one gate every outbound engine connection passes: loopback, private, link-local,
 * metadata, unspecified, CGNAT, multicast and reserved ranges are denied unless an `allow`
 * CIDR (PERIMETER_EGRESS_ALLOW) contains the address. IPv4-mapped IPv6 counts as IPv4.
 */
export class EgressGuard {
  private readonly allow: CidrRange[];

  /** Throws on an invalid CIDR, so a typo in the configuration fails at boot, not per request. */
  constructor(allow: string[]) {
    this.allow = allow.map((text) => {
      const cidr = parseCidr(text.trim());
      if (cidr === undefined) throw new Error(`egress guard: invalid CIDR in allow list: ${JSON.stringify(text)}`);
      return cidr;
    });
  }

  /** Decides whether a connection to this IP address may be opened. */
  check(address: string): EgressDecision {
    // Only canonical literals: ipaddr.js also accepts forms such as `127.1` that other
    // layers would read differently, and a non-address must never be waved through.
    if (isIP(address) === 0) return { isAllowed: false, reason: `${address} is not an IP address` };
    if (this.isOpened(address)) return { isAllowed: true };
    const denied = deniedRangeOf(address);
    if (denied !== undefined) return { isAllowed: false, reason: `${address} is in ${denied.label} range ${denied.cidr.text}` };
    const inner = embeddedIpv4(address);
    if (inner !== undefined && !this.isOpened(inner)) {
      const innerDenied = deniedRangeOf(inner);
      if (innerDenied !== undefined) {
        return { isAllowed: false, reason: `${address} embeds ${inner}, which is in ${innerDenied.label} range ${innerDenied.cidr.text}` };
      }
    }
    return { isAllowed: true };
  }

  private isOpened(address: string): boolean {
    return this.allow.some((cidr) => isInRange(address, cidr));
  }
}

function deniedRangeOf(address: string): DeniedRange | undefined {
  return DENIED_RANGES.find((range) => isInRange(address, range.cidr));
}

/** Raised when the guard refuses a destination; the message names the address and the range. */
export class EgressDeniedError extends Error {
  override readonly name = 'EgressDeniedError';

  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`denied by egress guard: ${reason}`);
  }
}

/** Strips the brackets of an IPv6 literal written as in a URL (`[::1]`). */
export function unbracketHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Resolves a host name (or takes a literal IP) and checks every address. Rule: when ANY
 * address is denied the whole host is refused, because a name that mixes public and internal
 * addresses is the shape of a rebinding attempt, and the connection must not depend on which
 * address happens to be tried first. Returns the addresses to connect to (all checked), or []
 * when the name has no address; connect to these, never resolve the name again.
 */
export async function resolveGuarded(host: string, guard: EgressGuard, resolver: DnsResolver, signal: AbortSignal): Promise<string[]> {
  const bare = unbracketHost(host);
  const addresses = isIP(bare) !== 0 ? [bare] : await resolver.resolveAddresses(bare, signal);
  for (const address of addresses) {
    const decision = guard.check(address);
    if (!decision.isAllowed) throw new EgressDeniedError(bare, address, decision.reason ?? `${address} is denied`);
  }
  return addresses;
}
