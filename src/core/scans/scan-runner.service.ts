import type { Asset } from '../assets/asset.types.ts';
import type { ServiceLogger } from '../shared/service-logger.ts';
import type { FindingInput } from '../vulnerabilities/vulnerability.types.ts';
import { parseEndpoint } from './endpoint.ts';
import { scanCoverage } from './scan-coverage.ts';
import { finishScan, readScanSubject, scanStartedEvent } from './scan-events.ts';
import type { ScanCounters, ScanEngine, ScanLimits, ScanOutcome, ScanSink } from './scan-engine.ts';
import type {
  FindingRecording,
  FindingSink,
  Scan,
  ScanEnd,
  ScanProfile,
  ScanProgress,
  ScanRunPace,
  ScanStatus,
  ScanStore,
} from './scan.types.ts';

/** What running scans needs. */
export interface ScanRunnerDeps {
  store: ScanStore;
  engine: Pick<ScanEngine, 'scan'>;
  limits: ScanLimits;
  /** Scans of one team running at once, over every worker. */
  perTeamLimit: number;
  /** Where the findings go (the vulnerabilities' ingestion). */
  findings: FindingSink;
  log: ServiceLogger;
  /** How often progress is saved and a stop request looked for (default 1000 ms). */
  tickMs?: number;
}

/** How a run ended for the job: done, or to run again later (the team is at its limit). */
export type RunOutcome = { kind: 'done' } | { kind: 'deferred'; retryAt: Date };

/** How far back the pace of a run is measured for the estimate of the time left (the work speeds up and slows down). */
const paceWindowMs = 5_000;

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
  const claim = await claimScan(deps, scanId, ctx.runner);
  if (claim.kind !== 'claimed') return claim;
  const { scan } = claim;
  const { profile, asset } = await claim.setup;
  if (profile === undefined || asset === undefined || asset.status !== 'verified') {
    await endUnscannable(deps.store, scan, profile === undefined);
    return { kind: 'done' };
  }
  const run = new ScanRun(deps, scan, profile, asset);
  const { outcome, lastStatus } = await driveEngine(deps, run, profile, asset, ctx.signal);
  if (run.isGone) {
    deps.log.info({ scan: scan.token }, 'scan ended: its profile was deleted while it ran');
    return { kind: 'done' };
  }
  run.countFindings();
  if (ctx.signal.aborted && !run.isStopRequested)
    throw new ScanInterruptedError('The worker stopped during the scan; it resumes on the next run');
  await recordEnd(deps, run, outcome, lastStatus);
  return { kind: 'done' };
}

/** A scan this run claimed, with the read of its profile and asset under way. */
interface ClaimedScan {
  kind: 'claimed';
  scan: Scan;
  setup: Promise<{ profile: ScanProfile | undefined; asset: Asset | undefined }>;
}

/**
 * Claims a scan (`running`, within the team's limit): done when it is gone, ended or asked to
 * stop before it ran (it ends `stopped`), deferred while the team is at its limit. A resumed scan
 * gets a warning saying so.
 */
async function claimScan(deps: ScanRunnerDeps, scanId: number, runner: string): Promise<RunOutcome | ClaimedScan> {
  const { store } = deps;
  const queued = await store.scans.findById(scanId);
  if (queued === undefined || !['starting', 'running', 'stopping'].includes(queued.status)) return { kind: 'done' };
  if (queued.status === 'stopping') {
    // Asked to stop while its worker was gone: what its runs changed is not known any more.
    await finishScan(
      store,
      queued,
      { status: 'stopped', error: null, progress: queued.progress, ended: new Date() },
      null,
    );
    return { kind: 'done' };
  }
  // The profile and its asset are read while the claim commits (a run needs them whatever the claim says).
  const setup = readProfileAndAsset(store, queued);
  setup.catch(() => undefined); // awaited by the caller on every path that uses it; a dropped claim drops it
  const claimed = await store.transaction(async (tx) => {
    await tx.assets.lockTeam(queued.teamId);
    if ((await tx.scans.countRunning(queued.teamId, scanId)) >= deps.perTeamLimit) return undefined;
    const at = new Date();
    const scan = await tx.scans.markRunning(scanId, runner, at);
    // The first run starts the scan; a resume (run 2 and later) is no new start.
    const subject = scan?.runs === 1 ? await readScanSubject(tx, scan) : undefined;
    if (subject !== undefined) await tx.events.append([scanStartedEvent(subject, at)]);
    return scan;
  });
  if (claimed === undefined) {
    const again = await store.scans.findById(scanId);
    if (again === undefined || again.status !== 'starting') return { kind: 'done' };
    return { kind: 'deferred', retryAt: new Date(Date.now() + 2000) };
  }
  if (claimed.runs > 1)
    await store.scans.addWarning(
      claimed.id,
      `Resumed at ${new Date().toISOString()} after the worker running it stopped (run ${claimed.runs}); pages are crawled again, findings already recorded are kept`,
    );
  return { kind: 'claimed', scan: claimed, setup };
}

/** Ends a claimed scan that cannot run: its profile was deleted, or its asset is not verified any more. */
async function endUnscannable(store: ScanStore, scan: Scan, isProfileDeleted: boolean): Promise<void> {
  const error = isProfileDeleted
    ? 'The scan profile was deleted'
    : 'The asset is not verified any more: only verified assets can be scanned';
  const end = { status: 'unable_to_complete' as const, error, progress: { ...scan.progress }, ended: new Date() };
  await finishScan(store, scan, end, null);
}

/**
 * One run of a claimed scan: its progress, the ingestion of its findings, the sink the engine
 * reports to, and the stop of the engine (a stop request, or the scan's deletion).
 */
class ScanRun {
  readonly scan: Scan;
  /**
   * A resumed scan crawls again from the start, yet its progress never goes down: pages, checks
   * and findings keep the highest count of any run, requests add to earlier runs', and the
   * fraction moves up only once this run's own fraction passes the saved one.
   */
  readonly progress: ScanProgress;
  /** The progress saved by earlier runs (all zero on a first run). */
  private readonly before: ScanProgress;
  /** This run's pace (the same object as progress.run). */
  private readonly run: ScanRunPace;
  /** This run's fraction at each save of the last paceWindowMs (and the one before): where its pace is measured from. */
  private paces: Array<{ at: Date; fraction: number }>;
  /** The engine sent its first request (the pace is measured from then). */
  private isSending = false;
  readonly ingestion: FindingRecording;
  /** The profile and asset the scan's events name. */
  readonly subject: { profile: ScanProfile; asset: Asset };
  readonly sink: ScanSink;
  readonly stop = new AbortController();
  isStopRequested = false;
  /** The scan's row is gone (its profile was deleted): the engine stops and nothing more is written. */
  isGone = false;
  /**
   * Writes are chained: findings, flushes and progress saves never overlap. A write that fails
   * because the scan was deleted meanwhile (its findings' links, a warning) ends the chain
   * quietly; any other failure fails the run.
   */
  private writes: Promise<void> = Promise.resolve();
  private readonly store: ScanStore;

  constructor(deps: ScanRunnerDeps, scan: Scan, profile: ScanProfile, asset: Asset) {
    this.store = deps.store;
    this.scan = scan;
    this.subject = { profile, asset };
    this.before = { ...scan.progress };
    const started = new Date();
    const deadline = new Date(started.getTime() + deps.limits.maxDurationMs);
    this.run = { started, fraction: 0, since: { at: started, fraction: 0 }, deadline };
    this.progress = { ...scan.progress, run: this.run };
    this.paces = [{ at: started, fraction: 0 }];
    this.ingestion = deps.findings.begin(
      deps.store,
      {
        teamId: scan.teamId,
        asset: { id: asset.id, token: asset.token, name: asset.name, rootId: asset.rootId },
        scanSource: 'application-scanning',
        scanProfileToken: profile.token,
        scannedAt: scan.started ?? new Date(),
      },
      ingestionScanId(scan),
      (tx, written) => tx.scans.linkFindings(scan.id, written),
    );
    const warned = new Set(scan.warnings);
    this.sink = {
      finding: (finding: FindingInput) => this.enqueue(() => this.ingestion.add(finding)),
      progress: (counters: ScanCounters) => this.count(counters),
      warning: (message: string) => {
        if (warned.has(message)) return;
        warned.add(message);
        void this.enqueue(() => this.store.scans.addWarning(scan.id, message));
      },
    };
  }

  /** Takes the engine's counters of this run into the scan's progress, which never goes down. */
  count(counters: ScanCounters): void {
    const { before, progress, run } = this;
    progress.pagesCrawled = Math.max(before.pagesCrawled, counters.pagesCrawled);
    progress.checksDone = Math.max(before.checksDone, counters.checksDone);
    // Every request earlier runs sent reached the target, so requests_sent adds to what they sent.
    progress.requestsSent = before.requestsSent + counters.requestsSent;
    if (!this.isSending && counters.requestsSent > 0) {
      // The run's clock starts at the engine's first request: its setup before that (a scan
      // thread starting, the target's name resolved) says nothing of the pace of the work.
      this.isSending = true;
      const at = new Date();
      Object.assign(run, { started: at, since: { at, fraction: 0 } });
      this.paces = [{ at, fraction: 0 }];
    }
    if (counters.fraction !== undefined && Number.isFinite(counters.fraction)) {
      run.fraction = Math.min(1, Math.max(0, counters.fraction));
      progress.fraction = Math.max(progress.fraction, run.fraction);
    }
  }

  /** Marks the run complete: all its work done, whatever the engine's last judgement of its share said. */
  complete(): void {
    this.progress.fraction = 1;
    this.run.fraction = 1;
  }

  /** Notes this run's fraction at a save: the pace is measured from the oldest point of the last paceWindowMs. */
  private notePace(at: Date): void {
    const { run } = this;
    this.paces.push({ at, fraction: run.fraction });
    while (this.paces.length > 2 && at.getTime() - this.paces[1]!.at.getTime() >= paceWindowMs) this.paces.shift();
    run.since = this.paces[0]!;
  }

  /** Counts the findings recorded, at least as many as earlier runs recorded (a resumed run reports them again). */
  countFindings(): void {
    this.progress.findings = Math.max(this.before.findings, this.ingestion.count);
  }

  /** Whether the scan's row is gone; the first time it is seen gone, the engine is stopped. */
  async isDeleted(): Promise<boolean> {
    if (!this.isGone && (await this.store.scans.findById(this.scan.id)) === undefined) {
      this.isGone = true;
      this.isStopRequested = true;
      this.stop.abort(new Error('the scan was deleted'));
    }
    return this.isGone;
  }

  /** Chains a write after those queued before it; nothing is written once the scan is gone. */
  enqueue(work: () => Promise<void>): Promise<void> {
    return (this.writes = this.writes.then(async () => {
      if (this.isGone) return;
      try {
        await work();
      } catch (err) {
        if (!(await this.isDeleted())) throw err;
      }
    }));
  }

  /** Waits for the writes queued so far. */
  settled(): Promise<void> {
    return this.writes;
  }

  /** Writes findings and progress; answers the scan's status, undefined once it is no longer live. */
  async tick(): Promise<ScanStatus | undefined> {
    await this.ingestion.flush();
    this.countFindings();
    const at = new Date();
    this.notePace(at);
    const status = await this.store.scans.saveProgress(this.scan.id, this.progress, at);
    if (status === undefined) await this.isDeleted();
    if (status === undefined || status === 'stopping' || status === 'stopped') {
      this.isStopRequested = true;
      this.stop.abort(new Error('stop requested'));
    }
    return status;
  }
}

/**
 * Runs the engine on the profile's target, saving progress (and looking for a stop request) every
 * tick; then waits for every write and saves once more. Answers the engine's outcome and the
 * status that last save answered (undefined when the scan is no longer live).
 */
async function driveEngine(
  deps: ScanRunnerDeps,
  run: ScanRun,
  profile: ScanProfile,
  asset: Asset,
  signal: AbortSignal,
): Promise<{ outcome: ScanOutcome; lastStatus: ScanStatus | undefined }> {
  const timer = setInterval(
    () =>
      void run
        .enqueue(async () => void (await run.tick()))
        .catch((err: unknown) => deps.log.warn({ err, scan: run.scan.token }, 'saving scan progress failed')),
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
      run.sink,
      AbortSignal.any([signal, run.stop.signal]),
    );
  } finally {
    clearInterval(timer);
  }
  await run.settled();
  let lastStatus: ScanStatus | undefined;
  await run.enqueue(async () => void (lastStatus = await run.tick()));
  return { outcome, lastStatus };
}

/**
 * Records how a run ended: the scan's status (`stopped` when a stop was asked for or the engine
 * aborted), its findings patched (a completed scan patches only the findings at locations it
 * reached, scan-coverage.ts), tallied and the scan finished.
 */
async function recordEnd(
  deps: ScanRunnerDeps,
  run: ScanRun,
  outcome: ScanOutcome,
  lastStatus: ScanStatus | undefined,
): Promise<void> {
  const { store } = deps;
  const { scan, progress } = run;
  // The last save answered the status of a scan still live; one that is not is read again (deleted or ended elsewhere).
  const current = lastStatus === undefined ? await store.scans.findById(scan.id) : { status: lastStatus };
  if (current === undefined) return;
  const status =
    run.isStopRequested || current.status === 'stopping' || outcome.status === 'aborted' ? 'stopped' : outcome.status;
  if (status === 'completed') run.complete();
  const end: ScanEnd = {
    status,
    error: status === 'stopped' || status === 'completed' ? null : (outcome.error ?? null),
    progress,
    ended: new Date(),
  };
  const coverage = outcome.coverage;
  if (end.status === 'completed' && coverage !== undefined && coverage.unanswered > 0) {
    await store.scans.addWarning(
      scan.id,
      `${coverage.unanswered} requests got no answer (a time-out, a refused or broken connection, a server error): findings at the paths they were to reach are not patched by this scan`,
    );
  }
  const result = await run.ingestion.finish(
    end.status === 'completed',
    coverage === undefined ? undefined : scanCoverage(coverage.answered),
  );
  await store.scans.tallyFindings(scan.id);
  await finishScan(store, scan, end, result, run.subject);
  deps.log.info({ scan: scan.token, status: end.status, ...progress, ...result }, 'scan ended');
}

/** The profile of a scan and the profile's asset, each undefined when it is gone. */
async function readProfileAndAsset(
  store: ScanStore,
  scan: Pick<Scan, 'teamId' | 'profileId'>,
): Promise<{ profile: ScanProfile | undefined; asset: Asset | undefined }> {
  const profile = await store.scanProfiles.findById(scan.teamId, scan.profileId);
  const asset = profile && (await store.assets.findById(scan.teamId, profile.assetId));
  return { profile, asset };
}

/** Ends a scan whose runs all failed (the job's last attempt), keeping what it recorded. */
export async function failScan(store: ScanStore, scanId: number, error: string): Promise<void> {
  const scan = await store.scans.findById(scanId);
  if (scan === undefined) return;
  await finishScan(
    store,
    scan,
    { status: 'unable_to_complete', error, progress: scan.progress, ended: new Date() },
    null,
  );
}
