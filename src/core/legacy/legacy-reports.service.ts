import { appError, type AppError } from '../errors/app-error.ts';
import { isLive, type Scan, type ScanProfile } from '../scans/scan.types.ts';
import type { Team } from '../teams/team.types.ts';
import { findingAssets, legacyListCap, type FindingSet } from './legacy-findings.service.ts';
import type { LegacyDeps } from './legacy.types.ts';

/**
 * The older v2 reads of reports: a report is one finished scan of a scan profile (a scan is a
 * report once it has ended, whatever its outcome). A live scan is not a report yet.
 */

/** A report with its profile. */
export interface Report {
  profile: ScanProfile;
  scan: Scan;
}

/** The profile's latest report: 2601 / 2604 for the token, 2604 when no scan of it has ended yet. */
export async function latestReport({ store, ports }: LegacyDeps, team: Team, profileToken: string): Promise<Report> {
  const profile = await ports.profiles.requireProfile(store, team, profileToken);
  const [scan] = await store.scans.listFinished(team.id, profile.id, { limit: 1 });
  if (scan === undefined)
    throw appError(2604, 'Scan profile has no report yet: a report is written when a scan of the profile ends', [
      'scanProfileToken',
    ]);
  return { profile, scan };
}

/** The profile's reports, newest first, created within the inclusive range; at most `cap`. */
export async function listReports(
  { store, ports }: LegacyDeps,
  team: Team,
  profileToken: string,
  range: { from?: Date; to?: Date },
  cap = legacyListCap,
): Promise<{ profile: ScanProfile; scans: Scan[]; isTruncated: boolean }> {
  const profile = await ports.profiles.requireProfile(store, team, profileToken);
  const scans = await store.scans.listFinished(team.id, profile.id, {
    ...(range.from === undefined ? {} : { createdFrom: range.from }),
    ...(range.to === undefined ? {} : { createdTo: range.to }),
    limit: cap + 1,
  });
  return { profile, scans: scans.slice(0, cap), isTruncated: scans.length > cap };
}

/** 2601: a report token that is not a token (the path's `reportToken`). */
export function malformedReportToken(): AppError {
  return appError(2601, 'Report token malformed: a token is 32 lowercase hexadecimal characters', ['reportToken']);
}

/**
 * One report of a profile: 2604 when the profile has no such (finished) report. The report's
 * token is read (checked, 2601) once the profile is found.
 */
export async function requireReport(
  { store, ports }: LegacyDeps,
  team: Team,
  profileToken: string,
  reportToken: () => string,
): Promise<Report> {
  const profile = await ports.profiles.requireProfile(store, team, profileToken);
  const scan = await store.scans.findByToken(team.id, reportToken());
  if (scan === undefined || scan.profileId !== profile.id || isLive(scan.status))
    throw appError(2604, 'Report does not exist for this scan profile', ['reportToken']);
  return { profile, scan };
}

/**
 * One finding of a report: 4111 for a malformed UUID, 1900 when the report did not see it. The
 * report's token and the UUID are read (checked) in turn, after the lookups before them.
 */
export async function getReportFinding(
  deps: LegacyDeps,
  team: Team,
  profileToken: string,
  reportToken: () => string,
  uuidOf: () => string,
): Promise<Report & FindingSet> {
  const { store, ports } = deps;
  const report = await requireReport(deps, team, profileToken, reportToken);
  const uuid = uuidOf();
  const record = await ports.vulnerabilities.requireVulnerability(store, team, uuid);
  if (!(await store.scans.hasFinding(report.scan.id, record.id)))
    throw appError(1900, `Vulnerability ${uuid} is not a finding of this report`, ['uuid']);
  return { ...report, records: [record], assets: await findingAssets(store, team, [record]) };
}
