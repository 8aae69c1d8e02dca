import type { Asset } from '../assets/asset.types.ts';
import { appError } from '../errors/app-error.ts';
import type { MarkerCodec } from '../shared/marker.ts';
import type { Team } from '../teams/team.types.ts';
import type { FindingRecordQuery } from '../vulnerabilities/vulnerability.repository.ts';
import type { Severity, VulnerabilityRecord } from '../vulnerabilities/vulnerability.types.ts';
import type { ScanStore } from '../scans/scan.types.ts';
import type { LegacyDeps } from './legacy.types.ts';

/**
 * The older v2 reads of findings ("a finding is a vulnerability"): the vulnerabilities of a
 * domain (a root asset and its subdomain assets) and of one report (a finished scan). Every
 * read is a keyset page in vulnerability id order; bare-array answers stop at a cap.
 */

/** Most old findings in one bare-array answer (the paginated read has no such limit). */
export const legacyFindingCap = 1000;
/** Most items (domains, subdomains, finding UUIDs, reports) in one bare-array answer. */
export const legacyListCap = 10_000;
/** Rows read per query while a bare array is collected. */
const chunkSize = 250;

/** Filters of the older finding reads; `from`/`to` bound the last detection, inclusive. */
export interface FindingFilter {
  severities?: Severity[];
  from?: Date;
  to?: Date;
}

/** The asset a finding hangs on, as the older finding names it. */
export interface FindingAsset {
  uuid: string;
  kind: Asset['kind'];
  /** The token of the domain (root asset) the finding's asset belongs to. */
  domainToken: string;
}

/** Findings with the assets they hang on. */
export interface FindingSet {
  records: VulnerabilityRecord[];
  assets: Map<number, FindingAsset>;
}

/** Which findings a read covers: an asset tree, a report, or nothing (a discovered name has none). */
export type FindingScope = FindingRecordQuery['scope'] | undefined;

function recordQuery(
  team: Team,
  scope: NonNullable<FindingScope>,
  filter: FindingFilter,
  afterId: number | undefined,
  limit: number,
): FindingRecordQuery {
  return {
    teamId: team.id,
    scope,
    ...(filter.severities === undefined ? {} : { severities: filter.severities }),
    ...(filter.from === undefined ? {} : { updatedFrom: filter.from }),
    ...(filter.to === undefined ? {} : { updatedTo: filter.to }),
    afterId,
    limit,
  };
}

/** Resolves the assets of the records (each asset and root read once per call). */
export async function findingAssets(
  store: ScanStore,
  team: Team,
  records: VulnerabilityRecord[],
): Promise<Map<number, FindingAsset>> {
  const out = new Map<number, FindingAsset>();
  const tokens = new Map<number, string>();
  for (const record of records) {
    if (out.has(record.assetId)) continue;
    const asset = await store.assets.findById(team.id, record.assetId);
    if (asset === undefined) continue;
    let domainToken = asset.token;
    if (!asset.isRoot && asset.rootId !== null) {
      domainToken =
        tokens.get(asset.rootId) ?? (await store.assets.findById(team.id, asset.rootId))?.token ?? asset.token;
      tokens.set(asset.rootId, domainToken);
    }
    out.set(asset.id, { uuid: asset.uuid, kind: asset.kind, domainToken });
  }
  return out;
}

/** The findings of a domain token: its asset tree; a discovered name has none (2011, 2014). */
export async function domainScope({ store, ports }: LegacyDeps, team: Team, token: string): Promise<FindingScope> {
  const target = await ports.assets.requireTokenTarget(store, team, token);
  return target.asset === undefined ? undefined : { assetTreeOf: target.asset.id };
}

async function readPage(
  store: ScanStore,
  team: Team,
  scope: FindingScope,
  filter: FindingFilter,
  afterId: number | undefined,
  size: number,
) {
  if (scope === undefined) return { records: [], hasMore: false };
  const rows = await store.vulnerabilities.listFindingRecords(recordQuery(team, scope, filter, afterId, size + 1));
  return { records: rows.slice(0, size), hasMore: rows.length > size };
}

/**
 * One keyset page of a domain's findings. Markers are bound to the team and the domain: another
 * domain's, another team's or a forged one is 4150. `nextMarker` is absent on the last page.
 */
export async function pageDomainFindings(
  deps: LegacyDeps,
  markers: MarkerCodec,
  team: Team,
  token: string,
  filter: FindingFilter,
  page: { marker: string | undefined; size: number },
): Promise<FindingSet & { nextMarker: string | undefined }> {
  const { store } = deps;
  const scope = await domainScope(deps, team, token);
  const markerScope = `legacy-findings:${scope !== undefined && 'assetTreeOf' in scope ? scope.assetTreeOf : 'none'}`;
  const position = markers.decode(team.id, markerScope, page.marker);
  if (position !== undefined && (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 1))
    throw appError(4150, 'marker is not a marker of this listing', ['marker']);
  const { records, hasMore } = await readPage(store, team, scope, filter, position, page.size);
  const last = records[records.length - 1];
  return {
    records,
    assets: await findingAssets(store, team, records),
    nextMarker: hasMore && last !== undefined ? markers.encode(team.id, markerScope, last.id) : undefined,
  };
}

/** Every finding of the scope up to `cap`, read chunk by chunk; `isTruncated` when more exist. */
export async function collectFindings(
  store: ScanStore,
  team: Team,
  scope: FindingScope,
  filter: FindingFilter,
  cap = legacyFindingCap,
): Promise<FindingSet & { isTruncated: boolean }> {
  const records: VulnerabilityRecord[] = [];
  let afterId: number | undefined;
  let isTruncated = false;
  for (;;) {
    const page = await readPage(store, team, scope, filter, afterId, Math.min(chunkSize, cap - records.length));
    records.push(...page.records);
    if (!page.hasMore) break;
    if (records.length >= cap) {
      isTruncated = true;
      break;
    }
    afterId = records[records.length - 1]!.id;
  }
  return { records, assets: await findingAssets(store, team, records), isTruncated };
}

/** The UUIDs of the scope's findings up to `cap`; `isTruncated` when more exist. */
export async function collectFindingUuids(
  store: ScanStore,
  team: Team,
  scope: FindingScope,
  filter: FindingFilter,
  cap = legacyListCap,
): Promise<{ uuids: string[]; isTruncated: boolean }> {
  if (scope === undefined) return { uuids: [], isTruncated: false };
  const uuids: string[] = [];
  let afterId: number | undefined;
  for (;;) {
    const size = Math.min(chunkSize * 8, cap - uuids.length);
    const rows = await store.vulnerabilities.listFindingUuids(recordQuery(team, scope, filter, afterId, size + 1));
    uuids.push(...rows.slice(0, size).map((r) => r.uuid));
    if (rows.length <= size) return { uuids, isTruncated: false };
    if (uuids.length >= cap) return { uuids, isTruncated: true };
    afterId = rows[size - 1]!.id;
  }
}

/**
 * One finding of a domain: 4111 for a malformed UUID (read, and checked, once the domain is
 * found), 1900 when the team has no such vulnerability or it hangs on another domain.
 */
export async function getDomainFinding(
  deps: LegacyDeps,
  team: Team,
  token: string,
  uuidOf: () => string,
): Promise<FindingSet> {
  const { store, ports } = deps;
  const scope = await domainScope(deps, team, token);
  const uuid = uuidOf();
  const record = await ports.vulnerabilities.requireVulnerability(store, team, uuid);
  const asset = await store.assets.findById(team.id, record.assetId);
  const rootId = scope !== undefined && 'assetTreeOf' in scope ? scope.assetTreeOf : undefined;
  if (rootId === undefined || asset === undefined || (asset.id !== rootId && asset.rootId !== rootId)) {
    throw appError(1900, `Vulnerability ${uuid} does not exist on this domain`, ['uuid']);
  }
  return { records: [record], assets: await findingAssets(store, team, [record]) };
}
