import type { MonitoringSwitch } from '../assets/asset.types.ts';
import type { AssetTokenLookup } from '../scans/scan.types.ts';
import type { Team } from '../teams/team.types.ts';
import type { SurfaceRun, SurfaceRunListing, SurfaceRunTrigger, SurfaceStore } from './surface-run.types.ts';

/** The core's port to the job queue for surface runs: one durable job per run. */
export interface SurfaceQueue {
  enqueueRun(run: Pick<SurfaceRun, 'id'>): Promise<string>;
}

/** What starting and scheduling runs needs. */
export interface MonitoringDeps {
  store: SurfaceStore;
  queue: SurfaceQueue;
  /** Time between two runs of a monitored domain, ms (the first run starts when monitoring is turned on). */
  intervalMs: number;
}

/** Monitoring as the asset-settings update tells it of a switch: the assets area's port, implemented here. */
export type MonitoringControl = MonitoringSwitch;

/**
 * Queues a run of the asset and its job; undefined when a run is live already (the partial
 * unique index decides, so concurrent callers start one run). With `unlessCreatedSince`, no run
 * is created when one was created since then: the scheduler's exactly-once per due time.
 */
export async function startSurfaceRun(
  deps: Pick<MonitoringDeps, 'store' | 'queue'>,
  teamId: number,
  assetId: number,
  trigger: SurfaceRunTrigger,
  options: { unlessCreatedSince?: Date; now?: Date } = {},
): Promise<SurfaceRun | undefined> {
  const { unlessCreatedSince, now = new Date() } = options;
  const run = await deps.store.surfaceRuns.insertLive({
    teamId,
    assetId,
    trigger,
    created: now,
    ...(unlessCreatedSince === undefined ? {} : { unlessCreatedSince }),
  });
  if (run === undefined) return undefined;
  return dispatchSurfaceRun(deps, run);
}

/** Enqueues the job of a committed run; a crash before this leaves a queued run without a job, which the scheduler enqueues. */
export async function dispatchSurfaceRun(
  deps: Pick<MonitoringDeps, 'store' | 'queue'>,
  run: SurfaceRun,
): Promise<SurfaceRun> {
  const jobId = await deps.queue.enqueueRun(run);
  await deps.store.surfaceRuns.setJob(run.id, jobId);
  return { ...run, jobId };
}

/** The control the settings update calls. */
export function monitoringControl(deps: Pick<MonitoringDeps, 'store' | 'queue'>): MonitoringControl {
  return {
    enabled: async (teamId, assetId) => {
      await startSurfaceRun(deps, teamId, assetId, 'enable');
    },
    disabled: async (teamId, assetId) => {
      await deps.store.surfaceRuns.requestStop(teamId, assetId, new Date());
    },
  };
}

/** Assets started per scheduler round (the rest start in the next rounds). */
const dueBatch = 100;

/**
 * The scheduler's part: a run for every monitored, verified domain whose latest run was created
 * an interval ago or more (or that never ran) and has none live; and the job of any queued run
 * that lost it (a crash between the row and the job). However many schedulers run, a due time
 * starts one run: the insert itself checks that no run was created since the threshold and that
 * none is live. A fire missed while the service was down happens at the first round after start.
 */
export async function fireDueSurfaceRuns(
  deps: MonitoringDeps,
  now = new Date(),
): Promise<{ started: number; recovered: number }> {
  const threshold = new Date(now.getTime() - deps.intervalMs);
  let started = 0;
  for (const due of await deps.store.surfaceRuns.dueAssets(threshold, dueBatch)) {
    if (
      (await startSurfaceRun(deps, due.teamId, due.assetId, 'schedule', { unlessCreatedSince: threshold, now })) !==
      undefined
    )
      started += 1;
  }
  let recovered = 0;
  for (const run of await deps.store.surfaceRuns.withoutJob(new Date(now.getTime() - 60_000))) {
    await dispatchSurfaceRun(deps, run);
    recovered += 1;
  }
  return { started, recovered };
}

/** Recent runs for operators (`perimeter admin monitoring list`). */
export function listSurfaceRuns(
  store: SurfaceStore,
  options: { teamId?: number; limit: number },
): Promise<SurfaceRunListing[]> {
  return store.surfaceRuns.list(options);
}

/** What an asset's surface monitoring is doing: switched on or not, its latest run and when the next is due. */
export interface MonitoringStatus {
  monitoring: boolean;
  intervalMs: number;
  lastRun: SurfaceRun | undefined;
  /** When the scheduler starts the next run (now or past: at its next round); undefined when off or a run is live. */
  nextRunAt: Date | undefined;
}

/** The monitoring of one asset of the team (2011 / 2014 as the asset's other operations). */
export async function monitoringStatus(
  { store, ports }: { store: SurfaceStore; ports: { assets: AssetTokenLookup } },
  team: Team,
  token: string,
  intervalMs: number,
): Promise<MonitoringStatus> {
  const { asset } = await ports.assets.requireTokenTarget(store, team, token);
  if (asset === undefined) return { monitoring: false, intervalMs, lastRun: undefined, nextRunAt: undefined };
  const lastRun = (await store.surfaceRuns.latestOf(team.id, [asset.id])).get(asset.id);
  const isLive = lastRun !== undefined && ['queued', 'running', 'stopping'].includes(lastRun.status);
  // Never run: the scheduler's next round starts one.
  const nextRunAt =
    !asset.monitored || isLive
      ? undefined
      : lastRun === undefined
        ? new Date()
        : new Date(lastRun.created.getTime() + intervalMs);
  return { monitoring: asset.monitored, intervalMs, lastRun, nextRunAt };
}
