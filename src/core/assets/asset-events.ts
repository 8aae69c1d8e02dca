import type { Asset, AssetEventKind, AssetLogEntry } from './asset.types.ts';

/**
 * The asset events of the team event log (core/events: the catalogue lists their fields):
 * `asset.added` by the one add path (addAssetInTransaction: API, console, zone uploads and
 * transfers, seeding), `asset.removed` by a deletion, `asset.verified` when an ownership check or
 * an operator makes an asset verified; each in the transaction of its change. The data names the
 * asset itself; `assetId` is its root asset (itself for a root), which subscriptions filter on.
 */
export function assetEvent(
  kind: AssetEventKind,
  asset: Pick<Asset, 'teamId' | 'id' | 'rootId' | 'token' | 'name' | 'kind'>,
  at: Date,
): AssetLogEntry {
  return {
    teamId: asset.teamId,
    kind,
    occurredAt: at,
    assetId: asset.rootId ?? asset.id,
    data: { asset_token: asset.token, asset_name: asset.name, type: asset.kind },
  };
}
