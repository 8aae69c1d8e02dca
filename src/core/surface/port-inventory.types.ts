import type { InventoryPage, InventoryPageQuery } from '../shared/inventory-list.ts';
import type { ServiceGuess } from './exposure-engines.ts';

/** Port status as the v3 API names it: OPEN while runs see the port open, CLOSED once they no longer do. */
export type PortStatus = 'OPEN' | 'CLOSED';

/** Every port status, in the order the API documents them. */
export const portStatuses: readonly PortStatus[] = ['OPEN', 'CLOSED'];

/** The service fields of a row: the latest guess of the port scanner. */
export interface PortService {
  /** Lower-case service name (`http`, `ssh` … or `unknown`). */
  name: string;
  isTls: boolean;
  isHttp: boolean;
  banner: string | null;
  product: string | null;
  version: string | null;
}

/** What recordRun reads of an asset's existing rows. */
export interface PortStateRow {
  id: number;
  ipAddress: string;
  port: number;
  domainName: string;
  status: PortStatus;
  service: PortService;
}

/** A row to insert, OPEN and first seen at `at`. */
export interface NewPort {
  teamId: number;
  assetId: number;
  ipAddress: string;
  port: number;
  domainName: string;
  service: PortService;
  at: Date;
}

/** One page of the port list: the shared time filters and position, plus status and port. */
export interface PortPageQuery extends InventoryPageQuery {
  /** Only rows with one of these statuses; undefined or empty = any. */
  statuses?: PortStatus[] | undefined;
  /** Only rows with one of these port numbers; undefined or empty = any. */
  ports?: number[] | undefined;
}

/** Persistence of the port inventory. Every method is scoped to a team. */
export interface PortInventoryRepository {
  /** Every row of one root asset (OPEN or CLOSED). */
  listOfAsset(teamId: number, assetId: number): Promise<PortStateRow[]>;
  /** Inserts new OPEN rows; an (address, port) the asset already has is left alone. */
  insertMany(rows: NewPort[]): Promise<void>;
  /** Marks rows seen open at `at`: OPEN, last_seen_at = at, disappeared_at cleared. */
  markOpen(teamId: number, ids: number[], at: Date): Promise<void>;
  /** Marks rows found closed at `at`: CLOSED, disappeared_at = at. */
  markClosed(teamId: number, ids: number[], at: Date): Promise<void>;
  /** Replaces the name and service fields of one row. */
  setDetails(teamId: number, id: number, domainName: string, service: PortService): Promise<void>;
  /** The team's port list version: it changes whenever the list could answer differently. */
  version(teamId: number): Promise<number>;
  bumpVersion(teamId: number): Promise<void>;
  /** One page of the team's ports in (first_seen_at, id) order, rendered as wire JSON, query.limit items at most. */
  listPage(query: PortPageQuery): Promise<InventoryPage>;
}

/** The service fields of a scanner guess, as stored. */
export function toPortService(guess: ServiceGuess): PortService {
  return {
    name: guess.name,
    isTls: guess.isTls,
    isHttp: guess.isHttp,
    banner: guess.banner ?? null,
    product: guess.product ?? null,
    version: guess.version ?? null,
  };
}
