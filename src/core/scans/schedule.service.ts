import { appError, isAppError, type AppError } from '../errors/app-error.ts';
import { parseTimeParameter } from '../shared/time.ts';
import type { Team } from '../teams/team.types.ts';
import { requireProfile } from './scan-profile.service.ts';
import { createLiveScan, dispatchScan, type ScanDeps } from './scan.service.ts';
import { scheduleFrequencies, type Scan, type ScanProfile, type ScheduleFrequency } from './scan.types.ts';

const dayMs = 24 * 3600 * 1000;
const fixedPeriods: Partial<Record<ScheduleFrequency, number>> = {
  daily: dayMs,
  weekly: 7 * dayMs,
  biweekly: 14 * dayMs,
};

/** The n-th occurrence of a recurring schedule (n = 0 is the first scan); months are calendar months in UTC. */
export function occurrence(frequency: ScheduleFrequency, first: Date, n: number): Date {
  const period = fixedPeriods[frequency];
  if (period !== undefined) return new Date(first.getTime() + n * period);
  if (frequency !== 'monthly') return first;
  const month = first.getUTCMonth() + n;
  const target = new Date(
    Date.UTC(
      first.getUTCFullYear(),
      month,
      1,
      first.getUTCHours(),
      first.getUTCMinutes(),
      first.getUTCSeconds(),
      first.getUTCMilliseconds(),
    ),
  );
  // The 31st falls on the last day of shorter months.
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(first.getUTCDate(), lastDay));
  return target;
}

/** The first occurrence strictly after `after` (recurring), or undefined for once/never. */
export function nextOccurrence(frequency: ScheduleFrequency, first: Date, after: Date): Date | undefined {
  if (frequency === 'never' || frequency === 'once') return undefined;
  if (first.getTime() > after.getTime()) return first;
  const period = fixedPeriods[frequency] ?? 28 * dayMs;
  let n = Math.max(0, Math.floor((after.getTime() - first.getTime()) / period) - 1);
  while (occurrence(frequency, first, n).getTime() <= after.getTime()) n++;
  return occurrence(frequency, first, n);
}

/** The schedule of a profile. */
export async function getSchedule(deps: Pick<ScanDeps, 'store'>, team: Team, token: string): Promise<ScanProfile> {
  return requireProfile(deps.store, team, token);
}

/** A schedule as set: one of the six frequencies, and when the first scan runs (a time in any v2 form; none, null or '' is now). */
export interface ScheduleInput {
  frequency: ScheduleFrequency;
  start?: string | number | null;
}

/** 5066: a frequency that is not one of the six. */
export function malformedFrequency(frequency: unknown): AppError {
  return appError(
    5066,
    `Scan frequency malformed: ${JSON.stringify(frequency)}; one of ${scheduleFrequencies.join(', ')}`,
    ['frequency'],
  );
}

/** 1085: a start that is not a time (the message of the time rule for a number it cannot read). */
export function malformedStart(start: unknown): AppError {
  if (typeof start === 'number') {
    try {
      parseTimeParameter('start', String(start));
    } catch (err) {
      if (isAppError(err)) return err;
      throw err;
    }
  }
  return appError(1085, 'start must be a date-time such as 2026-12-01T08:00:00Z', ['start']);
}

/**
 * Sets (overwrites) the schedule once the profile is found: `input` answers the body's field
 * errors (5066 for the frequency, 1085 for the start) after the profile's (2601, 2604), then
 * gives the schedule. The start is the current time when absent, so the first scan runs now; a
 * start in the past fires at its next occurrence from now, `once` right away. Setting `never`
 * removes the schedule.
 */
export async function setSchedule(
  deps: Pick<ScanDeps, 'store'>,
  team: Team,
  token: string,
  input: () => ScheduleInput,
  now = new Date(),
): Promise<ScanProfile> {
  const profile = await requireProfile(deps.store, team, token);
  const { frequency, start } = input();
  const first =
    start === undefined || start === null || start === '' ? now : parseTimeParameter('start', String(start));
  let schedule: ScanProfile['schedule'];
  if (frequency === 'never') schedule = { frequency, first: null, next: null };
  else {
    const isFuture = first.getTime() >= now.getTime();
    schedule = {
      frequency,
      first,
      next: isFuture ? first : frequency === 'once' ? now : nextOccurrence(frequency, first, now)!,
    };
  }
  await deps.store.scanProfiles.setSchedule(team.id, profile.id, schedule, now);
  return { ...profile, schedule };
}

/** Removes the schedule; it reads `never` afterwards. */
export async function removeSchedule(deps: Pick<ScanDeps, 'store'>, team: Team, token: string): Promise<ScanProfile> {
  const profile = await requireProfile(deps.store, team, token);
  const schedule: ScanProfile['schedule'] = { frequency: 'never', first: null, next: null };
  await deps.store.scanProfiles.setSchedule(team.id, profile.id, schedule, new Date());
  return { ...profile, schedule };
}

/** What one round of the scheduler did. */
export interface FireResult {
  started: Scan[];
  /** Fires skipped because a scan was live (a warning on it says so) or the profile cannot be scanned. */
  skipped: Array<{ profileToken: string; reason: string }>;
}

/**
 * Fires every due schedule once. Each fire is claimed by moving `next_scan` on with a
 * compare-and-set in the same transaction that creates the scan, so among several schedulers
 * exactly one fires it, and a fire whose scan cannot be created is not lost to a crash. A fire
 * missed while no scheduler ran fires once; `next_scan` moves to the first occurrence after now.
 */
export async function fireDueSchedules(deps: ScanDeps, now = new Date(), limit = 100): Promise<FireResult> {
  const result: FireResult = { started: [], skipped: [] };
  for (const profile of await deps.store.scanProfiles.dueSchedules(now, limit)) {
    const due = profile.schedule.next!;
    const after = new Date(Math.max(now.getTime(), due.getTime()));
    const following =
      profile.schedule.first === null
        ? undefined
        : nextOccurrence(profile.schedule.frequency, profile.schedule.first, after);
    const next =
      following === undefined
        ? { frequency: 'never' as const, next: null }
        : { frequency: profile.schedule.frequency, next: following };
    const outcome = await deps.store.transaction(async (tx): Promise<Scan | string | undefined> => {
      if (!(await tx.scanProfiles.advanceSchedule(profile.id, due, next))) return undefined;
      try {
        return await createLiveScan(tx, profile, 'schedule');
      } catch (err) {
        if (!isAppError(err)) throw err;
        if (err.code === 5009) {
          const live = await tx.scans.findLive(profile.teamId, profile.id);
          if (live !== undefined)
            await tx.scans.addWarning(
              live.id,
              `The scheduled scan due at ${due.toISOString()} was skipped: this scan was still running`,
            );
        }
        return err.message;
      }
    });
    if (outcome === undefined) continue;
    if (typeof outcome === 'string') result.skipped.push({ profileToken: profile.token, reason: outcome });
    else result.started.push(await dispatchScan(deps, outcome));
  }
  return result;
}
