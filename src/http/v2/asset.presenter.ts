import type { AssetSummary } from '../../core/assets/asset.types.ts';
import type { AssetPage } from '../../core/assets/asset.types.ts';
import { joinRuns, withEnvelope } from '../../shared/page-render.mjs';
import { toWireTime } from '../../core/shared/time.ts';

/** The v2 wire shape of an asset. */
export function presentAsset(asset: AssetSummary): Record<string, unknown> {
  return {
    token: asset.token,
    name: asset.name,
    status: asset.status,
    added_by: asset.addedBy,
    monitored: asset.monitored,
    created: toWireTime(asset.created),
    updated: toWireTime(asset.updated),
    discovered: toWireTime(asset.discovered),
    last_seen: toWireTime(asset.lastSeen),
  };
}

/**
 * The v2 asset list object, serialised. A team that owns no asset at all gets the spec's `{}`
 * for root listings; otherwise `has_more` is always present and `next_marker` with it when true.
 */
export function presentAssetPage(page: AssetPage, options: { emptyTeamIsEmptyObject: boolean }): string | Buffer {
  if (options.emptyTeamIsEmptyObject && !page.teamHasAssets) return '{}';
  // The store rendered each asset's JSON (see AssetRepository.renderPage): join, never re-serialise.
  let tail = `],"has_more":${page.hasMore}`;
  if (page.nextMarker !== undefined) tail += `,"next_marker":${JSON.stringify(page.nextMarker)}`;
  tail += `,"current_marker":${JSON.stringify(page.currentMarker)}}`;
  return withEnvelope('{"assets":[', joinRuns(page.items), tail);
}
