import { appError, isAppError, type AppError } from '../errors/app-error.ts';
import { isToken, newToken, newUuid } from '../shared/ids.ts';
import type { MarkerCodec } from '../shared/marker.ts';
import { plans } from '../teams/plans.ts';
import type { Team } from '../teams/team.types.ts';
import { assetEvent } from './asset-events.ts';
import { ancestorsOf, parseAssetName, type AssetName } from './asset-name.ts';
import { decodeListPosition, positionOf } from './list-position.ts';
import {
  applyAssetSettings,
  assetSettingsUpdate,
  defaultAssetSettings,
  type AssetSettings,
  type AssetSettingsInput,
} from './asset-settings.ts';
import type {
  AddAssetResult,
  Asset,
  AssetListInput,
  AssetPage,
  AssetPageQuery,
  AssetRepositories,
  AssetStore,
  DiscoveredName,
  MonitoringSwitch,
  RootDomain,
  TokenTarget,
  ZoneSource,
} from './asset.types.ts';

/** 2011: an asset token path parameter that is not a token. */
export function malformedAssetToken(): AppError {
  return appError(2011, 'Domain token malformed: a token is 32 lowercase hexadecimal characters', ['token']);
}

/** Validates the shape of an asset token path parameter (2011). */
export function assertAssetToken(token: string): void {
  if (!isToken(token)) throw malformedAssetToken();
}

/**
 * What a token names for the team: an asset, or a discovered subdomain (as listings show it).
 * 2011 when malformed, 2014 when unknown or another team's.
 */
export async function requireTokenTarget(store: AssetRepositories, team: Team, token: string): Promise<TokenTarget> {
  assertAssetToken(token);
  const asset = await store.assets.findByToken(team.id, token);
  if (asset !== undefined) return { asset };
  const discovered = await store.zones.findByToken(team.id, token);
  if (discovered === undefined) throw appError(2014, 'Asset does not exist', ['token']);
  if (discovered.shadowed) {
    // The name became an asset: its discovered token now stands for that asset.
    const named = await store.assets.findByName(team.id, discovered.name);
    if (named !== undefined) return { asset: named };
  }
  return { discovered };
}

/**
 * Lists assets with keyset paging; markers are bound to the team and the listing. Listings that
 * include subdomains give the asset rows first (in id order), then the names discovered by DNS
 * that are not assets (in reversed-name order, so the names under a domain come together).
 */
export async function listAssets(
  store: AssetStore,
  markers: MarkerCodec,
  team: Team,
  input: AssetListInput,
): Promise<AssetPage> {
  let scope: AssetPageQuery['scope'];
  let scopeKey: string;
  // The discovered names that follow the asset rows: none, all of the team's, or one root's.
  let names: { under: RootDomain | undefined } | undefined;
  if (input.scope === 'roots' || input.scope === 'all') {
    scope = { kind: input.scope };
    scopeKey = `assets:${input.scope}:${input.createdAfter?.getTime() ?? ''}`;
    if (input.scope === 'all') names = { under: undefined };
  } else {
    const target = await requireTokenTarget(store, team, input.scope.subdomainsOf);
    if (target.discovered !== undefined) {
      // A discovered name has no subdomains of its own (they belong to its root).
      return {
        items: [],
        count: 0,
        hasMore: false,
        nextMarker: undefined,
        currentMarker: markers.encode(team.id, `subdomains:name:${target.discovered.token}`, 0),
        teamHasAssets: true,
      };
    }
    const root = target.asset;
    scope = { kind: 'subdomains', rootId: root.id };
    scopeKey = `subdomains:${root.id}`;
    if (root.isRoot && root.kind === 'domain') names = { under: { id: root.id, name: root.name, status: root.status } };
  }
  const { raw, afterId, afterKey } = decodeListPosition(markers, team.id, scopeKey, input.marker);
  const items: Array<string | Uint8Array> = [];
  // Asset rows first (rendered by the store), then the discovered names.
  let listed = 0;
  let last: number | { n: string } | undefined;
  let hasMore = false;
  if (afterKey === undefined) {
    const assets = await store.assets.renderPage({
      teamId: team.id,
      scope,
      afterId,
      createdAfter: input.createdAfter,
      limit: input.pageSize,
    });
    listed = Math.min(assets.count, input.pageSize);
    if (listed > 0) items.push(assets.items);
    hasMore = assets.count > input.pageSize;
    last = assets.lastId;
  }
  if (names !== undefined && !hasMore) {
    const found = await store.zones.listDocuments({
      teamId: team.id,
      under: names.under,
      afterKey,
      createdAfter: input.createdAfter,
      limit: input.pageSize + 1 - listed,
    });
    hasMore = listed + found.length > input.pageSize;
    const shown = found.slice(0, input.pageSize - listed);
    for (const name of shown) items.push(name.document);
    listed += shown.length;
    if (shown.length > 0) last = positionOf(shown[shown.length - 1]!);
  }
  return {
    items,
    count: listed,
    hasMore,
    nextMarker: hasMore && last !== undefined ? markers.encode(team.id, scopeKey, last) : undefined,
    currentMarker: markers.encode(team.id, scopeKey, raw ?? 0),
    teamHasAssets: listed > 0 || (await store.assets.hasAny(team.id)),
  };
}

/**
 * Adds an asset by hand. A name whose root apex (or a nearer ancestor) is already a root asset
 * of the team becomes a subdomain of it (the caller answers 2019); a name the team already has
 * is 2018. The new asset is unverified until an ownership check passes.
 */
export async function addAsset(store: AssetStore, team: Team, rawName: unknown): Promise<AddAssetResult> {
  const parsed = parseAssetName(rawName);
  return store.transaction((tx) => addAssetInTransaction(tx, team, parsed, 'manual'));
}

/**
 * Adds a parsed asset name inside the caller's transaction with addAsset's rules (2018, 2019 as
 * `parent`): the one add path, also taken by a zone upload or transfer that adds its apex. It
 * logs `asset.added` in that transaction.
 */
export async function addAssetInTransaction(
  tx: AssetRepositories,
  team: Team,
  parsed: AssetName,
  origin: 'manual' | ZoneSource,
): Promise<AddAssetResult> {
  if ((await tx.assets.findByName(team.id, parsed.name)) !== undefined) {
    throw appError(2018, `Asset already exists: the team has ${parsed.name} already`, ['name']);
  }
  const ancestors = parsed.kind === 'domain' ? ancestorsOf(parsed.name) : [];
  const roots = ancestors.length > 0 ? await tx.assets.findRootsByName(team.id, ancestors) : [];
  const parent = ancestors.map((n) => roots.find((r) => r.name === n)).find((r) => r !== undefined);
  const now = new Date();
  const asset = await tx.assets.insert({
    teamId: team.id,
    token: newToken(),
    uuid: newUuid(),
    name: parsed.name,
    kind: parsed.kind,
    port: parsed.port,
    isRoot: parent === undefined,
    rootId: parent?.id ?? null,
    status: 'unverified',
    addedBy: [origin],
    monitored: false,
    settings: null,
    created: now,
    updated: now,
    discovered: now,
    lastSeen: now,
    verifiedAt: null,
    checkedAt: null,
  });
  // A name found by DNS earlier is listed as this asset from now on.
  await tx.zones.setShadowed(team.id, parsed.name, true);
  await tx.events.append([assetEvent('asset.added', asset, now)]);
  return { asset, parent };
}

/**
 * Deletes an asset with its subdomains and the names discovered under it, or one discovered name;
 * 2026 while scan profiles hang on it. Deleting an asset logs `asset.removed` (for it: its
 * subdomain assets go with it unlogged); a discovered name, never added as an asset, logs nothing.
 */
export async function deleteAsset(store: AssetStore, team: Team, token: string): Promise<void> {
  await store.transaction(async (tx) => {
    // The team first, as the other writers of the team's assets lock it (an ownership check, a
    // settings change): taking the asset's rows first and the team's row last (the version bump)
    // deadlocked with them on PostgreSQL.
    await tx.assets.lockTeam(team.id);
    const target = await requireTokenTarget(tx, team, token);
    if (target.discovered !== undefined) {
      await tx.zones.deleteName(team.id, target.discovered.name);
      return;
    }
    const { asset } = target;
    const profiles = await tx.scanProfiles.countByAsset(team.id, asset.id);
    if (profiles > 0)
      throw appError(
        2026,
        `Asset still has Application scan profiles: delete its ${profiles} scan profile${profiles === 1 ? '' : 's'} first`,
        ['token'],
      );
    if (!(await tx.assets.delete(team.id, asset.id))) throw appError(2014, 'Asset does not exist', ['token']);
    if (asset.isRoot) await tx.zones.deleteUnder(team.id, { id: asset.id, name: asset.name, status: asset.status });
    else await tx.zones.deleteName(team.id, asset.name);
    // Its vulnerabilities went with it: cached vulnerability pages of the team must not outlive them.
    await tx.vulnerabilities.bumpVersion(team.id);
    await tx.events.append([assetEvent('asset.removed', asset, new Date())]);
  });
}

/** The settings of an asset (or of a discovered subdomain), defaults filled in. */
export async function getAssetSettings(store: AssetStore, team: Team, token: string): Promise<AssetSettings> {
  const { asset } = await requireTokenTarget(store, team, token);
  return asset?.settings ?? { ...defaultAssetSettings };
}

/** 2012 for a discovered name that the add path would refuse as an asset (it keeps its default settings). */
function assertCanBeAsset(name: string): void {
  try {
    parseAssetName(name);
  } catch (err) {
    if (!isAppError(err)) throw err;
    throw appError(
      2012,
      `${name} is a name of the zone data that cannot be an asset (${err.message}); its settings cannot change`,
      ['domainToken'],
    );
  }
}

/**
 * A discovered name becomes an asset row of its own (same token and UUID, its sources in
 * added_by) when it is acted upon; listings then show the asset in its place.
 */
async function promoteName(tx: AssetRepositories, name: DiscoveredName): Promise<Asset> {
  await tx.zones.setShadowed(name.teamId, name.name, true);
  return tx.assets.insert({
    teamId: name.teamId,
    token: name.token,
    uuid: newUuid(),
    name: name.name,
    kind: 'domain',
    port: null,
    isRoot: false,
    rootId: name.rootId,
    status: name.status,
    addedBy: [...name.sources],
    monitored: false,
    settings: null,
    created: name.firstSeen,
    updated: name.updated,
    discovered: name.firstSeen,
    lastSeen: name.lastSeen,
    verifiedAt: null,
    checkedAt: null,
  });
}

/**
 * Replaces the settings of an asset; port-scanning fields the body leaves out keep their
 * current values (bodies written before they existed). Monitoring is refused on IP addresses
 * (2423) and on unverified domains (2425), and switching it on is refused at the plan's
 * capacity (2424); the capacity check and the write share one transaction with the team locked.
 * Once committed, `monitoring` hears of a switch: on queues a run now, off stops the live one.
 * The body is read (and checked, 2422) once the asset is found (2014 first).
 */
export async function updateAssetSettings(
  store: AssetStore,
  team: Team,
  token: string,
  body: () => AssetSettingsInput,
  monitoring?: MonitoringSwitch,
): Promise<AssetSettings> {
  const target = await requireTokenTarget(store, team, token);
  const asset = target.asset ?? {
    kind: 'domain' as const,
    status: target.discovered.status,
    name: target.discovered.name,
  };
  const update = assetSettingsUpdate(body());
  // Changing a discovered name's settings makes it an asset: only a name the add path accepts
  // may become one (zone data also holds wildcard and service owners: *.dev, _sip._tcp).
  if (target.asset === undefined) assertCanBeAsset(target.discovered.name);
  if (update.monitoring && asset.kind === 'ip') {
    throw appError(2423, 'Surface monitoring is not available for IP addresses', ['monitoring']);
  }
  if (update.monitoring && asset.status !== 'verified') {
    throw appError(2425, `Surface monitoring needs a verified domain; ${asset.name} is not verified`, ['monitoring']);
  }
  const { settings, assetId, wasMonitored } = await store.transaction(async (tx) => {
    await tx.assets.lockTeam(team.id);
    const found = await requireTokenTarget(tx, team, token);
    const current = found.asset ?? (await promoteName(tx, found.discovered));
    const next = applyAssetSettings(current.settings ?? defaultAssetSettings, update);
    if (next.monitoring && !current.monitored) {
      const capacity = plans[team.plan].monitoredDomains;
      if ((await tx.assets.countMonitored(team.id)) >= capacity) {
        throw appError(
          2424,
          `Monitored-domain capacity reached: the ${team.plan} plan monitors at most ${capacity} domains`,
          ['monitoring'],
        );
      }
    }
    await tx.assets.updateSettings(team.id, current.id, next, new Date());
    return { settings: next, assetId: current.id, wasMonitored: current.monitored };
  });
  if (monitoring !== undefined && settings.monitoring !== wasMonitored) {
    await (settings.monitoring ? monitoring.enabled(team.id, assetId) : monitoring.disabled(team.id, assetId));
  }
  return settings;
}
