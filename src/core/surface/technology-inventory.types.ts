import type { InventoryPage, InventoryPageQuery } from '../shared/inventory-list.ts';

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
  /** One page of the team's technologies in (first_seen_at, id) order, rendered as wire JSON, query.limit items at most. */
  listPage(query: InventoryPageQuery): Promise<InventoryPage>;
}
