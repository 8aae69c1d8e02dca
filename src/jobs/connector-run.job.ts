import { runConnector, type ConnectorRunDeps } from '../core/connectors/connector-run.service.ts';
import type { JobHandler, JobQueue } from './job-queue.ts';

/** Kind of the connector run job. */
export const connectorRunKind = 'connector-run';

interface Payload {
  teamId: number;
  connectorId: number;
  /** The connector's request this job runs (connectors.run_requests when it was queued). */
  request: number;
}

/**
 * Enqueues the job of a connector's request; one per request (singleton by connector and request
 * number): a request made while the previous job is still closing gets a job of its own, and one
 * at a time holds because a request is only made when no run is queued or running.
 */
export async function enqueueConnectorRun(
  jobs: JobQueue,
  teamId: number,
  connectorId: number,
  request: number,
): Promise<void> {
  await jobs.enqueue(
    connectorRunKind,
    { teamId, connectorId, request },
    { singletonKey: `connector:${connectorId}:${request}` },
  );
}

/**
 * Runs a connector's request (runConnector). A run's failure at the provider is its outcome
 * (FAILED, with its error), not a job failure; a job stopped half way (the queue stops, the worker
 * died) runs again from the start, which only reads the provider again. Two runs of the process
 * at a time.
 */
export function connectorRunHandler(deps: ConnectorRunDeps): JobHandler<Payload> {
  return {
    kind: connectorRunKind,
    retryLimit: 3,
    retryDelayMs: 30_000,
    concurrency: 2,
    parse(payload) {
      const p = payload as Partial<Payload> | null;
      if (typeof p?.teamId !== 'number' || typeof p.connectorId !== 'number' || typeof p.request !== 'number')
        throw new Error('connector run payload needs teamId, connectorId and request');
      return { teamId: p.teamId, connectorId: p.connectorId, request: p.request };
    },
    async handle(payload, ctx) {
      const outcome = await runConnector(deps, payload.teamId, payload.connectorId, payload.request, ctx.signal);
      ctx.log.info(
        { connectorId: payload.connectorId, status: outcome?.run.status ?? 'not run', counts: outcome?.counts },
        'connector run done',
      );
    },
  };
}

/** Re-enqueues runs left QUEUED or RUNNING with no job (a crash between the state and the enqueue). */
export async function recoverConnectorRuns(deps: Pick<ConnectorRunDeps, 'store'>, jobs: JobQueue): Promise<number> {
  const live = await deps.store.connectors.liveRuns();
  for (const { teamId, id, runRequests } of live) await enqueueConnectorRun(jobs, teamId, id, runRequests);
  return live.length;
}
