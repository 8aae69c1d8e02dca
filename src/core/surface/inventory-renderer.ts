import type { PageSpec } from '../../shared/page-render.mjs';
import type { IpEnrichment, IpVersion } from './ip-inventory.types.ts';

/**
 * Port: renders the stored list documents of the v3 inventories (addresses, ports,
 * technologies). Each row keeps the wire JSON of its fields that change rarely (rendered again
 * when one of them changes) as a render cache; a page read writes the fields that change with
 * every run in front of it (`heads`). The HTTP face owns the shape and implements this
 * (http/v3/inventory.render.ts); the composition root gives it to the store. The row's columns
 * are the source: when `version` changes, rows rendered by an older one are rendered again from
 * them (storage/render-cache.ts), no data migration.
 */
export interface InventoryRenderer {
  readonly version: number;
  /** The fields written in front of each list's documents when a page is read, in order. */
  readonly heads: Record<InventoryList, PageSpec['head']>;
  ip(fields: IpDocumentFields, tokens: DocumentTokens): string;
  port(fields: PortDocumentFields, tokens: DocumentTokens): string;
  technology(fields: TechnologyDocumentFields, tokens: DocumentTokens): string;
}

/** The three v3 inventory lists. */
export type InventoryList = 'ips' | 'ports' | 'technologies';

/** The tokens every document names: the root asset's (`asset_id` on the wire) and the team's. */
export interface DocumentTokens {
  assetToken: string;
  teamToken: string;
}

/** The fields of an address's document. */
export interface IpDocumentFields {
  ipAddress: string;
  ipVersion: IpVersion;
  domainName: string;
  firstSeenAt: Date | number;
  enrichment: IpEnrichment | undefined;
}

/** The fields of a port's document. */
export interface PortDocumentFields {
  ipAddress: string;
  port: number;
  domainName: string;
  firstSeenAt: Date | number;
}

/** The fields of a technology's document. */
export interface TechnologyDocumentFields {
  domainName: string;
  serviceProtocol: string;
  port: number;
  name: string;
  version: string | null;
  categories: string[];
  firstSeenAt: Date | number;
}
