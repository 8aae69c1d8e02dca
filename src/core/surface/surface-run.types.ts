import type { ZoneSource } from '../assets/asset.types.ts';
import type { EventRepositories } from '../events/event.types.ts';
import type { BreachRepositories, BreachStore } from '../policies/breach.types.ts';
import type { Transactional } from '../shared/transactional.ts';
import type { VulnerabilityRepositories } from '../vulnerabilities/vulnerability.repository.ts';
import type { Team } from '../teams/team.types.ts';
import type { ZoneRepositories } from '../zones/zone-lookup.types.ts';
import type { DnsRecordInput } from '../zones/zone.types.ts';
import type { IpInventoryRepository } from './ip-inventory.types.ts';
import type { PortInventoryRepository } from './port-inventory.types.ts';
import type { SurfaceNameRepository } from './surface-name.types.ts';
import type { TechnologyInventoryRepository } from './technology-inventory.types.ts';

/** The states of a surface-monitoring run; queued, running and stopping are live. */
export type SurfaceRunStatus = 'queued' | 'running' | 'stopping' | 'completed' | 'stopped' | 'failed';

/** What started a run. */
export type SurfaceRunTrigger = 'enable' | 'schedule';

/** The live states: at most one live run per asset. */
export const liveSurfaceRunStatuses: readonly SurfaceRunStatus[] = ['queued', 'running', 'stopping'];

/** Counters a run reports while it runs. */
export interface SurfaceRunProgress {
  phase:
    'queued' | 'discovery' | 'ports' | 'tls' | 'fingerprinting' | 'stateless-tests' | 'inventory' | 'findings' | 'done';
  /** Names resolved so far, live names found, takeover candidates. */
  candidates: number;
  live: number;
  takeovers: number;
  /** HTTP origins the stateless tests covered, and their requests. */
  origins: number;
  requests: number;
  findings: number;
  /** (address, port) pairs the port scan probed, open ports found, TLS endpoints, technologies. */
  portsProbed: number;
  openPorts: number;
  tlsEndpoints: number;
  technologies: number;
}

/** What a finished run found. */
export interface SurfaceRunSummary {
  names: number;
  newNames: number;
  goneNames: number;
  addresses: number;
  isWildcard: boolean;
  takeovers: number;
  /** What the port inventory recorded; null when port scanning was off. */
  ports: { open: number; opened: number; reopened: number; closed: number } | null;
  /** Endpoints that spoke TLS; null when TLS discovery was off. */
  tlsEndpoints: number | null;
  /** What the technology inventory recorded; null when fingerprinting was off. */
  technologies: { seen: number; added: number; returned: number; disappeared: number } | null;
  findings: { created: number; updated: number; regressions: number; patched: number };
  /** What the policy evaluation over the recorded inventory changed (core/policies); null in summaries written before policies existed. */
  breaches: { breached: number; opened: number; reopened: number; resolved: number } | null;
}

/** One run of one monitored root domain. */
export interface SurfaceRun {
  id: number;
  teamId: number;
  assetId: number;
  status: SurfaceRunStatus;
  trigger: SurfaceRunTrigger;
  error: string | null;
  warnings: string[];
  progress: SurfaceRunProgress;
  summary: SurfaceRunSummary | null;
  jobId: string | null;
  runner: string | null;
  created: Date;
  started: Date | null;
  ended: Date | null;
}

/** A run with the names an operator reads it by. */
export interface SurfaceRunListing extends SurfaceRun {
  teamName: string;
  assetName: string;
}

/** The storage port of surface runs. */
export interface SurfaceRunRepository {
  /** A queued run, or undefined when the asset has a live run already (the partial unique index). */
  insertLive(run: {
    teamId: number;
    assetId: number;
    trigger: SurfaceRunTrigger;
    created: Date;
    unlessCreatedSince?: Date;
  }): Promise<SurfaceRun | undefined>;
  findById(id: number): Promise<SurfaceRun | undefined>;
  findLive(teamId: number, assetId: number): Promise<SurfaceRun | undefined>;
  /** The latest run of each asset (live or ended). */
  latestOf(teamId: number, assetIds: number[]): Promise<Map<number, SurfaceRun>>;
  setJob(id: number, jobId: string): Promise<void>;
  /** queued → running (or a re-delivered running run taken over); false when the run is not live any more. */
  markRunning(id: number, runner: string, at: Date): Promise<boolean>;
  setProgress(id: number, progress: SurfaceRunProgress): Promise<void>;
  addWarning(id: number, warning: string): Promise<void>;
  /** Ends a live run; false when it had ended already. */
  end(
    id: number,
    status: 'completed' | 'stopped' | 'failed',
    at: Date,
    fields: { error?: string; summary?: SurfaceRunSummary },
  ): Promise<boolean>;
  /** Asks the live run of the asset to stop: a queued one ends `stopped` at once, a running one goes `stopping`. */
  requestStop(teamId: number, assetId: number, at: Date): Promise<SurfaceRunStatus | undefined>;
  /** The monitored, verified root domains whose latest run was created before `createdBefore` (or that never ran), with no live run. */
  dueAssets(createdBefore: Date, limit: number): Promise<Array<{ teamId: number; assetId: number }>>;
  /** Live runs whose job id is missing (a crash between the row and the job), created before `before`. */
  withoutJob(before: Date): Promise<SurfaceRun[]>;
  /** Recent runs, newest first, optionally of one team (operators' listing). */
  list(options: { teamId?: number; limit: number }): Promise<SurfaceRunListing[]>;
}

/**
 * The repositories of surface monitoring: the vulnerability, zone and breach services' (a run
 * ingests findings, indexes names and evaluates policies), the inventories, the runs, the names
 * it lists and the event log (its changes are recorded as events in their transactions).
 */
export type SurfaceRepositories = VulnerabilityRepositories &
  ZoneRepositories &
  EventRepositories &
  Omit<BreachRepositories, 'ports' | 'technologies'> & {
    ipAddresses: IpInventoryRepository;
    ports: PortInventoryRepository;
    technologies: TechnologyInventoryRepository;
    surfaceRuns: SurfaceRunRepository;
    surfaceNames: SurfaceNameRepository;
  };

/** The store as surface monitoring sees it. */
export type SurfaceStore = Transactional<SurfaceRepositories>;

/**
 * What a run asks of the zones area: the names it resolved, indexed under the team's root
 * domains inside the caller's transaction; answers how many names were indexed. The zones area
 * implements it (indexRecords).
 */
export interface NameIndexer {
  indexRecords(
    tx: ZoneRepositories,
    team: Team,
    batches: Iterable<readonly DnsRecordInput[]>,
    source: ZoneSource,
  ): Promise<number>;
}

/**
 * What a run asks of the policies area once the inventories are recorded: the asset's breaches
 * opened, reopened and resolved. The policies area implements it (evaluateBreaches).
 */
export interface BreachEvaluator {
  evaluateBreaches(
    store: BreachStore,
    input: { teamId: number; assetId: number; at: number },
  ): Promise<NonNullable<SurfaceRunSummary['breaches']>>;
}
