import type { InventoryPageQuery } from '../shared/inventory-list.ts';

/**
 * One technology of a team's inventory: one row per (root asset, name of a host, port,
 * technology, version), a null version (the origin does not tell it) being a value of its own.
 */
export interface TechnologyRecord {
  id: number;
  teamId: number;
  assetId: number;
  /** Token of the root asset (what v2 shows as the asset's token). */
  assetToken: string;
  /** The host name the technology was seen on (lower case, no final dot). */
  domainName: string;
  port: number;
  /** `http` or `https`, as the latest run saw it. */
  serviceProtocol: string;
  /** The rule set's name (`Nginx`, `WordPress`). */
  name: string;
  version: string | null;
  categories: string[];
  active: boolean;
  firstSeenAt: Date;
  lastSeenAt: Date;
  disappearedAt: Date | null;
}

/** What recordRun reads of an asset's existing rows. */
export interface TechnologyStateRow {
  id: number;
  domainName: string;
  port: number;
  name: string;
  version: string | null;
  serviceProtocol: string;
  categories: string[];
  active: boolean;
}

/** A row to insert, active and first seen at `at`. */
export interface NewTechnology {
  teamId: number;
  assetId: number;
  domainName: string;
  port: number;
  name: string;
  version: string | null;
  serviceProtocol: string;
  categories: string[];
  at: Date;
}

/** Persistence of the technology inventory. Every method is scoped to a team. */
export interface TechnologyInventoryRepository {
  /** Every row of one root asset (active or not). */
  listOfAsset(teamId: number, assetId: number): Promise<TechnologyStateRow[]>;
  /** Inserts new active rows; a technology the asset already has is left alone. */
  insertMany(rows: NewTechnology[]): Promise<void>;
  /** Marks rows seen at `at`: active, last_seen_at = at, disappeared_at cleared. */
  markSeen(teamId: number, ids: number[], at: Date): Promise<void>;
  /** Marks rows gone at `at`: inactive, disappeared_at = at. */
  markDisappeared(teamId: number, ids: number[], at: Date): Promise<void>;
  /** Replaces the protocol and categories of one row (the latest run's). */
  setDetails(teamId: number, id: number, serviceProtocol: string, categories: string[]): Promise<void>;
  /** The team's technology list version: it changes whenever the list could answer differently. */
  version(teamId: number): Promise<number>;
  bumpVersion(teamId: number): Promise<void>;
  /** One page of the team's technologies in (first_seen_at, id) order, rows read = query.limit. */
  listPage(query: InventoryPageQuery): Promise<TechnologyRecord[]>;
}
