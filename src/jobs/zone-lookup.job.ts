import { failLookupJob, runLookupJob } from '../core/zones/zone-lookup.service.ts';
import type { Store } from '../core/store.ts';
import type { NameResolver } from '../core/zones/zone-lookup.types.ts';
import type { JobHandler, JobQueue } from './job-queue.ts';

/** Kind of the zone lookup job. */
export const zoneLookupKind = 'zone-lookup';

interface Payload {
  lookupJobUuid: string;
}

/** Enqueues the durable job of a lookup; one per lookup (singleton by its UUID). */
export function enqueueZoneLookup(jobs: JobQueue, lookupJobUuid: string): Promise<string> {
  return jobs.enqueue(zoneLookupKind, { lookupJobUuid }, { singletonKey: lookupJobUuid });
}

/**
 * Resolves the names of an uploaded list, resuming from the lookup's checkpoint: the work is in
 * runLookupJob, which counts every name exactly once however often the job is run. After the
 * last retry the lookup reads `failed`.
 */
export function zoneLookupHandler(store: Store, resolver: NameResolver): JobHandler<Payload> {
  const retryLimit = 5;
  return {
    kind: zoneLookupKind,
    retryLimit,
    retryDelayMs: 5000,
    parse(payload) {
      const uuid = (payload as Partial<Payload> | null)?.lookupJobUuid;
      if (typeof uuid !== 'string') throw new Error('zone-lookup payload needs lookupJobUuid');
      return { lookupJobUuid: uuid };
    },
    async handle(payload, ctx) {
      try {
        const job = await runLookupJob(store, resolver, payload.lookupJobUuid, ctx.signal);
        ctx.log.info(
          { lookup: payload.lookupJobUuid, total: job?.total, succeeded: job?.succeeded, failed: job?.failed },
          'zone lookup done',
        );
      } catch (err) {
        if (!ctx.signal.aborted && ctx.attempt > retryLimit)
          await failLookupJob(store, payload.lookupJobUuid, (err as Error).message);
        throw err;
      }
    },
  };
}

/** Re-enqueues lookups left unfinished (a crash between upload and enqueue); singleton keys prevent twins. */
export async function recoverZoneLookups(store: Store, jobs: JobQueue): Promise<number> {
  const unfinished = await store.zoneLookups.unfinished();
  for (const job of unfinished) await enqueueZoneLookup(jobs, job.uuid);
  return unfinished.length;
}
