import type { Scan } from './scan.types.ts';

/** How far a scan is, for people watching it: the v2 scan status and the console show the same. */
export interface ScanEstimate {
  /** Whole percent of the work done, 0 to 100: 100 only once the scan completed, and it never goes down. */
  percentage: number;
  /** Seconds until the scan should end, at the rate of its current run; null while there is too little to judge. */
  secondsLeft: number | null;
}

/** Below this share of its work done, a run's rate says too little about the rest. */
const minRunFraction = 0.02;

/** Nor before it has run this long (the first pages and the setup are no guide). */
const minRunSeconds = 3;

/**
 * The percentage and time left of a scan at `now`. The percentage is the saved fraction (which
 * the runner never lets decrease, resumes included), floored, and held at 99 until the scan
 * completes; a scan that ended otherwise keeps where it stopped. The time left divides the work
 * left by the current run's recent pace (its own fraction since a point some seconds before the
 * last save, else since it started: the work of a scan speeds up and slows down), minus the time
 * since that save, and never past the run's duration limit. Only a running scan has one, once
 * its run did enough to judge; a completed scan has 0 left.
 */
export function scanEstimateOf(scan: Scan, now: Date): ScanEstimate {
  if (scan.status === 'completed') return { percentage: 100, secondsLeft: 0 };
  const fraction = Number.isFinite(scan.progress.fraction) ? scan.progress.fraction : 0;
  const percentage = Math.min(99, Math.max(0, Math.floor(fraction * 100)));
  return { percentage, secondsLeft: scan.status === 'running' ? secondsLeftOf(scan, now) : null };
}

/** The running scan's time left at `now`, or null while its run did too little (or too briefly) to judge. */
function secondsLeftOf(scan: Scan, now: Date): number | null {
  const { run } = scan.progress;
  const measured = scan.heartbeat;
  if (run === null || measured === null || !Number.isFinite(run.fraction)) return null;
  const elapsed = (measured.getTime() - run.started.getTime()) / 1000;
  if (run.fraction < minRunFraction || elapsed < minRunSeconds) return null;
  const done = Math.min(1, run.fraction);
  const recent = (measured.getTime() - run.since.at.getTime()) / 1000;
  const moved = done - run.since.fraction;
  // No move since the recent point (or no recent point): the whole run's pace.
  const perSecond = recent >= 1 && moved > 0 ? moved / recent : done / elapsed;
  const atPace = (1 - done) / perSecond - Math.max(0, (now.getTime() - measured.getTime()) / 1000);
  // The duration limit ends the run (completed, with what it crawled) however much is left.
  const left = run.deadline === null ? atPace : Math.min(atPace, (run.deadline.getTime() - now.getTime()) / 1000);
  // Whole seconds up, past float noise (0.3 / 0.1 is 2.9999…); a scan still running has at least one left.
  return Math.max(1, Math.ceil(Math.round(left * 1000) / 1000));
}
