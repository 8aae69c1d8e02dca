import { syncJira, type JiraSyncDeps } from '../core/integrations/jira-sync.service.ts';
import type { JiraRepository } from '../core/integrations/jira.types.ts';
import type { JobHandler, JobQueue } from './job-queue.ts';

/** Kind of the Jira sync job. */
export const jiraSyncKind = 'jira.sync';

interface Payload {
  teamId: number;
}

/** Teams the scheduler looks at per round (the rest are enqueued by the next rounds). */
const teamsPerRound = 500;

/** Enqueues the sync of a team's Jira connection; one queued or running per team (singleton by team). */
export function enqueueJiraSync(jobs: JobQueue, teamId: number): Promise<string> {
  return jobs.enqueue(jiraSyncKind, { teamId }, { singletonKey: `jira-sync-${teamId}` });
}

/**
 * The scheduler's part: enqueues the sync of every connected team (not stopped) whose log has
 * events after its cursor. A team whose sync waits for its back-off keeps its one deferred job
 * (the singleton key), so no round adds another.
 */
export async function enqueueJiraSyncs(deps: { store: { jira: JiraRepository }; jobs: JobQueue }): Promise<number> {
  const teams = await deps.store.jira.teamsBehind(teamsPerRound);
  for (const teamId of teams) await enqueueJiraSync(deps.jobs, teamId);
  return teams.length;
}

/**
 * Syncs a team's Jira connection (core/integrations/jira-sync.service.ts). A Jira failure
 * (down, throttled) defers the job until the connection's back-off ends, not counted as an
 * attempt; refused credentials end it (the connection waits to be updated); a run that stopped at
 * its size limit defers itself to run again at once. Other errors (the store) are retried.
 */
export function jiraSyncHandler(deps: JiraSyncDeps): JobHandler<Payload> {
  return {
    kind: jiraSyncKind,
    retryLimit: 5,
    retryDelayMs: 10_000,
    concurrency: 4,
    parse(payload) {
      const teamId = (payload as Partial<Payload> | null)?.teamId;
      if (typeof teamId !== 'number' || !Number.isInteger(teamId))
        throw new Error('jira.sync payload needs an integer teamId');
      return { teamId };
    },
    async handle(payload, ctx) {
      const outcome = await syncJira(deps, payload.teamId, ctx.signal);
      switch (outcome.kind) {
        case 'retry':
          ctx.log.warn({ teamId: payload.teamId, retryAt: outcome.at, error: outcome.error }, 'jira sync deferred');
          return { deferUntil: outcome.at };
        case 'stopped':
          ctx.log.warn({ teamId: payload.teamId, error: outcome.error }, 'jira sync stopped');
          return undefined;
        case 'synced':
          if (outcome.applied > 0) ctx.log.info({ teamId: payload.teamId, applied: outcome.applied }, 'jira sync done');
          return outcome.more ? { deferUntil: new Date() } : undefined;
        default:
          return undefined;
      }
    },
  };
}
