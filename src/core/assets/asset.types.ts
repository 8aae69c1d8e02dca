import type { Transactional } from '../shared/transactional.ts';
import type { TeamRepositories } from '../teams/team.types.ts';
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
export type AssetSummary = Pick<
  Asset,
  | 'id'
  | 'teamId'
  | 'token'
  | 'name'
  | 'kind'
  | 'status'
  | 'addedBy'
  | 'monitored'
  | 'created'
  | 'updated'
  | 'discovered'
  | 'lastSeen'
>;

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

/**
 * Where a name or record came from; becomes part of the asset's `added_by`. The zone sources
 * (an upload, a transfer, a lookup job) each keep their own record set; the surface-monitoring
 * sources share one (`records_surface`: what the latest run resolved), and tell how a run
 * found the name: a DNS answer, a certificate, a web page, the word list, a permutation, or
 * `surface-monitoring` for a name the inventory already held that a run saw again. `connector`:
 * a connector run brought it from a provider account (its own record set, `records_connector`).
 */
export type ZoneSource = 'zone-file' | 'zone-transfer' | 'zone-lookup' | SurfaceSource | 'connector';

/** The sources of surface monitoring (see ZoneSource). */
export type SurfaceSource =
  'dns-scrape' | 'certificate-scrape' | 'page-scrape' | 'brute-force' | 'permutation' | 'surface-monitoring';

/** A root domain asset records may be indexed under. */
export interface RootDomain {
  id: number;
  name: string;
  status: 'verified' | 'unverified';
}

/** One page of discovered names listed as assets (after the asset rows of the listing). */
export interface NamePageQuery {
  teamId: number;
  /** The names under one root asset, or (absent) every discovered name of the team. */
  under?: RootDomain;
  /** Key (reversed name) of the last name of the previous page. */
  afterKey: string | undefined;
  createdAfter: Date | undefined;
  limit: number;
}

/** A discovered name's key and its v2 wire JSON (an asset's fields). */
export interface NameDocument {
  key: string;
  document: string;
}

/**
 * A name found by DNS under one of the team's root domain assets. It is listed as a subdomain
 * of that root (taking the root's status: ownership of the root covers the names under it)
 * without an asset row; one is made when the name is acted upon.
 */
export interface DiscoveredName {
  teamId: number;
  name: string;
  rootId: number;
  token: string;
  /** An asset of the team has this name (made by hand, or from this name when acted upon). */
  shadowed: boolean;
  status: AssetStatus;
  sources: ZoneSource[];
  firstSeen: Date;
  updated: Date;
  lastSeen: Date;
}

/**
 * The discovered names as the asset services read and change them (the zone area indexes them;
 * its ZoneRepository extends this port). Every method is scoped to a team.
 */
export interface DiscoveredNameRepository {
  /** A discovered name of the team by its token (whether or not an asset shadows it). */
  findByToken(teamId: number, token: string): Promise<DiscoveredName | undefined>;
  /** Discovered names that are not assets of the team, in key order. */
  listDocuments(query: NamePageQuery): Promise<NameDocument[]>;
  deleteName(teamId: number, name: string): Promise<boolean>;
  /** Marks whether an asset of the team has the name (the listing then shows the asset). */
  setShadowed(teamId: number, name: string, shadowed: boolean): Promise<void>;
  /** Removes the names indexed under a root asset (and its apex's records). */
  deleteUnder(teamId: number, root: RootDomain): Promise<void>;
}

/** What deleting an asset asks of the scan profiles: how many hang on it (2026 while any do). */
export interface AssetProfileCount {
  countByAsset(teamId: number, assetId: number): Promise<number>;
}

/** What deleting an asset tells the vulnerabilities: the team's cached pages are stale (they went with it). */
export interface VulnerabilityVersionBump {
  bumpVersion(teamId: number): Promise<void>;
}

/** The kinds of events of the team log the asset services write (asset-events.ts builds them). */
export type AssetEventKind = 'asset.added' | 'asset.removed' | 'asset.verified';

/** An event of the team log as the asset services write it (the events area's NewEvent, narrowed). */
export interface AssetLogEntry {
  teamId: number;
  kind: AssetEventKind;
  occurredAt: Date;
  /** The root asset (subscriptions filter on it). */
  assetId: number;
  data: Record<string, unknown>;
}

/**
 * Port: the team event log, appended to in the caller's transaction. The events area's
 * EventRepository implements it; its types are not imported here (they lead back to this area
 * through the vulnerabilities' types: a loop of folders).
 */
export interface AssetEventLog {
  append(events: readonly AssetLogEntry[]): Promise<void>;
}

/**
 * The repositories of the asset services: assets, their discovered names, the narrow ports a
 * deletion needs, and the team event log.
 */
export interface AssetRepositories extends TeamRepositories {
  assets: AssetRepository;
  zones: DiscoveredNameRepository;
  scanProfiles: AssetProfileCount;
  vulnerabilities: VulnerabilityVersionBump;
  events: AssetEventLog;
}

/** The store as the asset services see it. */
export type AssetStore = Transactional<AssetRepositories>;

/**
 * What the asset-settings update tells monitoring once its transaction committed: turned on
 * queues a run right away; turned off stops the live run (a running one within seconds).
 * Surface monitoring implements it (monitoringControl).
 */
export interface MonitoringSwitch {
  enabled(teamId: number, assetId: number): Promise<void>;
  disabled(teamId: number, assetId: number): Promise<void>;
}

/** Largest page of an asset listing. */
export const maxAssetPageSize = 1000;
/** Page size when none is asked for. */
export const defaultAssetPageSize = 100;

/** One page of assets, with its markers. `teamHasAssets` false means the team owns none at all. */
export interface AssetPage {
  /** The items of the page as v2 wire JSON, in order: runs of comma-joined items, text or UTF-8 bytes. */
  items: Array<string | Uint8Array>;
  /** How many items the runs hold. */
  count: number;
  hasMore: boolean;
  nextMarker: string | undefined;
  currentMarker: string;
  teamHasAssets: boolean;
}

/** What a listing asks for, already in core terms. */
export interface AssetListInput {
  scope: 'roots' | 'all' | { subdomainsOf: string };
  marker: string | undefined;
  pageSize: number;
  createdAfter?: Date | undefined;
}

/** What a token names: an asset, or a name discovered by DNS that has no asset row. */
export type TokenTarget = { asset: Asset; discovered?: undefined } | { asset?: undefined; discovered: DiscoveredName };

/** Result of adding an asset: 2019 is carried as `parent` (the asset became its subdomain). */
export interface AddAssetResult {
  asset: Asset;
  parent: Asset | undefined;
}
