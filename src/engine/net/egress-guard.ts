import { isIP, type LookupFunction } from 'node:net';
import {
  formatIpv4,
  isInRange,
  parseCidr,
  parseIp,
  rangeOf,
  type CidrRange,
  type IpAddress,
} from '../../shared/cidr.ts';
import { embeddedIpv4, mappedIpv4 } from './embedded-ipv4.ts';

/**
 * What the guard asks of name resolution: the A and AAAA addresses of a name. engine/dns's
 * DnsResolver is one; declared here so that the guard, which dns dials through, does not import dns.
 */
export interface AddressResolver {
  resolveAddresses(name: string, signal: AbortSignal): Promise<string[]>;
}
import { specialRangeOf } from './special-purpose-ranges.ts';

/** The outcome of checking one address. */
export interface EgressDecision {
  isAllowed: boolean;
  /** Why the address is denied, e.g. `127.0.0.1 is in loopback range 127.0.0.0/8`. */
  reason?: string;
}

const ALLOWED: EgressDecision = { isAllowed: true };
const MAPPED_PREFIX = 96;

/**
 * The one gate every outbound engine connection passes. Denied by default: every range of the
 * special-purpose table (special-purpose-ranges.ts) that is not globally reachable: private,
 * loopback, link-local, documentation, benchmarking, multicast, reserved and the rest, the most
 * specific entry deciding. An `allow` CIDR (PERIMETER_EGRESS_ALLOW) opens the addresses inside
 * it. An IPv6 address that carries an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4,
 * Teredo) is also judged by that IPv4 address, which is where the packet ends up.
 */
export class EgressGuard {
  private readonly allow: CidrRange[];

  /** Throws on an invalid CIDR, so a typo in the configuration fails at boot, not per request. */
  constructor(allow: string[]) {
    this.allow = allow.map((text) => {
      const cidr = parseCidr(text.trim());
      if (cidr === undefined) throw new Error(`egress guard: invalid CIDR in allow list: ${JSON.stringify(text)}`);
      return asIpv4IfMapped(cidr);
    });
  }

  /** Decides whether a connection to this IP address may be opened. */
  check(address: string): EgressDecision {
    // Only literals node's isIP() accepts: forms such as `127.1` are read differently by other
    // layers, and a non-address must never be waved through.
    const ip = parseIp(address);
    if (ip === undefined) return { isAllowed: false, reason: `${address} is not an IP address` };
    // A socket given ::ffff:a.b.c.d talks IPv4 to a.b.c.d: judge that address alone.
    const mapped = mappedIpv4(ip);
    if (mapped !== undefined) return this.checkEmbedded(address, mapped, 'IPv4-mapped');
    if (!this.isOpened(ip)) {
      const special = specialRangeOf(ip);
      if (special !== undefined && special.globallyReachable !== true) {
        return { isAllowed: false, reason: `${address} is in ${special.label} range ${special.cidr.text}` };
      }
    }
    // Even inside an allowed IPv6 range: opening 2002::/16 must not open 2002:7f00:1:: (127.0.0.1).
    for (const inner of embeddedIpv4(ip)) {
      const decision = this.checkEmbedded(address, inner.address, inner.via);
      if (!decision.isAllowed) return decision;
    }
    return ALLOWED;
  }

  private checkEmbedded(address: string, inner: IpAddress, via: string): EgressDecision {
    if (this.isOpened(inner)) return ALLOWED;
    const special = specialRangeOf(inner);
    if (special === undefined || special.globallyReachable === true) return ALLOWED;
    return {
      isAllowed: false,
      reason: `${address} embeds ${formatIpv4(inner.value)} (${via}), which is in ${special.label} range ${special.cidr.text}`,
    };
  }

  private isOpened(ip: IpAddress): boolean {
    return this.allow.some((cidr) => isInRange(ip, cidr));
  }
}

/** An allow entry written as IPv4-mapped IPv6 (::ffff:10.0.0.0/104) is the IPv4 range it spells. */
function asIpv4IfMapped(cidr: CidrRange): CidrRange {
  if (cidr.family !== 6 || cidr.prefix < MAPPED_PREFIX) return cidr;
  const mapped = mappedIpv4({ family: 6, value: cidr.network << BigInt(128 - cidr.prefix) });
  return mapped === undefined ? cidr : rangeOf(cidr.text, mapped, cidr.prefix - MAPPED_PREFIX);
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
export async function resolveGuarded(
  host: string,
  guard: EgressGuard,
  resolver: AddressResolver,
  signal: AbortSignal,
): Promise<string[]> {
  const bare = unbracketHost(host);
  const addresses = isIP(bare) !== 0 ? [bare] : await resolver.resolveAddresses(bare, signal);
  for (const address of addresses) {
    const decision = guard.check(address);
    if (!decision.isAllowed) throw new EgressDeniedError(bare, address, decision.reason ?? `${address} is denied`);
  }
  return addresses;
}

/**
 * The `lookup` of every socket that dials an address resolveGuarded() returned. Node calls it
 * only when the host is not an IP literal, and then it fails: a name can never be resolved a
 * second time, behind the guard, on the way to the socket.
 */
export const refuseLookup: LookupFunction = (hostname, _options, callback) => {
  const err = Object.assign(
    new Error(
      `egress guard: ${hostname} is not a checked address; resolve it with resolveGuarded() and dial the address`,
    ),
    { code: 'EGRESS_UNCHECKED' },
  );
  callback(err, '', 0);
};
