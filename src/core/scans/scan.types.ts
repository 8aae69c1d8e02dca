import type { AssetRepositories, TokenTarget } from '../assets/asset.types.ts';
import type { EventRepositories } from '../events/event.types.ts';
import type { Transactional } from '../shared/transactional.ts';
import type { Team } from '../teams/team.types.ts';
import type {
  VulnerabilityRepositories,
  VulnerabilityRepository,
} from '../vulnerabilities/vulnerability.repository.ts';
import type { VulnerabilityEventLog } from '../vulnerabilities/vulnerability-events.ts';
import type { FindingInput, ScanCoverage, ScanReport, Severity } from '../vulnerabilities/vulnerability.types.ts';
import type { ScanProfileSettings } from './scan-profile-settings.ts';

/** Schedule frequencies of the spec. */
export const scheduleFrequencies = ['never', 'once', 'daily', 'weekly', 'biweekly', 'monthly'] as const;
export type ScheduleFrequency = (typeof scheduleFrequencies)[number];

/** An application scan profile: a scan target attached to a verified asset. */
export interface ScanProfile {
  id: number;
  teamId: number;
  assetId: number;
  token: string;
  name: string;
  /** As given at creation, normalised: `[scheme://]host[:port]`. */
  endpoint: string;
  endpointKey: string;
  /** The origin that answered endpoint validation. */
  scheme: 'http' | 'https';
  port: number;
  settings: ScanProfileSettings;
  isActive: boolean;
  schedule: { frequency: ScheduleFrequency; first: Date | null; next: Date | null };
  created: Date;
  updated: Date;
}

/**
 * Status of a scan. Live: starting (queued), running, stopping. Final: stopped (by request),
 * completed, unable_to_resolve (the endpoint's name has no address), unable_to_complete.
 */
export const scanStatuses = [
  'starting',
  'running',
  'stopping',
  'stopped',
  'completed',
  'unable_to_resolve',
  'unable_to_complete',
] as const;
export type ScanStatus = (typeof scanStatuses)[number];

/** Statuses during which the profile has a scan (one at most). */
export const liveScanStatuses: readonly ScanStatus[] = ['starting', 'running', 'stopping'];

/** True while the scan is queued, running or stopping. */
export function isLive(status: ScanStatus): boolean {
  return liveScanStatuses.includes(status);
}

/**
 * What moved so far, for a user watching a scan. None of it goes down when a scan is resumed on
 * another worker (that run crawls again from the start): pages, checks and findings keep the
 * highest count any run reached, requests add up over the runs, and `fraction` never decreases.
 */
export interface ScanProgress {
  pagesCrawled: number;
  requestsSent: number;
  checksDone: number;
  findings: number;
  /** Share of the scan's work done, 0 to 1, as the engine judges it; never lower than a value saved before. */
  fraction: number;
  /** The current run, whose pace the estimate of the time left measures (null before any run). */
  run: ScanRunPace | null;
}

/** How fast the current run of a scan moves: its start, its own share of the work done, and a recent point of it. */
export interface ScanRunPace {
  /** When the run's engine sent its first request (until then, when the run claimed the scan). */
  started: Date;
  /** The run's own share of the work done (below the scan's fraction for a while after a resume, and it may fall). */
  fraction: number;
  /** The run's share some seconds before the last save: the pace is measured since then (the work speeds up and slows down). */
  since: { at: Date; fraction: number };
  /** When the scan's duration limit (maxDurationMs) ends the run, whatever is left: the time left never goes past it. */
  deadline: Date | null;
}

/** Findings of a scan per severity. */
export type SeverityCounts = Record<Severity, number>;

/** One scan of a profile; a finished scan is that profile's report. */
export interface Scan {
  id: number;
  teamId: number;
  profileId: number;
  /** The report token. */
  token: string;
  status: ScanStatus;
  trigger: 'api' | 'schedule';
  endpoint: string;
  profileName: string;
  error: string | null;
  warnings: string[];
  progress: ScanProgress;
  counts: SeverityCounts;
  highestCvss: number;
  jobId: string | null;
  /** Which worker process runs (or last ran) it. */
  runner: string | null;
  /** Runs started: more than one means it was resumed after its worker stopped. */
  runs: number;
  heartbeat: Date | null;
  created: Date;
  started: Date | null;
  ended: Date | null;
}

/** A new scan row (always `starting`). */
export type NewScan = Pick<Scan, 'teamId' | 'profileId' | 'token' | 'trigger' | 'endpoint' | 'profileName' | 'created'>;

/** The final write of a scan. */
export interface ScanEnd {
  status: Exclude<ScanStatus, 'starting' | 'running' | 'stopping'>;
  error: string | null;
  /** Replaces the warnings when given; absent keeps what was recorded. */
  warnings?: string[];
  progress: ScanProgress;
  ended: Date;
}

/** A vulnerability a scan saw, as its report keeps it. */
export interface ScanFindingLink {
  vulnerabilityId: number;
  severity: Severity;
  cvss: number;
}

/** Persistence of scan profiles. Every method but the scheduler's is scoped to a team. */
export interface ScanProfileRepository {
  insert(profile: Omit<ScanProfile, 'id'>): Promise<ScanProfile>;
  findByToken(teamId: number, token: string): Promise<ScanProfile | undefined>;
  findById(teamId: number, id: number): Promise<ScanProfile | undefined>;
  findByEndpointKey(teamId: number, key: string): Promise<ScanProfile | undefined>;
  /** The team's profiles (or one asset's), in creation order. */
  list(teamId: number, assetId?: number): Promise<ScanProfile[]>;
  count(teamId: number): Promise<number>;
  /** Profiles on the asset or on one of its subdomain assets (2026). */
  countByAsset(teamId: number, assetId: number): Promise<number>;
  delete(teamId: number, id: number): Promise<boolean>;
  updateSettings(teamId: number, id: number, settings: ScanProfileSettings, at: Date): Promise<void>;
  setActive(teamId: number, id: number, isActive: boolean, at: Date): Promise<void>;
  setSchedule(teamId: number, id: number, schedule: ScanProfile['schedule'], at: Date): Promise<void>;
  /** Every profile's id and report lifespan, in id order after `afterId` (report pruning). */
  listLifespans(afterId: number, limit: number): Promise<Array<{ id: number; reportLifespanDays: number }>>;
  /** Profiles of every team whose next scheduled scan is due at `now` (the scheduler's view). */
  dueSchedules(now: Date, limit: number): Promise<ScanProfile[]>;
  /**
   * Moves a schedule on from the fire at `due` to `next`, only if no one did it first: the
   * compare-and-set that makes one fire happen once among several schedulers.
   */
  advanceSchedule(id: number, due: Date, next: { frequency: ScheduleFrequency; next: Date | null }): Promise<boolean>;
}

/** Persistence of scans and the findings each saw. */
export interface ScanRepository {
  /** Inserts a `starting` scan; undefined when the profile has a live scan already (5009). */
  insertLive(scan: NewScan): Promise<Scan | undefined>;
  findById(id: number): Promise<Scan | undefined>;
  findLive(teamId: number, profileId: number): Promise<Scan | undefined>;
  /** The latest scans (by id) of these profiles, one per profile. */
  latestOf(teamId: number, profileIds: number[]): Promise<Map<number, Scan>>;
  setJob(id: number, jobId: string): Promise<void>;
  /** starting/running → running, for this runner; false when the scan is no longer live or is stopping. */
  markRunning(id: number, runner: string, at: Date): Promise<Scan | undefined>;
  /** Saves progress of a live scan and beats the heart; answers its status (undefined: no longer live, or gone). */
  saveProgress(id: number, progress: ScanProgress, at: Date): Promise<ScanStatus | undefined>;
  /** starting → stopped at once (nothing runs yet), running → stopping; answers the new status, undefined when none is live. */
  requestStop(teamId: number, profileId: number, at: Date): Promise<ScanStatus | undefined>;
  /** Appends a warning (the runner's and the scheduler's alike). */
  addWarning(id: number, warning: string): Promise<void>;
  /** Ends a live scan; false when it was not live any more. */
  finish(id: number, end: ScanEnd): Promise<boolean>;
  linkFindings(scanId: number, links: ScanFindingLink[]): Promise<void>;
  /** Recomputes the counts per severity and the highest CVSS from the linked findings. */
  tallyFindings(id: number): Promise<{ counts: SeverityCounts; highestCvss: number; total: number }>;
  /** Deletes the finished scans (reports) of a profile that ended before `before`, the latest one excepted; answers how many. */
  deleteEndedBefore(profileId: number, before: Date): Promise<number>;
  /** Live scans of every team (reconciliation). */
  listLive(): Promise<Scan[]>;
  countRunning(teamId: number, exceptId: number): Promise<number>;
  /** A scan of the team by its (report) token. */
  findByToken(teamId: number, token: string): Promise<Scan | undefined>;
  /** The profile's finished scans (its reports), newest first, optionally created within [from, to] (inclusive, whole seconds). */
  listFinished(
    teamId: number,
    profileId: number,
    options: { createdFrom?: Date; createdTo?: Date; limit: number },
  ): Promise<Scan[]>;
  /** True when the scan's report links that vulnerability. */
  hasFinding(scanId: number, vulnerabilityId: number): Promise<boolean>;
}

/**
 * The repositories of the scan services: the vulnerability services' (scans ingest findings),
 * the team event log (scan-events.ts), profiles and scans.
 */
export type ScanRepositories = VulnerabilityRepositories &
  EventRepositories & {
    scanProfiles: ScanProfileRepository;
    scans: ScanRepository;
  };

/** The store as the scan services see it. */
export type ScanStore = Transactional<ScanRepositories>;

/**
 * What the scans ask of the assets area: the asset (or discovered name) a token of the team names,
 * 2011 when malformed, 2014 when unknown. The assets area implements it (requireTokenTarget);
 * surface monitoring and the legacy reads ask the same.
 */
export interface AssetTokenLookup {
  requireTokenTarget(store: AssetRepositories, team: Team, token: string): Promise<TokenTarget>;
}

/** The other areas' capabilities the scan services take, wired by the composition root. */
export interface ScanPorts {
  assets: AssetTokenLookup;
}

/** The totals of one recording of findings. */
export interface FindingTotals {
  created: number;
  updated: number;
  regressions: number;
  patched: number;
}

/** One scan's findings on their way into the vulnerabilities, written in batches. */
export interface FindingRecording {
  /** Findings added so far. */
  readonly count: number;
  add(finding: FindingInput): Promise<void>;
  /** Writes the findings added since the last batch. */
  flush(): Promise<void>;
  /** Writes the rest; a complete scan patches what it covers (all when `covers` is absent) and no longer saw. */
  finish(isComplete: boolean, covers?: ScanCoverage): Promise<FindingTotals>;
}

/**
 * Where application scans and monitoring runs record their findings. The vulnerabilities area
 * implements it (ScanIngestion, given the details-page base by the composition root). `scanId`
 * identifies the scan on every row it writes (a fresh one when absent); `afterBatch` runs inside
 * each batch's transaction with what it wrote.
 */
export interface FindingSink {
  begin<R extends { vulnerabilities: VulnerabilityRepository; events: VulnerabilityEventLog }>(
    store: Transactional<R>,
    report: Omit<ScanReport, 'isComplete'>,
    scanId?: string,
    afterBatch?: (tx: R, written: ScanFindingLink[]) => Promise<void>,
  ): FindingRecording;
}
