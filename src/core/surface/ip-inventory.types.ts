import type { InventoryPage, InventoryPageQuery } from '../shared/inventory-list.ts';

/** IP version as the v3 API names it. */
export type IpVersion = 'IPv4' | 'IPv6';

/** What the offline data tells about a public address; every field may be unknown. */
export interface IpEnrichment {
  asNumber: number | null;
  asName: string | null;
  /** The AS operator's domain: no shipped data set carries it yet, so it stays null. */
  asDomain: string | null;
  /** Continent code (`EU`, `NA` …). */
  continent: string | null;
  continentName: string | null;
  /** ISO 3166-1 alpha-2 country code. */
  country: string | null;
  countryName: string | null;
}

/**
 * Looks addresses up in data shipped with the service (no network). `undefined` for an address
 * that is not globally reachable (loopback, private, documentation …) or that the data lacks.
 */
export interface IpEnricher {
  /** Loads the data (once, lazily); call before a transaction so the lookups inside it are fast. */
  prepare(): Promise<void>;
  enrich(address: string): IpEnrichment | undefined;
}

/** What recordRun reads of an asset's existing rows. */
export interface IpStateRow {
  id: number;
  ipAddress: string;
  domainName: string;
  active: boolean;
}

/** A row to insert. */
export interface NewIpAddress {
  teamId: number;
  assetId: number;
  ipAddress: string;
  ipVersion: IpVersion;
  domainName: string;
  at: Date;
  enrichment: IpEnrichment | undefined;
}

/** Persistence of the IP inventory. Every method is scoped to a team. */
export interface IpInventoryRepository {
  /** Every row of one root asset (active or not). */
  listOfAsset(teamId: number, assetId: number): Promise<IpStateRow[]>;
  /** Inserts new rows (active, first and last seen at `at`); an address the asset already has is left alone. */
  insertMany(rows: NewIpAddress[]): Promise<void>;
  /** Marks rows seen at `at`: active, last_seen_at = at, disappeared_at cleared. */
  markSeen(teamId: number, ids: number[], at: Date): Promise<void>;
  /** Marks rows gone at `at`: inactive, disappeared_at = at. */
  markDisappeared(teamId: number, ids: number[], at: Date): Promise<void>;
  setDomainName(teamId: number, id: number, domainName: string): Promise<void>;
  /** The team's inventory version: it changes whenever a list could answer differently. */
  version(teamId: number): Promise<number>;
  bumpVersion(teamId: number): Promise<void>;
  /** One page of the team's addresses in (first_seen_at, id) order, rendered as wire JSON, query.limit items at most. */
  listPage(query: InventoryPageQuery): Promise<InventoryPage>;
}
