import { failImport, runImport } from '../core/imports/import.service.ts';
import type { ImportWriters } from '../core/imports/import.types.ts';
import type { FindingSink } from '../core/scans/scan.types.ts';
import type { Repositories, Store } from '../core/store.ts';
import { PortInventoryService } from '../core/surface/port-inventory.service.ts';
import type { JobHandler, JobQueue } from './job-queue.ts';

/** Kind of the import job. */
export const importKind = 'import';

interface Payload {
  importUuid: string;
}

/** Enqueues the durable job of an import; one per import (singleton by its UUID). */
export function enqueueImport(jobs: JobQueue, importUuid: string): Promise<string> {
  return jobs.enqueue(importKind, { importUuid }, { singletonKey: importUuid });
}

/**
 * The store as the services that write an import see it: the import's one transaction, inside
 * which their own transactions are steps (so the whole import commits or nothing does).
 */
function within(tx: Repositories): Store {
  return { ...tx, transaction: (work) => work(tx), isReady: () => Promise.resolve(true) };
}

/** The ingestion and the port inventory, writing inside the import's transaction. */
export function importWriters(findings: FindingSink): ImportWriters<Repositories> {
  return {
    async recordFindings(tx, report, scanId, list, afterBatch) {
      const recording = findings.begin(within(tx), report, scanId, (t, written) =>
        afterBatch(
          t,
          written.map((w) => w.vulnerabilityId),
        ),
      );
      for (const finding of list) await recording.add(finding);
      const totals = await recording.finish(false);
      return { created: totals.created, updated: totals.updated };
    },
    async recordPorts(tx, input) {
      await new PortInventoryService(within(tx)).recordRun(input);
    },
  };
}

/**
 * Parses an uploaded file and writes what it holds (runImport): all of it in one transaction, so
 * a re-run after a crash redoes it and a finished import is left as it is. After the last retry
 * the import reads `failed`.
 */
export function importHandler(store: Store, findings: FindingSink): JobHandler<Payload> {
  const retryLimit = 3;
  const writers = importWriters(findings);
  return {
    kind: importKind,
    retryLimit,
    retryDelayMs: 5000,
    parse(payload) {
      const uuid = (payload as Partial<Payload> | null)?.importUuid;
      if (typeof uuid !== 'string') throw new Error('import payload needs importUuid');
      return { importUuid: uuid };
    },
    async handle(payload, ctx) {
      try {
        const job = await runImport(store, writers, payload.importUuid);
        ctx.log.info({ import: payload.importUuid, status: job?.status, counts: job?.counts }, 'import done');
      } catch (err) {
        if (!ctx.signal.aborted && ctx.attempt > retryLimit)
          await failImport(store, payload.importUuid, (err as Error).message);
        throw err;
      }
    },
  };
}

/** Re-enqueues imports left unfinished (a crash between upload and enqueue); singleton keys prevent twins. */
export async function recoverImports(store: Store, jobs: JobQueue): Promise<number> {
  const unfinished = await store.imports.unfinished();
  for (const job of unfinished) await enqueueImport(jobs, job.uuid);
  return unfinished.length;
}
