import type { AssetRenderer, AssetShapeField, AssetShapeValues } from '../../core/assets/asset-renderer.ts';
import { toWireTime } from '../../core/shared/time.ts';

/**
 * The one owner of the v2 asset shape (GET/POST /assets/, the asset lists, the assets of groups,
 * the legacy domain lists). `assetFields` declares it: each field's wire name, kind and the
 * asset property it shows, in wire order. Single reads are rendered from it here
 * (presentAsset); list pages are built by the database where they are read, from the same
 * declaration (the store gets it through the AssetRenderer port and compiles it to SQL,
 * storage/repositories/json-document.ts), so the two cannot drift
 * (test/integration/assets.test.ts compares them byte for byte). Discovered names are listed in
 * this shape too (subdomain.render.ts). Nothing rendered here is stored: every document is built
 * per read, so there is no render version to bump when the shape changes.
 */
export const assetFields: readonly AssetShapeField[] = [
  { name: 'token', kind: 'string', from: 'token' },
  { name: 'name', kind: 'string', from: 'name' },
  { name: 'status', kind: 'string', from: 'status' },
  { name: 'added_by', kind: 'json', from: 'addedBy' },
  { name: 'monitored', kind: 'bool', from: 'monitored' },
  { name: 'created', kind: 'time', from: 'created' },
  { name: 'updated', kind: 'time', from: 'updated' },
  { name: 'discovered', kind: 'time', from: 'discovered' },
  { name: 'last_seen', kind: 'time', from: 'lastSeen' },
];

/** The v2 wire shape of an asset (or of a discovered name listed as one), rendered from assetFields. */
export function presentAsset(asset: AssetShapeValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of assetFields) {
    const value = asset[field.from];
    out[field.name] = field.kind === 'time' ? toWireTime(value as Date | number) : value;
  }
  return out;
}

/** The asset shape as the store builds list documents from it (see AssetRenderer). */
export const assetRenderer: AssetRenderer = { fields: assetFields };
