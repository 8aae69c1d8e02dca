import type { FieldKind } from '../../shared/page-render.mjs';
import type { AssetStatus, AssetSummary, ZoneSource } from './asset.types.ts';

/** The properties of an asset its v2 wire shape shows. */
export type AssetShapeSource = keyof Pick<
  AssetSummary,
  'token' | 'name' | 'status' | 'addedBy' | 'monitored' | 'created' | 'updated' | 'discovered' | 'lastSeen'
>;

type ShapeTime = 'created' | 'updated' | 'discovered' | 'lastSeen';

/** The values an asset's v2 wire shape is rendered from (an asset, or a discovered name listed as one; times as Date or epoch ms). */
export type AssetShapeValues = Omit<Pick<AssetSummary, AssetShapeSource>, ShapeTime> & Record<ShapeTime, Date | number>;

/**
 * One field of the v2 asset shape: its wire name, how it is written (page-render.mjs's kinds:
 * `json` takes the value as JSON, `time` an instant in wire form) and the asset property it
 * shows.
 */
export interface AssetShapeField {
  name: string;
  kind: FieldKind;
  from: AssetShapeSource;
}

/**
 * Port: the v2 wire shape of an asset, as a declaration the store builds the list documents of
 * asset rows from (in SQL, where they are read). The HTTP face owns the shape and implements
 * this (http/v2/asset.render.ts), rendering its single reads from the same declaration; the
 * composition root passes it to the store. Built per read, never stored: no render version.
 */
export interface AssetRenderer {
  /** The fields of the shape in wire order. The times come last (the store writes them behind the document). */
  readonly fields: readonly AssetShapeField[];
}

/** What a discovered name's list entry shows. */
export interface DiscoveredNameFields {
  token: string;
  name: string;
  /** Its root's status. */
  status: AssetStatus;
  sources: ZoneSource[];
  firstSeen: Date | number;
  updated: Date | number;
  lastSeen: Date | number;
}

/**
 * Port: the v2 wire JSON of a name discovered by DNS, listed as a subdomain in the asset lists.
 * The HTTP face owns it (http/v2/subdomain.render.ts: the asset shape); the composition root
 * passes it to the store. Built per read, never stored: no render version.
 */
export interface DiscoveredNameRenderer {
  render(fields: DiscoveredNameFields): string;
}
