import { appError } from '../../../core/errors/app-error.ts';
import { scanEstimateOf } from '../../../core/scans/scan-estimate.ts';
import { requireProfile } from '../../../core/scans/scan-profile.service.ts';
import { isLive, type Scan, type ScanProfile } from '../../../core/scans/scan.types.ts';
import { isToken } from '../../../core/shared/ids.ts';
import type { ConsoleContext } from '../console-route.ts';
import { html, type Html } from '../html.ts';

/**
 * What the scan pages share: the profile a path's token names for the signed-in member's team,
 * the paths of the pages, and how a scan's status, times and durations show.
 */

/**
 * The profile the path's `token` names for the member's team (the core's requireProfile). A
 * malformed token answers the same not-found page as an unknown one or another team's (2604):
 * the API's 2601 would be a 400, which tells a malformed id from an unknown one.
 */
export async function profileOf(ctx: ConsoleContext): Promise<ScanProfile> {
  const token = ctx.params['token'] ?? '';
  if (!isToken(token)) throw appError(2604, 'Scan profile does not exist', ['scanProfileToken']);
  return requireProfile(ctx.deps.store, ctx.signedIn.team, token);
}

/** The console path of a scan profile (and of its sub-pages). */
export function profilePath(token: string, rest = ''): string {
  return `/scans/${token}${rest}`;
}

/** The console path of one report (a finished scan) of a profile. */
export function reportPath(profileToken: string, reportToken: string): string {
  return `/scans/${profileToken}/reports/${reportToken}`;
}

/** How each status reads for people. */
const statusLabels: Record<Scan['status'], string> = {
  starting: 'starting',
  running: 'running',
  stopping: 'stopping',
  stopped: 'stopped',
  completed: 'completed',
  unable_to_resolve: 'unable to resolve',
  unable_to_complete: 'unable to complete',
};

/** A scan's status in words (`never` for a profile never scanned). */
export function scanStatusLabel(status: Scan['status'] | 'never'): string {
  return status === 'never' ? 'never scanned' : statusLabels[status];
}

/** A scan's status as a badge (`data-scan-status` lets the page's script update it). */
export function scanStatusBadge(status: Scan['status'] | 'never', live = false): Html {
  return html`<span class="status status-scan-${status}"${live ? html` data-scan-status` : ''}>${scanStatusLabel(status)}</span>`;
}

/** A duration for people: `45 s`, `3 min 20 s`, `2 h 5 min`. */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 === 0 ? '' : ` ${s % 60} s`}`;
  const minutes = Math.floor((s % 3600) / 60);
  return `${Math.floor(s / 3600)} h${minutes === 0 ? '' : ` ${minutes} min`}`;
}

/** How long a finished scan ran (from its start, else its creation, to its end). */
export function scanDuration(scan: Scan): string {
  if (scan.ended === null) return '';
  const from = scan.started ?? scan.created;
  return durationText((scan.ended.getTime() - from.getTime()) / 1000);
}

/** The findings of a scan per severity, most severe first, as short text (`2 high, 1 low`), or `none`. */
export function countsText(scan: Scan): string {
  const order = ['critical', 'high', 'medium', 'low', 'information'] as const;
  const parts = order.filter((s) => (scan.counts[s] ?? 0) > 0).map((s) => `${scan.counts[s]} ${s}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** The time-left text of a scan: what the page shows and the script writes alike. */
function etaText(scan: Scan, secondsLeft: number | null): string {
  if (scan.status === 'starting') return 'Waiting for a worker.';
  if (scan.status === 'stopping') return 'Stopping.';
  if (scan.status !== 'running') return '';
  return secondsLeft === null ? 'Estimating the time left.' : `About ${durationText(secondsLeft)} left.`;
}

/** Where a scan stands: whether it is live, its estimate, the time-left text, its report once it ended. */
export interface ScanProgress {
  live: boolean;
  /** scanEstimateOf's percentage, which never goes down. */
  percentage: number;
  secondsLeft: number | null;
  eta: string;
  /** The report's console path, null while the scan is live. */
  reportUrl: string | null;
}

/**
 * Where a scan of the profile stands now: the profile page renders it first and status.json
 * answers it to the page's script after, so both read the same values.
 */
export function scanProgressOf(profileToken: string, scan: Scan, now: Date): ScanProgress {
  const live = isLive(scan.status);
  const { percentage, secondsLeft } = scanEstimateOf(scan, now);
  return {
    live,
    percentage,
    secondsLeft,
    eta: etaText(scan, secondsLeft),
    reportUrl: live ? null : reportPath(profileToken, scan.token),
  };
}
