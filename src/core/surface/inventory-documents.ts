import type { PageSpec } from '../shared/page-render.mjs';
import { toWireTime } from '../shared/time.ts';
import type { IpEnrichment, IpVersion } from './ip-inventory.types.ts';

/**
 * The stored list documents of the v3 inventories: each row keeps the wire JSON of its fields
 * that change rarely (rewritten by the store when one of them changes), and the store writes the
 * fields that change with every run in front of it when a page is read: `id`, then `active` (or
 * `status` for ports) and `disappeared_at`. A page is then a few values per row and one string,
 * instead of a dozen columns materialised, presented and serialised per row.
 */

/** The fields written in front of each list's documents when a page is read, in order. */
export const inventoryListHeads: Record<'ips' | 'ports' | 'technologies', PageSpec['head']> = {
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

/** The fields of a port's document. */
export interface PortDocumentFields {
  ipAddress: string;
  port: number;
  domainName: string;
  firstSeenAt: Date | number;
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
