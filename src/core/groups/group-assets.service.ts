import type { AssetPage } from '../assets/asset.service.ts';
import type { AssetSummary } from '../assets/asset.types.ts';
import { appError } from '../errors/app-error.ts';
import type { MarkerCodec } from '../shared/marker.ts';
import type { Store } from '../shared/store.ts';
import type { Team } from '../teams/team.types.ts';
import { matchesAnyPattern } from './asset-pattern.ts';
import { loadGroupPatterns } from './asset-pattern.service.ts';

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
 * One page of the team's assets (roots and subdomains, in the order they were added) that
 * match any asset pattern of the given groups. The team's assets are read in id order, a chunk
 * at a time, until one page of matches is found, so a large inventory is never held in memory.
 * The marker is the id of the last asset of the page, bound to the team and the set of groups.
 */
export async function listAssetsOfGroups(store: Store, markers: MarkerCodec, team: Team, input: GroupAssetListInput): Promise<AssetPage> {
  if (!Array.isArray(input.body)) throw appError(1051, 'Request body malformed: expected a JSON array of group tokens');
  const { groups, patterns } = await loadGroupPatterns(store, team, input.body);
  const scopeKey = `group-assets:${groups.map((g) => g.id).sort((a, b) => a - b).join(',')}`;
  const position = markers.decode(team.id, scopeKey, input.marker);
  if (position !== undefined && (typeof position !== 'number' || !Number.isSafeInteger(position))) throw appError(4150, 'marker malformed', ['marker']);

  const matches: AssetSummary[] = [];
  let afterId = position as number | undefined;
  while (patterns.length > 0 && matches.length <= input.pageSize) {
    const chunk = await store.assets.listPage({ teamId: team.id, scope: { kind: 'all' }, afterId, createdAfter: undefined, limit: groupAssetScanChunk });
    for (const asset of chunk) {
      if (matchesAnyPattern(patterns, asset.name)) matches.push(asset);
      if (matches.length > input.pageSize) break;
    }
    if (chunk.length < groupAssetScanChunk) break;
    afterId = chunk[chunk.length - 1]!.id;
  }
  const hasMore = matches.length > input.pageSize;
  const assets = hasMore ? matches.slice(0, input.pageSize) : matches;
  const last = assets[assets.length - 1];
  return {
    items: await store.assets.documentsByIds(team.id, assets.map((a) => a.id)),
    hasMore,
    nextMarker: hasMore && last !== undefined ? markers.encode(team.id, scopeKey, last.id) : undefined,
    currentMarker: markers.encode(team.id, scopeKey, position ?? 0),
    teamHasAssets: true,
  };
}
