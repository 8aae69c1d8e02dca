import type { Asset } from '../assets/asset.types.ts';
import { isLive, type Scan, type ScanProfile, type ScanStore } from '../scans/scan.types.ts';
import type { Team } from '../teams/team.types.ts';
import type { FindingRecordQuery } from '../vulnerabilities/vulnerability.repository.ts';
import type { VulnerabilityRecord } from '../vulnerabilities/vulnerability.types.ts';

/**
 * Reports of a scan and of an asset, for people: what a scan (or an asset's latest scans) found,
 * and what changed since the scan before it. This module gathers the records; the faces render
 * them (HTML, PDF). Tokens of another team read as unknown: every lookup is scoped to the team.
 */

/** Most findings a report lists; its counts always cover all of them. */
export const reportFindingCap = 2000;
/** Rows read per query while a report is collected. */
const chunkSize = 250;

/** What changed between the reported scan and the scan of the same profile before it. */
export interface ReportChanges {
  /** The scan the changes are measured from; undefined when the reported scan is the profile's first. */
  previous: Scan | undefined;
  /** Seen by this scan, first recorded after the previous one started. */
  fresh: VulnerabilityRecord[];
  /** Seen by this scan and recorded before the previous one, which did not see them: they came back. */
  regressed: VulnerabilityRecord[];
  /** Seen by the previous scan and not by this one (only when this one completed: an interrupted scan patches nothing). */
  patched: VulnerabilityRecord[];
}

/** Everything a report shows. */
export interface ReportData {
  kind: 'scan' | 'asset';
  team: Team;
  /** The asset reported (asset report) or the profile's asset (scan report; undefined if gone). */
  asset: Asset | undefined;
  /** The reported scan (scan report) or the asset's latest finished scan (asset report). */
  scan: Scan | undefined;
  profile: ScanProfile | undefined;
  /** The findings listed: a scan's findings, or an asset's open ones, in the order first recorded. */
  findings: VulnerabilityRecord[];
  /** More findings exist than listed (see reportFindingCap). */
  isTruncated: boolean;
  /** Asset report: findings of the asset no longer open (patched, accepted risk, false positive), not listed. */
  closed: number;
  changes: ReportChanges | undefined;
  generated: Date;
}

/** Findings are open while a scanner still sees them and nobody closed them by hand. */
function isOpen(record: VulnerabilityRecord): boolean {
  return record.status === 'new' || record.status === 'active' || record.status === 'regression';
}

/** Every finding of the scope up to the cap, read chunk by chunk in id order. */
async function collect(
  store: ScanStore,
  team: Team,
  scope: FindingRecordQuery['scope'],
  keep: (r: VulnerabilityRecord) => boolean = () => true,
): Promise<{ records: VulnerabilityRecord[]; isTruncated: boolean; skipped: number }> {
  const records: VulnerabilityRecord[] = [];
  let afterId: number | undefined;
  let skipped = 0;
  for (;;) {
    const rows = await store.vulnerabilities.listFindingRecords({ teamId: team.id, scope, afterId, limit: chunkSize });
    for (const row of rows) {
      if (!keep(row)) skipped += 1;
      else if (records.length < reportFindingCap) records.push(row);
      else return { records, isTruncated: true, skipped };
    }
    if (rows.length < chunkSize) return { records, isTruncated: false, skipped };
    afterId = rows[rows.length - 1]!.id;
  }
}

/** The finished scan of the same profile before this one, if any. */
async function previousScan(store: ScanStore, team: Team, scan: Scan): Promise<Scan | undefined> {
  const earlier = await store.scans.listFinished(team.id, scan.profileId, { createdTo: scan.created, limit: 20 });
  return earlier.find((s) => s.id < scan.id);
}

/** What changed from the previous scan of the profile to this one (findings: this scan's). */
async function changesOf(
  store: ScanStore,
  team: Team,
  scan: Scan,
  findings: VulnerabilityRecord[],
): Promise<ReportChanges> {
  const previous = await previousScan(store, team, scan);
  if (previous === undefined) return { previous, fresh: [...findings], regressed: [], patched: [] };
  const before = (await collect(store, team, { scanId: previous.id })).records;
  const seenBefore = new Set(before.map((r) => r.id));
  const seenNow = new Set(findings.map((r) => r.id));
  const appeared = findings.filter((r) => !seenBefore.has(r.id));
  return {
    previous,
    fresh: appeared.filter((r) => r.createdAt.getTime() >= previous.created.getTime()),
    regressed: appeared.filter((r) => r.createdAt.getTime() < previous.created.getTime()),
    patched: scan.status === 'completed' ? before.filter((r) => !seenNow.has(r.id)) : [],
  };
}

/**
 * The report of one finished scan, by its (report) token: its findings and the changes since the
 * profile's scan before it. Undefined when the team has no finished scan of that token (an
 * unknown token, another team's, a malformed one and a scan still live answer alike).
 */
export async function scanReport(
  store: ScanStore,
  team: Team,
  token: string,
  now: Date,
): Promise<ReportData | undefined> {
  if (!/^[0-9a-f]{32}$/.test(token)) return undefined;
  const scan = await store.scans.findByToken(team.id, token);
  if (scan === undefined || isLive(scan.status)) return undefined;
  const profile = await store.scanProfiles.findById(team.id, scan.profileId);
  const asset = profile === undefined ? undefined : await store.assets.findById(team.id, profile.assetId);
  const { records, isTruncated } = await collect(store, team, { scanId: scan.id });
  return {
    kind: 'scan',
    team,
    asset,
    scan,
    profile,
    findings: records,
    isTruncated,
    closed: 0,
    changes: await changesOf(store, team, scan, records),
    generated: now,
  };
}

/**
 * The report of one asset (and its subdomain assets), by its token: its open findings, and the
 * changes its latest finished scan (of any of its profiles) made since that profile's scan before.
 * Undefined when the team has no asset of that token.
 */
export async function assetReport(
  store: ScanStore,
  team: Team,
  token: string,
  now: Date,
): Promise<ReportData | undefined> {
  if (!/^[0-9a-f]{32}$/.test(token)) return undefined;
  const asset = await store.assets.findByToken(team.id, token);
  if (asset === undefined) return undefined;
  const { records, isTruncated, skipped } = await collect(store, team, { assetTreeOf: asset.id }, isOpen);
  const profiles = await store.scanProfiles.list(team.id, asset.id);
  let latest: { scan: Scan; profile: ScanProfile } | undefined;
  for (const profile of profiles) {
    const [scan] = await store.scans.listFinished(team.id, profile.id, { limit: 1 });
    if (scan !== undefined && (latest === undefined || scan.created > latest.scan.created)) latest = { scan, profile };
  }
  let changes: ReportChanges | undefined;
  if (latest !== undefined) {
    const seen = (await collect(store, team, { scanId: latest.scan.id })).records;
    changes = await changesOf(store, team, latest.scan, seen);
  }
  return {
    kind: 'asset',
    team,
    asset,
    scan: latest?.scan,
    profile: latest?.profile,
    findings: records,
    isTruncated,
    closed: skipped,
    changes,
    generated: now,
  };
}
