/**
 * What a discovery run remembers for the egress guard: its decisions by address (hosts share
 * addresses; the guard's rules do not change mid-run), and the resolver it resolves hosts with,
 * which answers from the run's own lookups before asking DNS again.
 */
import type { DnsResolver } from '../dns/resolver.ts';
import type { EgressGuard } from '../net/egress-guard.ts';

/** Addresses remembered at most; past it the memory starts over. */
const MAX_REMEMBERED = 65_536;

/** The egress guard's decisions by address in one run (bounded). */
export class GuardDecisions {
  private readonly allowed = new Map<string, boolean>();

  constructor(private readonly guard: EgressGuard) {}

  /** The guard's decision for an address, remembered for the run. */
  isAllowed(address: string): boolean {
    let isAllowed = this.allowed.get(address);
    if (isAllowed === undefined) {
      isAllowed = this.guard.check(address).isAllowed;
      if (this.allowed.size >= MAX_REMEMBERED) this.allowed.clear();
      this.allowed.set(address, isAllowed);
    }
    return isAllowed;
  }
}

/**
 * A resolver that answers a host's addresses from `known` (the run's lookups) when it has some,
 * and asks `resolver` otherwise; TXT always goes to `resolver`.
 */
export function answeringFromRun(resolver: DnsResolver, known: (name: string) => string[] | undefined): DnsResolver {
  return {
    resolveTxt: (name, signal) => resolver.resolveTxt(name, signal),
    resolveAddresses: (name, signal) => {
      const addresses = known(name);
      return addresses !== undefined && addresses.length > 0
        ? Promise.resolve(addresses)
        : resolver.resolveAddresses(name, signal);
    },
  };
}
