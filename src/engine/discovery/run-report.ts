/**
 * What a discovery run tells its caller: its counters, progress while it goes (the phase, at each
 * phase change and at most once a second in between), and the report at the end.
 */
import type {
  DiscoveredName,
  DiscoveryProgress,
  DiscoveryReport,
  DiscoveryRequest,
  DiscoveryStats,
  TakeoverObservation,
  UnresolvedName,
  WildcardObservation,
} from './discovery.types.ts';
import { Status, type NameStates } from './name-states.ts';
import { byName } from './run-support.ts';

/** The counters a progress report carries besides the phase. */
export type ProgressCounts = Omit<DiscoveryProgress, 'phase'>;

/** Tells the caller where a run stands; `counts` is read only when a report is sent. */
export class RunProgress {
  /** The phase the run is in. */
  phase: DiscoveryProgress['phase'] = 'seeds';
  private lastProgressAt = 0;

  constructor(
    private readonly onProgress: DiscoveryRequest['onProgress'],
    private readonly counts: () => ProgressCounts,
  ) {}

  /** Enters `phase` and reports it at once (`isForced`) or at most once a second since the last report. */
  report(phase: DiscoveryProgress['phase'], isForced: boolean): void {
    this.phase = phase;
    const onProgress = this.onProgress;
    if (onProgress === undefined) return;
    const now = performance.now();
    if (!isForced && now - this.lastProgressAt < 1000) return;
    this.lastProgressAt = now;
    onProgress({ phase, ...this.counts() });
  }
}

/** The counters of a run that has not started. */
export function emptyStats(): DiscoveryStats {
  return {
    candidates: 0,
    queries: 0,
    retries: 0,
    timeouts: 0,
    resolveMs: 0,
    bruteForceCandidates: 0,
    permutationCandidates: 0,
    isPermutationCapped: false,
    hostsScraped: 0,
    hostsSkippedByGuard: 0,
    httpRequests: 0,
    durationMs: 0,
  };
}

/** What a run has gathered when it ends. */
export interface RunOutcome {
  root: string;
  states: NameStates;
  /** Firm names whose lookup failed (kept only while they still are unresolved). */
  unresolvedFirm: Iterable<UnresolvedName>;
  wildcards: WildcardObservation[];
  /** The kept live names (none when they were streamed). */
  names: Iterable<DiscoveredName>;
  /** Sorted in place. */
  takeovers: TakeoverObservation[];
  warnings: string[];
  stats: DiscoveryStats;
}

/** The run's report: every list sorted by name; of the names the core gave, those gone; the firm names still unresolved. */
export function buildReport(outcome: RunOutcome): DiscoveryReport {
  const { root, states, wildcards } = outcome;
  const gone: DiscoveryReport['gone'] = [];
  for (const [name, result] of states.goneGiven()) if (name !== root) gone.push({ name, outcome: result });
  const unresolved = [...outcome.unresolvedFirm].filter((u) => states.status(u.name) === Status.unresolved);
  return {
    root,
    isWildcard: wildcards.some((w) => w.parent === root),
    wildcards,
    names: [...outcome.names].sort(byName),
    gone: gone.sort(byName),
    unresolved: unresolved.sort(byName),
    takeovers: outcome.takeovers.sort(byName),
    warnings: outcome.warnings,
    stats: outcome.stats,
  };
}
