import type { Asset } from '../assets/asset.types.ts';
import type { NewEvent } from '../events/event.types.ts';
import { toWireTime } from '../shared/time.ts';
import type { FindingTotals, Scan, ScanEnd, ScanProfile, ScanRepositories, ScanStore } from './scan.types.ts';

/**
 * The scan events of the team event log (core/events: the catalogue lists their fields):
 * `scan.started` when a scan's first run claims it (a resume after a restart is no new start),
 * then exactly one of `scan.completed` (also when a member stopped it: `stopped` true) or
 * `scan.failed` when it ends, each in the transaction of that change. A scan that never ran (stopped
 * while queued) logs nothing.
 */

/** What a scan event names: the scan, its profile and the profile's asset. */
export interface ScanEventSubject {
  scan: Pick<Scan, 'teamId' | 'token' | 'started'>;
  profile: Pick<ScanProfile, 'token'>;
  asset: Pick<Asset, 'id' | 'token' | 'name' | 'rootId'>;
}

/** The fields every scan event carries. */
function scanData({ scan, profile, asset }: ScanEventSubject, at: Date): Record<string, unknown> {
  return {
    scan_token: scan.token,
    scan_profile_token: profile.token,
    asset_token: asset.token,
    asset_name: asset.name,
    started_at: toWireTime(scan.started ?? at),
  };
}

function scanEvent(
  subject: ScanEventSubject,
  kind: NewEvent['kind'],
  at: Date,
  data: Record<string, unknown>,
): NewEvent {
  return {
    teamId: subject.scan.teamId,
    kind,
    occurredAt: at,
    assetId: subject.asset.rootId ?? subject.asset.id,
    data: { ...scanData(subject, at), ...data },
  };
}

/** `scan.started`: the scan's first run claimed it. */
export function scanStartedEvent(subject: ScanEventSubject, at: Date): NewEvent {
  return scanEvent(subject, 'scan.started', at, {});
}

/**
 * The event of a scan's end: `scan.completed` (completed, or stopped by a member) with the
 * findings it reported and what its ingestion changed (`totals`; null where the run that
 * counted them is gone: a scan ended by the reconciler or found stopping after its worker
 * died), or `scan.failed` with its error.
 */
export function scanEndEvent(subject: ScanEventSubject, end: ScanEnd, totals: FindingTotals | null): NewEvent {
  if (end.status === 'completed' || end.status === 'stopped') {
    return scanEvent(subject, 'scan.completed', end.ended, {
      completed_at: toWireTime(end.ended),
      stopped: end.status === 'stopped',
      findings: end.progress.findings,
      new: totals?.created ?? null,
      regressions: totals?.regressions ?? null,
      patched: totals?.patched ?? null,
    });
  }
  return scanEvent(subject, 'scan.failed', end.ended, {
    failed_at: toWireTime(end.ended),
    error:
      end.error ??
      (end.status === 'unable_to_resolve' ? 'The endpoint name has no address' : 'The scan could not complete'),
  });
}

/** The subject of a scan read in `repos`: undefined when its profile or the profile's asset is gone. */
export async function readScanSubject(
  repos: ScanRepositories,
  scan: Pick<Scan, 'teamId' | 'token' | 'started' | 'profileId'>,
): Promise<ScanEventSubject | undefined> {
  const profile = await repos.scanProfiles.findById(scan.teamId, scan.profileId);
  const asset = profile && (await repos.assets.findById(scan.teamId, profile.assetId));
  return profile === undefined || asset === undefined ? undefined : { scan, profile, asset };
}

/**
 * Ends a live scan and, in the same transaction, logs its end when it had started (a scan that
 * never ran logs nothing). `known` is its subject when the caller has it (read otherwise);
 * `totals` what its ingestion changed, when known. False when the scan was not live any more
 * (someone else ended it, and logged it).
 */
export async function finishScan(
  store: ScanStore,
  scan: Pick<Scan, 'id' | 'teamId' | 'token' | 'started' | 'profileId'>,
  end: ScanEnd,
  totals: FindingTotals | null,
  known?: Omit<ScanEventSubject, 'scan'>,
): Promise<boolean> {
  return store.transaction(async (tx) => {
    if (!(await tx.scans.finish(scan.id, end))) return false;
    if (scan.started === null) return true;
    const subject = known === undefined ? await readScanSubject(tx, scan) : { scan, ...known };
    if (subject !== undefined) await tx.events.append([scanEndEvent(subject, end, totals)]);
    return true;
  });
}
