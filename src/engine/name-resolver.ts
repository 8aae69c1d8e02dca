import { isIP } from 'node:net';
import type { NameResolver } from '../core/zones/zone-lookup.types.ts';
import type { DnsRecordInput } from '../core/zones/zone.types.ts';
import type { DnsResolver } from './dns/resolver.ts';

/** Lookups in flight at once per resolveNames call. */
export const lookupConcurrency = 64;

/**
 * Resolves names for zone lookup jobs through a DnsResolver (A and AAAA, UDP with TCP fallback
 * and retries), at most `concurrency` at a time. A name maps to its address records, or to
 * null when it has none or the lookup failed; it never throws for one name.
 */
export function createNameResolver(resolver: DnsResolver, concurrency = lookupConcurrency): NameResolver {
  return {
    async resolveNames(names: string[], signal: AbortSignal): Promise<Map<string, DnsRecordInput[] | null>> {
      const out = new Map<string, DnsRecordInput[] | null>();
      let next = 0;
      const worker = async () => {
        while (next < names.length && !signal.aborted) {
          const name = names[next++]!;
          try {
            const addresses = await resolver.resolveAddresses(name, signal);
            out.set(name, addresses.length === 0 ? null : addresses.map((a) => ({ name, ttl: 0, type: isIP(a) === 6 ? 'AAAA' : 'A', data: a })));
          } catch {
            out.set(name, null);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, worker));
      signal.throwIfAborted();
      return out;
    },
  };
}
