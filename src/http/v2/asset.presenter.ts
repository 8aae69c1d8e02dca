import type { AssetPage } from '../../core/assets/asset.types.ts';
import { joinRuns, withEnvelope } from '../../shared/page-render.mjs';

/** The v2 wire shape of an asset: asset.render.ts owns it (declared once for single reads and lists). */
export { presentAsset } from './asset.render.ts';

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
