import type { PageSpec } from '../../shared/page-render.mjs';
import { toWireTime } from '../../core/shared/time.ts';
import type {
  DocumentTokens,
  InventoryList,
  InventoryRenderer,
  IpDocumentFields,
  PortDocumentFields,
  TechnologyDocumentFields,
} from '../../core/surface/inventory-renderer.ts';

/**
 * The one owner of the v3 inventory list items' wire shape (/ips, /ports, /technologies). The
 * store keeps each row's rarely changing fields rendered here as a render cache tagged with
 * INVENTORY_RENDER_VERSION, and writes the head fields (id, then active or status, then
 * disappeared_at) in front of it when a page is read: a page is a few values per row and one
 * string. Change the shape, bump the version: the rows are rendered again from their columns
 * (storage/render-cache.ts), no data migration.
 */
export const INVENTORY_RENDER_VERSION = 1;

/** The fields written in front of each list's documents when a page is read, in order. */
export const inventoryListHeads: Record<InventoryList, PageSpec['head']> = {
  ips: [
    ['id', 'string'],
    ['active', 'bool'],
    ['disappeared_at', 'time'],
  ],
  ports: [
    ['id', 'string'],
    ['status', 'string'],
    ['disappeared_at', 'time'],
  ],
  technologies: [
    ['id', 'string'],
    ['active', 'bool'],
    ['disappeared_at', 'time'],
  ],
};

/** The document of an inventory address: every field of the spec's object but id, active and disappeared_at. */
export function ipDocument(fields: IpDocumentFields, tokens: DocumentTokens): string {
  const e = fields.enrichment;
  return JSON.stringify({
    ip_address: fields.ipAddress,
    ip_version: fields.ipVersion,
    domain_name: fields.domainName,
    asset_id: tokens.assetToken,
    team_id: tokens.teamToken,
    enriched: e !== undefined,
    first_seen_at: toWireTime(fields.firstSeenAt),
    autonomous_system: { name: e?.asName ?? null, domain: e?.asDomain ?? null, number: e?.asNumber ?? null },
    geolocation: {
      continent: e?.continent ?? null,
      continent_name: e?.continentName ?? null,
      country: e?.country ?? null,
      country_name: e?.countryName ?? null,
    },
  });
}

/** The document of an inventory port: every field of the spec's object but id, status and disappeared_at. */
export function portDocument(fields: PortDocumentFields, tokens: DocumentTokens): string {
  return JSON.stringify({
    team_id: tokens.teamToken,
    asset_id: tokens.assetToken,
    domain_name: fields.domainName,
    ip_address: fields.ipAddress,
    port: fields.port,
    first_seen_at: toWireTime(fields.firstSeenAt),
  });
}

/** The document of an inventory technology: every field of the spec's object but id, active and disappeared_at. */
export function technologyDocument(fields: TechnologyDocumentFields, tokens: DocumentTokens): string {
  return JSON.stringify({
    asset_id: tokens.assetToken,
    team_id: tokens.teamToken,
    domain_name: fields.domainName,
    service_protocol: fields.serviceProtocol,
    port: fields.port,
    name: fields.name,
    version: fields.version,
    categories: fields.categories,
    first_seen_at: toWireTime(fields.firstSeenAt),
  });
}

/** The renderer the composition root gives the store. */
export const inventoryRenderer: InventoryRenderer = {
  version: INVENTORY_RENDER_VERSION,
  heads: inventoryListHeads,
  ip: ipDocument,
  port: portDocument,
  technology: technologyDocument,
};
