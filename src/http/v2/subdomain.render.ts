import type { DiscoveredNameFields, DiscoveredNameRenderer } from '../../core/assets/asset-renderer.ts';
import type { AssetShapeValues } from '../../core/assets/asset-renderer.ts';
import { presentAsset } from './asset.render.ts';

/**
 * The one owner of the list entry of a name discovered by DNS (a subdomain that is not an asset
 * row: the asset lists with `include_subdomains`, a root's subdomains, the assets of groups, the
 * legacy subdomain list). It is the asset shape (asset.render.ts's declaration, through
 * presentAsset): a discovered name shows as an asset added by its sources, never monitored,
 * created and discovered when first seen, with its root's status. The store renders each listed
 * name through the DiscoveredNameRenderer port; nothing is stored, so there is no render version.
 */
export function discoveredNameAsAsset(fields: DiscoveredNameFields): AssetShapeValues {
  return {
    token: fields.token,
    name: fields.name,
    status: fields.status,
    addedBy: fields.sources,
    monitored: false,
    created: fields.firstSeen,
    updated: fields.updated,
    discovered: fields.firstSeen,
    lastSeen: fields.lastSeen,
  };
}

/** The v2 wire JSON of a discovered name's list entry. */
export function renderDiscoveredName(fields: DiscoveredNameFields): string {
  return JSON.stringify(presentAsset(discoveredNameAsAsset(fields)));
}

/** The discovered names' entries as the store renders them (see DiscoveredNameRenderer). */
export const discoveredNameRenderer: DiscoveredNameRenderer = { render: renderDiscoveredName };
