import {
  failSurfaceRun,
  runSurfaceRun,
  SurfaceRunInterruptedError,
  type SurfaceRunnerDeps,
} from '../core/surface/surface-runner.service.ts';
import type { SurfaceQueue } from '../core/surface/monitoring.service.ts';
import type { JobHandler, JobQueue } from './job-queue.ts';
import { runnerName } from './scan.job.ts';

/** Kind of the surface-monitoring run job. */
export const surfaceRunKind = 'surface-run';

interface Payload {
  runId: number;
}

/** The core's surface queue over the job queue: one job per run (singleton by the run's id). */
export function surfaceQueueOf(jobs: JobQueue): SurfaceQueue {
  return {
    enqueueRun: (run) => jobs.enqueue(surfaceRunKind, { runId: run.id }, { singletonKey: `surface-run-${run.id}` }),
  };
}

/**
 * Runs a surface-monitoring run (core/surface/surface-runner). A run whose worker stops or
 * dies runs again from the start; after the last retry the run ends `failed` with the error.
 */
export function surfaceRunHandler(deps: SurfaceRunnerDeps, concurrency: number): JobHandler<Payload> {
  const retryLimit = 2;
  return {
    kind: surfaceRunKind,
    retryLimit,
    retryDelayMs: 5000,
    concurrency,
    parse(payload) {
      const runId = (payload as Partial<Payload> | null)?.runId;
      if (typeof runId !== 'number' || !Number.isInteger(runId))
        throw new Error('surface-run payload needs an integer runId');
      return { runId };
    },
    async handle(payload, ctx) {
      try {
        await runSurfaceRun(deps, payload.runId, { runner: runnerName, signal: ctx.signal });
      } catch (err) {
        if (!(err instanceof SurfaceRunInterruptedError) && !ctx.signal.aborted && ctx.attempt > retryLimit) {
          await failSurfaceRun(
            deps.store,
            payload.runId,
            `The run failed ${ctx.attempt} times: ${(err as Error).message}`,
          );
        }
        throw err;
      }
    },
  };
}
