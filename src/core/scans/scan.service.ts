import { appError } from '../errors/app-error.ts';
import { newToken } from '../shared/ids.ts';
import type { Team } from '../teams/team.types.ts';
import { finishScan } from './scan-events.ts';
import { requireProfile } from './scan-profile.service.ts';
import type { Scan, ScanProfile, ScanRepositories, ScanStore } from './scan.types.ts';
import { globalReportLifespanDays } from './scan-profile-settings.ts';

/**
 * The core's port to the job queue for scans: a scan runs as a durable job on a worker; the
 * reconciler asks whether a scan's job is still queued or running.
 */
export interface ScanQueue {
  enqueueScan(scan: Pick<Scan, 'id'>): Promise<string>;
  isPending(jobId: string): Promise<boolean>;
}

/** What starting a scan needs. */
export interface ScanDeps {
  store: ScanStore;
  queue: ScanQueue;
}

/**
 * Starts a scan of a profile (a durable job; a worker takes it within seconds): 2021 when the
 * asset is not verified, 2616 when the profile is deactivated, 5009 when one is live already.
 */
export async function startScan(
  deps: ScanDeps,
  team: Team,
  token: string,
  trigger: Scan['trigger'] = 'api',
): Promise<Scan> {
  const profile = await requireProfile(deps.store, team, token);
  return startScanOf(deps, profile, trigger);
}

/** Starts a scan of a loaded profile: the live row, then its job. */
export async function startScanOf(deps: ScanDeps, profile: ScanProfile, trigger: Scan['trigger']): Promise<Scan> {
  const scan = await createLiveScan(deps.store, profile, trigger);
  return dispatchScan(deps, scan);
}

/**
 * The checks of a start and the live scan row, in the given transaction (the scheduler claims
 * its fire in the same one): 2021, 2616, 5009.
 */
export async function createLiveScan(
  repos: ScanRepositories,
  profile: ScanProfile,
  trigger: Scan['trigger'],
): Promise<Scan> {
  const asset = await repos.assets.findById(profile.teamId, profile.assetId);
  if (asset === undefined || asset.status !== 'verified') {
    throw appError(
      2021,
      `Asset not verified: only verified assets can be scanned, and ${asset?.name ?? 'the asset'} is not verified`,
      ['scanProfileToken'],
    );
  }
  if (!profile.isActive)
    throw appError(2616, 'Scan profile deactivated: it cannot be scanned until an operator activates it', [
      'scanProfileToken',
    ]);
  const scan = await repos.scans.insertLive({
    teamId: profile.teamId,
    profileId: profile.id,
    token: newToken(),
    trigger,
    endpoint: profile.endpoint,
    profileName: profile.name,
    created: new Date(),
  });
  if (scan === undefined)
    throw appError(5009, 'Scan already running on the scan profile: stop it or wait until it ends', [
      'scanProfileToken',
    ]);
  return scan;
}

/**
 * Enqueues the job of a committed live scan. A crash before this leaves a starting scan
 * without a job, which the reconciler enqueues (recoverScans).
 */
export async function dispatchScan(deps: ScanDeps, scan: Scan): Promise<Scan> {
  const jobId = await deps.queue.enqueueScan(scan);
  await deps.store.scans.setJob(scan.id, jobId);
  return { ...scan, jobId };
}

/**
 * Asks the live scan to stop: a queued one ends `stopped` at once, a running one goes
 * `stopping` and its worker aborts it within seconds. 5004 when none is live.
 */
export async function stopScan(store: ScanStore, team: Team, token: string): Promise<Scan> {
  const profile = await requireProfile(store, team, token);
  const status = await store.scans.requestStop(team.id, profile.id, new Date());
  if (status === undefined) throw appError(5004, 'No scan running on the scan profile', ['scanProfileToken']);
  const latest = (await store.scans.latestOf(team.id, [profile.id])).get(profile.id)!;
  return latest;
}

/** The latest scan of a profile, live or finished; 5004 when it was never scanned. */
export async function getScanStatus(
  store: ScanStore,
  team: Team,
  token: string,
): Promise<{ profile: ScanProfile; scan: Scan }> {
  const profile = await requireProfile(store, team, token);
  const scan = (await store.scans.latestOf(team.id, [profile.id])).get(profile.id);
  if (scan === undefined)
    throw appError(5004, 'No scan on the scan profile yet: start one first', ['scanProfileToken']);
  return { profile, scan };
}

/**
 * Repairs live scans that nothing runs: a starting scan whose job was never enqueued (a crash
 * between commit and enqueue) gets its job; a scan whose job is no longer queued or running
 * (its worker was killed on the last attempt) ends `unable_to_complete` with the reason.
 * Answers how many scans it touched.
 */
export async function recoverScans(deps: ScanDeps, now = new Date(), graceMs = 30_000): Promise<number> {
  let touched = 0;
  for (const scan of await deps.store.scans.listLive()) {
    if (now.getTime() - scan.created.getTime() < graceMs && scan.jobId === null) continue;
    if (scan.jobId === null) {
      const jobId = await deps.queue.enqueueScan(scan);
      await deps.store.scans.setJob(scan.id, jobId);
      touched++;
    } else if (!(await deps.queue.isPending(scan.jobId))) {
      const isStopping = scan.status === 'stopping';
      const end = {
        status: isStopping ? ('stopped' as const) : ('unable_to_complete' as const),
        error: isStopping
          ? null
          : 'The worker running this scan stopped (the process was killed or crashed) and the scan could not be resumed; start it again',
        progress: scan.progress,
        ended: now,
      };
      // Its end is logged (scan.completed or scan.failed); what its runs changed is not known any more.
      const ended = await finishScan(deps.store, scan, end, null);
      if (ended) touched++;
    }
  }
  return touched;
}

/**
 * Deletes reports past their profile's lifespan (`report_lifespan_days`, 0 meaning the global
 * lifetime); the latest report of a profile always stays. Answers how many were deleted.
 */
export async function pruneReports(store: ScanStore, now = new Date()): Promise<number> {
  let deleted = 0;
  let afterId = 0;
  for (;;) {
    const page = await store.scanProfiles.listLifespans(afterId, 500);
    if (page.length === 0) return deleted;
    for (const { id, reportLifespanDays } of page) {
      const days = reportLifespanDays === 0 ? globalReportLifespanDays : reportLifespanDays;
      deleted += await store.scans.deleteEndedBefore(id, new Date(now.getTime() - days * 24 * 3600 * 1000));
    }
    afterId = page[page.length - 1]!.id;
  }
}
