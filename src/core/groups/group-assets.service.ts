import type { AssetPage } from '../assets/asset.types.ts';
import { decodeListPosition, positionOf } from '../assets/list-position.ts';
import { appError } from '../errors/app-error.ts';
import type { MarkerCodec } from '../shared/marker.ts';
import type { Team } from '../teams/team.types.ts';
import { reverseName } from '../zones/dns-names.ts';
import { matchesAnyPattern } from './asset-pattern.ts';
import { loadGroupPatterns } from './asset-pattern.service.ts';
import type { GroupStore } from './group.types.ts';

/** How many assets are read from the store at a time while looking for matches. */
export const groupAssetScanChunk = 500;

/** What a listing of the assets of groups asks for. */
export interface GroupAssetListInput {
  /** The request body: a JSON array of group tokens. */
  body: unknown;
  marker: string | undefined;
  pageSize: number;
}

/**
 * One page of the team's assets (roots and subdomains, in the order they were added, then the
 * subdomains discovered by DNS) that match any asset pattern of the given groups. They are read
 * a chunk at a time until one page of matches is found, so a large inventory is never held in
 * memory. The marker is the position of the last asset of the page, bound to the team and the
 * set of groups.
 */
export async function listAssetsOfGroups(
  store: GroupStore,
  markers: MarkerCodec,
  team: Team,
  input: GroupAssetListInput,
): Promise<AssetPage> {
  if (!Array.isArray(input.body)) throw appError(1051, 'Request body malformed: expected a JSON array of group tokens');
  const { groups, patterns } = await loadGroupPatterns(store, team, input.body);
  const scopeKey = `group-assets:${groups
    .map((g) => g.id)
    .sort((a, b) => a - b)
    .join(',')}`;
  const position = decodeListPosition(markers, team.id, scopeKey, input.marker);

  // Asset rows first (id order), then the discovered names that are not assets (key order).
  const matches: Array<{ id: number } | { key: string; document: string }> = [];
  let afterId = position.afterId;
  let assetsDone = position.afterKey !== undefined;
  while (patterns.length > 0 && !assetsDone && matches.length <= input.pageSize) {
    const chunk = await store.assets.listPage({
      teamId: team.id,
      scope: { kind: 'all' },
      afterId,
      createdAfter: undefined,
      limit: groupAssetScanChunk,
    });
    for (const asset of chunk) {
      if (matchesAnyPattern(patterns, asset.name)) matches.push({ id: asset.id });
      if (matches.length > input.pageSize) break;
    }
    assetsDone = chunk.length < groupAssetScanChunk;
    afterId = chunk[chunk.length - 1]?.id;
  }
  let nameKey = position.afterKey;
  while (patterns.length > 0 && assetsDone && matches.length <= input.pageSize) {
    const chunk = await store.zones.listDocuments({
      teamId: team.id,
      afterKey: nameKey,
      createdAfter: undefined,
      limit: groupAssetScanChunk,
    });
    for (const name of chunk) {
      if (matchesAnyPattern(patterns, reverseName(name.key))) matches.push(name);
      if (matches.length > input.pageSize) break;
    }
    if (chunk.length < groupAssetScanChunk) break;
    nameKey = chunk[chunk.length - 1]!.key;
  }
  const hasMore = matches.length > input.pageSize;
  const page = hasMore ? matches.slice(0, input.pageSize) : matches;
  const assetIds = page.flatMap((m) => ('id' in m ? [m.id] : []));
  const assetDocuments = await store.assets.documentsByIds(team.id, assetIds);
  const last = page[page.length - 1];
  return {
    items: [...assetDocuments.map((d) => d.document), ...page.flatMap((m) => ('key' in m ? [m.document] : []))],
    count: page.length,
    hasMore,
    nextMarker: hasMore && last !== undefined ? markers.encode(team.id, scopeKey, positionOf(last)) : undefined,
    currentMarker: markers.encode(team.id, scopeKey, position.raw ?? 0),
    teamHasAssets: true,
  };
}
