import { appError } from '../errors/app-error.ts';
import { isToken, newToken, newUuid } from '../shared/ids.ts';
import type { MarkerCodec } from '../shared/marker.ts';
import type { Store } from '../shared/store.ts';
import { plans } from '../teams/plans.ts';
import type { Team } from '../teams/team.types.ts';
import { ancestorsOf, parseAssetName } from './asset-name.ts';
import { defaultAssetSettings, parseAssetSettings, type AssetSettings } from './asset-settings.ts';
import type { Asset, AssetDocument, AssetPageQuery } from './asset.types.ts';

/** Largest page of an asset listing. */
export const maxAssetPageSize = 1000;
/** Page size when none is asked for. */
export const defaultAssetPageSize = 100;

/** One page of assets, with its markers. `teamHasAssets` false means the team owns none at all. */
export interface AssetPage {
  /** The assets of the page as v2 wire JSON, in order. */
  items: AssetDocument[];
  hasMore: boolean;
  nextMarker: string | undefined;
  currentMarker: string;
  teamHasAssets: boolean;
}

/** What a listing asks for, already in core terms. */
export interface AssetListInput {
  scope: 'roots' | 'all' | { subdomainsOf: string };
  marker: string | undefined;
  pageSize: number;
  createdAfter?: Date | undefined;
}

/** Validates the shape of an asset token path parameter (2011). */
export function assertAssetToken(token: string): void {
  if (!isToken(token)) throw appError(2011, 'Domain token malformed: a token is 32 hexadecimal characters', ['token']);
}

/** Finds an asset of the team by token: 2011 when malformed, 2014 when unknown or another team's. */
export async function requireAsset(store: Store, team: Team, token: string): Promise<Asset> {
  assertAssetToken(token);
  const asset = await store.assets.findByToken(team.id, token);
  if (asset === undefined) throw appError(2014, 'Asset does not exist', ['token']);
  return asset;
}

/** Lists assets with keyset paging; markers are bound to the team and the listing. */
export async function listAssets(store: Store, markers: MarkerCodec, team: Team, input: AssetListInput): Promise<AssetPage> {
  let scope: AssetPageQuery['scope'];
  let scopeKey: string;
  if (input.scope === 'roots' || input.scope === 'all') {
    scope = { kind: input.scope };
    scopeKey = `assets:${input.scope}:${input.createdAfter?.getTime() ?? ''}`;
  } else {
    const root = await requireAsset(store, team, input.scope.subdomainsOf);
    scope = { kind: 'subdomains', rootId: root.id };
    scopeKey = `subdomains:${root.id}`;
  }
  const position = markers.decode(team.id, scopeKey, input.marker);
  if (position !== undefined && (typeof position !== 'number' || !Number.isSafeInteger(position))) throw appError(4150, 'marker malformed', ['marker']);
  const rows = await store.assets.listDocuments({ teamId: team.id, scope, afterId: position, createdAfter: input.createdAfter, limit: input.pageSize + 1 });
  const hasMore = rows.length > input.pageSize;
  const items = hasMore ? rows.slice(0, input.pageSize) : rows;
  const last = items[items.length - 1];
  return {
    items,
    hasMore,
    nextMarker: hasMore && last !== undefined ? markers.encode(team.id, scopeKey, last.id) : undefined,
    currentMarker: markers.encode(team.id, scopeKey, position ?? 0),
    teamHasAssets: items.length > 0 || (await store.assets.hasAny(team.id)),
  };
}

/** Result of adding an asset: 2019 is carried as `parent` (the asset became its subdomain). */
export interface AddAssetResult {
  asset: Asset;
  parent: Asset | undefined;
}

/**
 * Adds an asset by hand. A name whose root apex (or a nearer ancestor) is already a root asset
 * of the team becomes a subdomain of it (the caller answers 2019); a name the team already has
 * is 2018. The new asset is unverified until an ownership check passes.
 */
export async function addAsset(store: Store, team: Team, rawName: unknown): Promise<AddAssetResult> {
  const parsed = parseAssetName(rawName);
  return store.transaction(async (tx) => {
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
      addedBy: ['manual'],
      monitored: false,
      settings: null,
      created: now,
      updated: now,
      discovered: now,
      lastSeen: now,
      verifiedAt: null,
      checkedAt: null,
    });
    return { asset, parent };
  });
}

/** Deletes an asset and its subdomains. */
export async function deleteAsset(store: Store, team: Team, token: string): Promise<void> {
  const asset = await requireAsset(store, team, token);
  // Scan profiles (2026) arrive with their own issue; the check belongs here when they do.
  await store.transaction(async (tx) => {
    if (!(await tx.assets.delete(team.id, asset.id))) throw appError(2014, 'Asset does not exist', ['token']);
    // Its vulnerabilities went with it: cached vulnerability pages of the team must not outlive them.
    await tx.vulnerabilities.bumpVersion(team.id);
  });
}

/** The settings of an asset, defaults filled in. */
export async function getAssetSettings(store: Store, team: Team, token: string): Promise<AssetSettings> {
  const asset = await requireAsset(store, team, token);
  return asset.settings ?? { ...defaultAssetSettings };
}

/**
 * Replaces the settings of an asset. Monitoring is refused on IP addresses (2423) and on
 * unverified domains (2425), and switching it on is refused at the plan's capacity (2424);
 * the capacity check and the write share one transaction with the team locked.
 */
export async function updateAssetSettings(store: Store, team: Team, token: string, body: unknown): Promise<AssetSettings> {
  const asset = await requireAsset(store, team, token);
  const settings = parseAssetSettings(body);
  if (settings.monitoring && asset.kind === 'ip') {
    throw appError(2423, 'Surface monitoring is not available for IP addresses', ['monitoring']);
  }
  if (settings.monitoring && asset.status !== 'verified') {
    throw appError(2425, `Surface monitoring needs a verified domain; ${asset.name} is not verified`, ['monitoring']);
  }
  return store.transaction(async (tx) => {
    await tx.assets.lockTeam(team.id);
    const current = await tx.assets.findByToken(team.id, token);
    if (current === undefined) throw appError(2014, 'Asset does not exist', ['token']);
    if (settings.monitoring && !current.monitored) {
      const capacity = plans[team.plan].monitoredDomains;
      if ((await tx.assets.countMonitored(team.id)) >= capacity) {
        throw appError(2424, `Monitored-domain capacity reached: the ${team.plan} plan monitors at most ${capacity} domains`, ['monitoring']);
      }
    }
    await tx.assets.updateSettings(team.id, current.id, settings, new Date());
    return settings;
  });
}
