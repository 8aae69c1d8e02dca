import type { ProfileView } from '../../core/scans/scan-profile.service.ts';
import type { Scan, ScanProfile } from '../../core/scans/scan.types.ts';
import { isLive } from '../../core/scans/scan.types.ts';
import { scanEstimateOf } from '../../core/scans/scan-estimate.ts';
import { toWireTime } from '../../core/shared/time.ts';

function times(scan: Scan): Record<string, string> {
  const out: Record<string, string> = {};
  if (scan.started !== null) out['started'] = toWireTime(scan.started);
  if (scan.ended !== null) out['ended'] = toWireTime(scan.ended);
  return out;
}

/** A scan as the profile's latest_scan. */
export function presentLatestScan(scan: Scan) {
  return { ...times(scan), status: scan.status, error: scan.error ?? '', warnings: scan.warnings };
}

/** The v2 wire form of a profile. */
export function presentProfile(view: ProfileView) {
  const { profile, latest } = view;
  return {
    token: profile.token,
    name: profile.name,
    endpoint: profile.endpoint,
    created: toWireTime(profile.created),
    ...(latest === undefined ? {} : { latest_scan: presentLatestScan(latest) }),
  };
}

/** The v2 scan status, with the fields older clients read, the progress counters and the estimate at `now`. */
export function presentScanStatus(profile: Pick<ScanProfile, 'token'>, scan: Scan, now = new Date()) {
  const estimate = scanEstimateOf(scan, now);
  const state = isLive(scan.status) ? scan.status : 'stopped';
  const phase =
    scan.status === 'starting'
      ? 'queued'
      : scan.status === 'running'
        ? 'scanning'
        : scan.status === 'stopping'
          ? 'stopping'
          : 'finished';
  return {
    scan_profile_token: profile.token,
    created: toWireTime(scan.created),
    ...times(scan),
    status: scan.status,
    error: scan.error ?? '',
    warnings: scan.warnings,
    state,
    phase,
    progress: {
      pages_crawled: scan.progress.pagesCrawled,
      requests_sent: scan.progress.requestsSent,
      checks_done: scan.progress.checksDone,
      findings: scan.progress.findings,
      percentage: estimate.percentage,
      seconds_left: estimate.secondsLeft,
    },
  };
}

/** The v2 schedule of a profile. */
export function presentSchedule(profile: ScanProfile) {
  const { schedule } = profile;
  return {
    scan_profile_token: profile.token,
    frequency: schedule.frequency,
    ...(schedule.first === null || schedule.frequency === 'never' ? {} : { first_scan: toWireTime(schedule.first) }),
    ...(schedule.next === null || schedule.frequency === 'never' ? {} : { next_scan: toWireTime(schedule.next) }),
  };
}

/** Settings as read back: basic_auth, session_cookie and login only when set (shown as given). */
export function presentProfileSettings(settings: ScanProfile['settings']) {
  const { basic_auth, session_cookie, login, ...rest } = settings;
  return {
    ...(basic_auth === null ? {} : { basic_auth }),
    ...rest,
    ...(session_cookie === null ? {} : { session_cookie }),
    ...(login === null ? {} : { login }),
  };
}
