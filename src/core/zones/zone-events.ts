import { toWireTime } from '../shared/time.ts';
import type { LookupJob, ZoneLogEntry } from './zone-lookup.types.ts';

/**
 * `zone_lookup.finished` of the team event log (core/events: the catalogue lists its fields),
 * written in the transaction that marks the lookup done. A lookup adds no asset rows (the names it
 * resolves under the team's root assets become discovered names, listed as their subdomains).
 */
export function zoneLookupFinishedEvent(
  job: Pick<LookupJob, 'teamId' | 'uuid' | 'total' | 'succeeded'>,
  at: Date,
): ZoneLogEntry {
  return {
    teamId: job.teamId,
    kind: 'zone_lookup.finished',
    occurredAt: at,
    data: {
      lookup_token: job.uuid,
      names: job.total,
      found: job.succeeded,
      finished_at: toWireTime(at),
    },
  };
}
