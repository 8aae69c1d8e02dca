import { hostname } from 'node:os';
import { failScan, runScan, ScanInterruptedError, type ScanRunnerDeps } from '../core/scans/scan-runner.service.ts';
import type { ScanQueue } from '../core/scans/scan.service.ts';
import type { JobHandler, JobQueue } from './job-queue.ts';

/** Kind of the scan job. */
export const scanKind = 'scan';

interface Payload {
  scanId: number;
}

/** This process as a scan's runner: host and process id. */
export const runnerName = `${hostname()}:${process.pid}`;

/** The core's scan queue over the job queue: one job per scan (singleton by the scan's id). */
export function scanQueueOf(jobs: JobQueue): ScanQueue {
  return {
    enqueueScan: (scan) => jobs.enqueue(scanKind, { scanId: scan.id }, { singletonKey: `scan-${scan.id}` }),
    isPending: (jobId) => jobs.isPending(jobId),
  };
}

/**
 * Runs a scan (core/scans/scan-runner). A run whose worker stops or dies is run again and
 * resumes the scan; after the last retry the scan ends `unable_to_complete` with the error.
 * `concurrency` bounds the scans one process runs at once.
 */
export function scanHandler(deps: ScanRunnerDeps, concurrency: number): JobHandler<Payload> {
  const retryLimit = 3;
  return {
    kind: scanKind,
    retryLimit,
    retryDelayMs: 2000,
    concurrency,
    parse(payload) {
      const scanId = (payload as Partial<Payload> | null)?.scanId;
      if (typeof scanId !== 'number' || !Number.isInteger(scanId))
        throw new Error('scan payload needs an integer scanId');
      return { scanId };
    },
    async handle(payload, ctx) {
      try {
        const outcome = await runScan(deps, payload.scanId, { runner: runnerName, signal: ctx.signal });
        return outcome.kind === 'deferred' ? { deferUntil: outcome.retryAt } : undefined;
      } catch (err) {
        if (!(err instanceof ScanInterruptedError) && !ctx.signal.aborted && ctx.attempt > retryLimit) {
          await failScan(deps.store, payload.scanId, `The scan failed ${ctx.attempt} times: ${(err as Error).message}`);
        }
        throw err;
      }
    },
  };
}
