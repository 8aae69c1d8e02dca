import type { Transactional } from '../shared/transactional.ts';
import type { Severity, VulnerabilityStatus } from '../vulnerabilities/vulnerability.types.ts';

/**
 * The team overview's reads: totals across the areas (findings, monitored assets, breaches) that
 * the lists of each area would only give one page at a time. Every read is scoped to a team.
 *
 * Terminology: a finding is *open* while its status is new, active or regression (nothing marked
 * it and no scan patched it); a *day* is a UTC day, numbered from the epoch (epoch ms / 86 400 000).
 */

/** How many findings of the team have one status and one severity (from the maintained counts). */
export interface FindingCount {
  status: VulnerabilityStatus;
  severity: Severity;
  n: number;
}

/** What happened to the team's findings on one UTC day. */
export interface FindingDay {
  /** Days since 1970-01-01 (UTC). */
  day: number;
  /** Findings first recorded that day. */
  created: number;
  /** Findings whose status is patched and whose last change was that day. */
  fixed: number;
}

/** A root asset under surface monitoring, by the names the console links it with. */
export interface MonitoredAsset {
  token: string;
  name: string;
}

/** The overview's storage port. */
export interface OverviewRepository {
  /** The team's findings per status and severity; pairs at zero are left out. */
  findingCounts(teamId: number): Promise<FindingCount[]>;
  /** Per UTC day in [fromDay, toDay] (inclusive), findings created and fixed; days with neither are left out. */
  findingDays(teamId: number, fromDay: number, toDay: number): Promise<FindingDay[]>;
  /** The team's monitored assets by name, `limit` at most. */
  monitoredAssets(teamId: number, limit: number): Promise<MonitoredAsset[]>;
  /** How many of the team's policy breaches are open (status NEW). */
  countOpenBreaches(teamId: number): Promise<number>;
}

/** The repositories of the overview: its own reads and the assets' count of monitored assets. */
export interface OverviewRepositories {
  overview: OverviewRepository;
  assets: { countMonitored(teamId: number): Promise<number> };
}

/** The store as the overview sees it. */
export type OverviewStore = Transactional<OverviewRepositories>;
