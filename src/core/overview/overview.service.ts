import type { Team } from '../teams/team.types.ts';
import {
  severities,
  vulnerabilityStatuses,
  type Severity,
  type VulnerabilityStatus,
} from '../vulnerabilities/vulnerability.types.ts';
import type { MonitoredAsset, OverviewRepositories } from './overview.types.ts';

/**
 * The team overview: the numbers the console's first page shows, each the total behind one of
 * the lists (findings by severity and status, new and fixed findings per day, monitored assets,
 * open breaches). Counts come from the maintained counts and the time indexes, so the cost does
 * not grow with the number of findings a list would page through.
 */

/** Statuses of an open finding: no mark, and no scan patched it. */
export const openStatuses: readonly VulnerabilityStatus[] = ['new', 'active', 'regression'];

/** Days of the new-and-fixed series, today included. */
export const overviewWindowDays = 30;

const dayMs = 86_400_000;

/** The findings part of the overview. */
export interface FindingOverview {
  /** Open findings per severity, critical first (every severity, zeros included). */
  openBySeverity: Array<{ severity: Severity; n: number }>;
  /** Findings per status, open statuses first (every status, zeros included). */
  byStatus: Array<{ status: VulnerabilityStatus; n: number; isOpen: boolean }>;
  openTotal: number;
  total: number;
  /** One entry per UTC day of the window, oldest first: `date` is YYYY-MM-DD. */
  days: Array<{ date: string; created: number; fixed: number }>;
}

/** The surface part of the overview. */
export interface SurfaceOverview {
  monitoredCount: number;
  /** The monitored assets by name (at most the limit asked). */
  monitored: MonitoredAsset[];
  openBreaches: number;
}

/** The YYYY-MM-DD of a UTC day number. */
export function dateOfDay(day: number): string {
  return new Date(day * dayMs).toISOString().slice(0, 10);
}

/** The team's findings by severity and status, and what was found and fixed each day of the last `windowDays`. */
export async function readFindingOverview(
  store: Pick<OverviewRepositories, 'overview'>,
  team: Team,
  now: Date,
  windowDays = overviewWindowDays,
): Promise<FindingOverview> {
  const today = Math.floor(now.getTime() / dayMs);
  const fromDay = today - windowDays + 1;
  const [counts, activity] = await Promise.all([
    store.overview.findingCounts(team.id),
    store.overview.findingDays(team.id, fromDay, today),
  ]);
  const bySeverity = new Map<Severity, number>();
  const byStatus = new Map<VulnerabilityStatus, number>();
  let total = 0;
  for (const c of counts) {
    total += c.n;
    byStatus.set(c.status, (byStatus.get(c.status) ?? 0) + c.n);
    if (openStatuses.includes(c.status)) bySeverity.set(c.severity, (bySeverity.get(c.severity) ?? 0) + c.n);
  }
  const active = new Map(activity.map((d) => [d.day, d]));
  const days: FindingOverview['days'] = [];
  for (let day = fromDay; day <= today; day++)
    days.push({ date: dateOfDay(day), created: active.get(day)?.created ?? 0, fixed: active.get(day)?.fixed ?? 0 });
  const statusOrder = [...openStatuses, ...vulnerabilityStatuses.filter((s) => !openStatuses.includes(s))];
  return {
    openBySeverity: [...severities].reverse().map((severity) => ({ severity, n: bySeverity.get(severity) ?? 0 })),
    byStatus: statusOrder.map((status) => ({
      status,
      n: byStatus.get(status) ?? 0,
      isOpen: openStatuses.includes(status),
    })),
    openTotal: openStatuses.reduce((sum, s) => sum + (byStatus.get(s) ?? 0), 0),
    total,
    days,
  };
}

/** The team's assets under surface monitoring (the count, and the first `limit` by name) and its open policy breaches. */
export async function readSurfaceOverview(
  store: OverviewRepositories,
  team: Team,
  limit: number,
): Promise<SurfaceOverview> {
  const [monitoredCount, monitored, openBreaches] = await Promise.all([
    store.assets.countMonitored(team.id),
    store.overview.monitoredAssets(team.id, limit),
    store.overview.countOpenBreaches(team.id),
  ]);
  return { monitoredCount, monitored, openBreaches };
}
