import type { AssetSettings } from './asset-settings.ts';

/** Verification status of an asset. */
export type AssetStatus = 'verified' | 'unverified';

/** An asset of a team's inventory: a root asset (added by hand) or a subdomain of one. */
export interface Asset {
  id: number;
  teamId: number;
  token: string;
  uuid: string;
  name: string;
  kind: 'domain' | 'ip';
  /** Port given with the name, used to reach the verification file. */
  port: number | null;
  isRoot: boolean;
  rootId: number | null;
  status: AssetStatus;
  /** Where the asset came from: `manual`, `zone-file`, `zone-transfer`, `zone-lookup`, … */
  addedBy: string[];
  monitored: boolean;
  /** Stored settings; null until first updated (the defaults apply). */
  settings: AssetSettings | null;
  created: Date;
  updated: Date;
  discovered: Date;
  lastSeen: Date;
  verifiedAt: Date | null;
  checkedAt: Date | null;
}

/** The fields of an asset that listings need (what list queries read). */
export type AssetSummary = Pick<Asset, 'id' | 'teamId' | 'token' | 'name' | 'kind' | 'status' | 'addedBy' | 'monitored' | 'created' | 'updated' | 'discovered' | 'lastSeen'>;

/** An asset's id and its v2 wire JSON, rendered by the store (list pages). */
export interface AssetDocument {
  id: number;
  document: string;
}

/**
 * A page of assets as the store renders it: their v2 wire JSON, comma-joined (text, or UTF-8
 * bytes when rendered off the event loop), how many rows were read (the page's `limit` at most,
 * plus one when more follow), and the id of the last rendered asset.
 */
export interface RenderedAssets {
  items: string | Uint8Array;
  count: number;
  lastId: number | undefined;
}

/** Which assets one page of a listing covers. */
export interface AssetPageQuery {
  teamId: number;
  /** Root assets only, every asset, or the subdomains of one root. */
  scope: { kind: 'roots' } | { kind: 'all' } | { kind: 'subdomains'; rootId: number };
  afterId: number | undefined;
  createdAfter: Date | undefined;
  limit: number;
}

/** Persistence of assets. Every method is scoped to a team. */
export interface AssetRepository {
  listPage(query: AssetPageQuery): Promise<AssetSummary[]>;
  /** The same page as listPage, every field of each asset. */
  listFullPage(query: AssetPageQuery): Promise<Asset[]>;
  /** The same page as listPage (`query.limit` assets, one more read to tell whether more follow), rendered where it is read. */
  renderPage(query: AssetPageQuery): Promise<RenderedAssets>;
  /** The v2 wire JSON of the given assets of the team, in id order. */
  documentsByIds(teamId: number, ids: number[]): Promise<AssetDocument[]>;
  hasAny(teamId: number): Promise<boolean>;
  findByToken(teamId: number, token: string): Promise<Asset | undefined>;
  findById(teamId: number, id: number): Promise<Asset | undefined>;
  findByName(teamId: number, name: string): Promise<Asset | undefined>;
  /** Root assets of the team among the given names. */
  findRootsByName(teamId: number, names: string[]): Promise<Asset[]>;
  /** Assets of every team with that name (for operators). */
  findAllByName(name: string): Promise<Asset[]>;
  insert(asset: Omit<Asset, 'id'>): Promise<Asset>;
  delete(teamId: number, id: number): Promise<boolean>;
  updateSettings(teamId: number, id: number, settings: AssetSettings, at: Date): Promise<void>;
  countMonitored(teamId: number): Promise<number>;
  recordCheck(id: number, status: AssetStatus, at: Date): Promise<void>;
  /** Serialises capacity checks of one team (a row lock on PostgreSQL; SQLite has one writer). */
  lockTeam(teamId: number): Promise<void>;
}
