import type { Asset } from '../assets/asset.types.ts';
import type { ServiceLogger } from '../assets/verification.service.ts';
import { ScanIngestion, type IngestionOptions } from '../vulnerabilities/ingestion.service.ts';
import type { FindingInput } from '../vulnerabilities/vulnerability.types.ts';
import { parseEndpoint } from './endpoint.ts';
import { scanCoverage } from './scan-coverage.ts';
import type { ScanCounters, ScanEngine, ScanLimits, ScanOutcome, ScanSink } from './scan-engine.ts';
import type { Scan, ScanEnd, ScanProfile, ScanProgress, ScanStatus, ScanStore } from './scan.types.ts';

/** What running scans needs. */
export interface ScanRunnerDeps {
  store: ScanStore;
  engine: Pick<ScanEngine, 'scan'>;
  limits: ScanLimits;
  /** Scans of one team running at once, over every worker. */
  perTeamLimit: number;
  ingestion: IngestionOptions;
  log: ServiceLogger;
  /** How often progress is saved and a stop request looked for (default 1000 ms). */
  tickMs?: number;
}

/** How a run ended for the job: done, or to run again later (the team is at its limit). */
export type RunOutcome = { kind: 'done' } | { kind: 'deferred'; retryAt: Date };

/** Thrown when the worker itself stops mid-scan: the job goes back to the queue and the scan resumes. */
export class ScanInterruptedError extends Error {
  override readonly name = 'ScanInterruptedError';
}

/** The ingestion's scan id of a scan: every vulnerability it saw carries it (resumes keep it). */
export function ingestionScanId(scan: Pick<Scan, 'token'>): string {
  return `scan:${scan.token}`;
}

/**
 * Runs one scan: claims it (`running`, within the team's limit), drives the engine, and turns
 * its observations into vulnerabilities as they arrive, each linked to the scan's report. A stop
 * request (seen within one tick) aborts the engine and ends the scan `stopped`; a completed scan
 * patches what it did not see again, a stopped or failed one patches nothing. A scan whose worker
 * died is resumed by the next run under the same scan id, so nothing is counted twice.
 */
export async function runScan(
  deps: ScanRunnerDeps,
  scanId: number,
  ctx: { runner: string; signal: AbortSignal },
): Promise<RunOutcome> {
  const { store } = deps;
  const queued = await store.scans.findById(scanId);
  if (queued === undefined || !['starting', 'running', 'stopping'].includes(queued.status)) return { kind: 'done' };
  if (queued.status === 'stopping') {
    await store.scans.finish(scanId, { status: 'stopped', error: null, progress: queued.progress, ended: new Date() });
    return { kind: 'done' };
  }
  // The profile and its asset are read while the claim commits (a run needs them whatever the claim says).
  const setup = readProfileAndAsset(store, queued);
  setup.catch(() => undefined); // awaited below on every path that uses it; a dropped claim drops it
  const claimed = await store.transaction(async (tx) => {
    await tx.assets.lockTeam(queued.teamId);
    if ((await tx.scans.countRunning(queued.teamId, scanId)) >= deps.perTeamLimit) return undefined;
    return tx.scans.markRunning(scanId, ctx.runner, new Date());
  });
  if (claimed === undefined) {
    const again = await store.scans.findById(scanId);
    if (again === undefined || again.status !== 'starting') return { kind: 'done' };
    return { kind: 'deferred', retryAt: new Date(Date.now() + 2000) };
  }
  const scan = claimed;
  if (scan.runs > 1)
    await store.scans.addWarning(
      scan.id,
      `Resumed at ${new Date().toISOString()} after the worker running it stopped (run ${scan.runs}); pages are crawled again, findings already recorded are kept`,
    );

  const { profile, asset } = await setup;
  const progress: ScanProgress = { ...scan.progress };
  // A resumed scan crawls again from the start: pages and checks count this run, but every
  // request its runs sent reached the target, so requests_sent adds to what earlier runs sent.
  const requestsBefore = scan.runs > 1 ? scan.progress.requestsSent : 0;
  if (profile === undefined || asset === undefined || asset.status !== 'verified') {
    const error =
      profile === undefined
        ? 'The scan profile was deleted'
        : 'The asset is not verified any more: only verified assets can be scanned';
    await store.scans.finish(scan.id, { status: 'unable_to_complete', error, progress, ended: new Date() });
    return { kind: 'done' };
  }

  const ingestion = new ScanIngestion(
    store,
    {
      teamId: scan.teamId,
      asset: { id: asset.id, token: asset.token, name: asset.name },
      scanSource: 'application-scanning',
      scanProfileToken: profile.token,
      scannedAt: scan.started ?? new Date(),
    },
    deps.ingestion,
    ingestionScanId(scan),
    (tx, written) => tx.scans.linkFindings(scan.id, written),
  );
  const stop = new AbortController();
  let isStopRequested = false;
  /** The scan's row is gone (its profile was deleted): the engine stops and nothing more is written. */
  let isGone = false;
  const isDeleted = async (): Promise<boolean> => {
    if (!isGone && (await store.scans.findById(scan.id)) === undefined) {
      isGone = true;
      isStopRequested = true;
      stop.abort(new Error('the scan was deleted'));
    }
    return isGone;
  };
  // Writes are chained: findings, flushes and progress saves never overlap. A write that fails
  // because the scan was deleted meanwhile (its findings' links, a warning) ends the chain
  // quietly; any other failure fails the run.
  let writes: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>): Promise<void> =>
    (writes = writes.then(async () => {
      if (isGone) return;
      try {
        await work();
      } catch (err) {
        if (!(await isDeleted())) throw err;
      }
    }));
  const warned = new Set(scan.warnings);
  const sink: ScanSink = {
    finding: (finding: FindingInput) => enqueue(() => ingestion.add(finding)),
    progress: (counters: ScanCounters) =>
      Object.assign(progress, counters, { requestsSent: requestsBefore + counters.requestsSent }),
    warning: (message: string) => {
      if (warned.has(message)) return;
      warned.add(message);
      void enqueue(() => store.scans.addWarning(scan.id, message));
    },
  };
  /** Writes findings and progress; answers the scan's status, undefined once it is no longer live. */
  const tick = async (): Promise<ScanStatus | undefined> => {
    await ingestion.flush();
    progress.findings = ingestion.count;
    const status = await store.scans.saveProgress(scan.id, progress, new Date());
    if (status === undefined) await isDeleted();
    if (status === undefined || status === 'stopping' || status === 'stopped') {
      isStopRequested = true;
      stop.abort(new Error('stop requested'));
    }
    return status;
  };
  const timer = setInterval(
    () =>
      void enqueue(async () => void (await tick())).catch((err: unknown) =>
        deps.log.warn({ err, scan: scan.token }, 'saving scan progress failed'),
      ),
    deps.tickMs ?? 1000,
  );

  let outcome: ScanOutcome;
  try {
    const target = {
      scheme: profile.scheme,
      host: parseEndpoint(profile.endpoint).host,
      port: profile.port,
      scopeName: asset.name,
    };
    outcome = await deps.engine.scan(
      target,
      profile.settings,
      deps.limits,
      sink,
      AbortSignal.any([ctx.signal, stop.signal]),
    );
  } finally {
    clearInterval(timer);
  }
  await writes;
  let lastStatus: ScanStatus | undefined;
  await enqueue(async () => void (lastStatus = await tick()));
  if (isGone) {
    deps.log.info({ scan: scan.token }, 'scan ended: its profile was deleted while it ran');
    return { kind: 'done' };
  }
  progress.findings = ingestion.count;

  if (ctx.signal.aborted && !isStopRequested)
    throw new ScanInterruptedError('The worker stopped during the scan; it resumes on the next run');
  // The last save answered the status of a scan still live; one that is not is read again (deleted or ended elsewhere).
  const current = lastStatus === undefined ? await store.scans.findById(scan.id) : { status: lastStatus };
  if (current === undefined) return { kind: 'done' };
  const status =
    isStopRequested || current.status === 'stopping' || outcome.status === 'aborted' ? 'stopped' : outcome.status;
  const end: ScanEnd = {
    status,
    error: status === 'stopped' || status === 'completed' ? null : (outcome.error ?? null),
    progress,
    ended: new Date(),
  };
  // A completed scan patches only the findings at locations it reached (scan-coverage.ts).
  const coverage = outcome.coverage;
  if (end.status === 'completed' && coverage !== undefined && coverage.unanswered > 0) {
    await store.scans.addWarning(
      scan.id,
      `${coverage.unanswered} requests got no answer (a time-out, a refused or broken connection, a server error): findings at the paths they were to reach are not patched by this scan`,
    );
  }
  const result = await ingestion.finish(
    end.status === 'completed',
    coverage === undefined ? undefined : scanCoverage(coverage.answered),
  );
  await store.scans.tallyFindings(scan.id);
  await store.scans.finish(scan.id, end);
  deps.log.info({ scan: scan.token, status: end.status, ...progress, ...result }, 'scan ended');
  return { kind: 'done' };
}

/** The profile of a scan and the profile's asset, each undefined when it is gone. */
async function readProfileAndAsset(
  store: ScanStore,
  scan: Pick<Scan, 'teamId' | 'profileId'>,
): Promise<{ profile: ScanProfile | undefined; asset: Asset | undefined }> {
  const profile = await store.scanProfiles.findById(scan.profileId);
  const asset = profile && (await store.assets.findById(scan.teamId, profile.assetId));
  return { profile, asset };
}

/** Ends a scan whose runs all failed (the job's last attempt), keeping what it recorded. */
export async function failScan(store: ScanStore, scanId: number, error: string): Promise<void> {
  const scan = await store.scans.findById(scanId);
  if (scan === undefined) return;
  await store.scans.finish(scanId, { status: 'unable_to_complete', error, progress: scan.progress, ended: new Date() });
}
