import { AppError } from '../core/errors/app-error.ts';
import { zoneTransferFailed, type NameServer, type ZoneEngine } from '../core/zones/zone-engine.ts';
import type { NameResolver } from '../core/zones/zone-lookup.types.ts';
import type { DnsRecordInput } from '../core/zones/zone.types.ts';
import { transferZoneBatches, ZoneTransferError } from './dns/axfr.ts';
import type { DnsResolver } from './dns/resolver.ts';
import { parseZoneBatches, scanZoneOrigin, ZoneSyntaxError } from './dns/zone-parser.ts';
import type { EgressGuard } from './net/egress-guard.ts';

/** What the zone engine is built from. */
export interface ZoneEngineDeps {
  guard: EgressGuard;
  resolver: DnsResolver;
  names: NameResolver;
}

/** The engine's zone work behind the core's port, its errors mapped onto the catalogue. */
export function createZoneEngine(deps: ZoneEngineDeps): ZoneEngine {
  return {
    async *parseZone(input: AsyncIterable<Buffer>, origin: string): AsyncIterable<DnsRecordInput[]> {
      try {
        yield* parseZoneBatches(input, { origin });
      } catch (err) {
        if (err instanceof ZoneSyntaxError)
          throw new AppError(2421, `Zone file malformed: line ${err.line}: ${err.reason}`, { cause: err });
        throw err;
      }
    },
    findZoneOrigin: (input: AsyncIterable<Buffer>) => scanZoneOrigin(input),
    async *transferZone(server: NameServer, zone: string, signal: AbortSignal): AsyncIterable<DnsRecordInput[]> {
      try {
        yield* transferZoneBatches({ server, zone, guard: deps.guard, resolver: deps.resolver, signal });
      } catch (err) {
        if (err instanceof ZoneTransferError) {
          throw zoneTransferFailed(err.reason, zone, server, err.message, err);
        }
        if (signal.aborted)
          throw zoneTransferFailed('timeout', zone, server, 'the transfer took longer than its time limit', err);
        throw err;
      }
    },
    resolver: deps.names,
  };
}
