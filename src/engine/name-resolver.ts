import type { NameResolver } from '../core/zones/zone-lookup.types.ts';
import type { DnsRecordInput } from '../core/zones/zone.types.ts';
import type { BulkResolver } from './dns/bulk-resolver.ts';

/** Record types a zone lookup asks for each name. */
export const lookupTypes = ['A', 'AAAA'];

/**
 * Resolves the names of a zone lookup chunk through the bulk resolver (UDP with TCP fallback,
 * retries, bounded concurrency and rate). A name maps to the records of its answer (CNAME
 * chains included, each under its own owner), or to null when it has none; never throws for
 * one name.
 */
export function createNameResolver(bulk: BulkResolver): NameResolver {
  return {
    async resolveNames(names: string[], signal: AbortSignal): Promise<Map<string, DnsRecordInput[] | null>> {
      const out = new Map<string, DnsRecordInput[] | null>();
      await bulk.resolveAll(
        names,
        (result) => {
          out.set(
            result.name,
            result.records.length === 0
              ? null
              : result.records.map((r) => ({ name: r.name, ttl: r.ttl, type: r.type, data: r.data })),
          );
        },
        { types: lookupTypes, signal },
      );
      signal.throwIfAborted();
      return out;
    },
  };
}
