import type { DiscoveredName } from './dns-names.ts';

/** One resource record as the engine reports it (presentation form). */
export interface DnsRecordInput {
  /** Owner name, absolute; a trailing dot and case are normalised away. */
  name: string;
  ttl: number;
  type: string;
  /** RDATA in presentation form. */
  data: string;
}

/**
 * Where a name or record came from; becomes part of the asset's `added_by`. The zone sources
 * (an upload, a transfer, a lookup job) each keep their own record set; the surface-monitoring
 * sources share one (`records_surface`: what the latest run resolved), and tell how a run
 * found the name: a DNS answer, a certificate, a web page, the word list, a permutation, or
 * `surface-monitoring` for a name the inventory already held that a run saw again.
 */
export type ZoneSource = 'zone-file' | 'zone-transfer' | 'zone-lookup' | SurfaceSource;

/** The sources of surface monitoring (see ZoneSource). */
export type SurfaceSource = 'dns-scrape' | 'certificate-scrape' | 'page-scrape' | 'brute-force' | 'permutation' | 'surface-monitoring';

/** A root domain asset records may be indexed under. */
export interface RootDomain {
  id: number;
  name: string;
  status: 'verified' | 'unverified';
}

/** One name to index with its records. */
export interface IndexedName {
  name: string;
  records: DnsRecordInput[];
  /** The name's first records were written earlier in the same run: merge, do not replace. */
  merge?: boolean;
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

/** Persistence of indexed names and records. Every method is scoped to a team. */
export interface ZoneRepository {
  /**
   * Serialises the team's indexing runs until the transaction ends (an advisory lock on
   * PostgreSQL; SQLite has one writer). Nothing else waits on it.
   */
  lockIndexing(teamId: number): Promise<void>;
  /** The team's root domain assets (what records may be indexed under). */
  rootDomains(teamId: number): Promise<RootDomain[]>;
  /**
   * Creates or refreshes the discovered names (under `root`, or the root itself) with this
   * source's record set, and adds the source to added_by of the names that are assets (all of
   * them are in `assetNames` when it is given). Returns how many names were written.
   */
  indexNames(teamId: number, root: RootDomain, names: IndexedName[], source: ZoneSource, at: Date, assetNames?: ReadonlySet<string>): Promise<number>;
  /**
   * Every asset name of the team when it has at most `limit` assets (else undefined): with it,
   * indexNames looks up only the names that are assets instead of every name.
   */
  assetNames(teamId: number, limit: number): Promise<ReadonlySet<string> | undefined>;
  /** A discovered name of the team by its token (whether or not an asset shadows it). */
  findByToken(teamId: number, token: string): Promise<DiscoveredName | undefined>;
  /** Discovered names that are not assets of the team, in key order. */
  listDocuments(query: NamePageQuery): Promise<NameDocument[]>;
  deleteName(teamId: number, name: string): Promise<boolean>;
  /** Marks whether an asset of the team has the name (the listing then shows the asset). */
  setShadowed(teamId: number, name: string, shadowed: boolean): Promise<void>;
  /**
   * Refreshes the planner's statistics of the discovered names after a large run (PostgreSQL;
   * SQLite plans by index shape): a page read right after an upload of 100k names must not
   * be planned for the 100 the statistics knew.
   */
  refreshStatistics(): Promise<void>;
  /**
   * Every name the team holds under a domain (strictly under it): discovered names with their
   * sources, and subdomain assets (sources empty). Surface monitoring re-checks them each run.
   */
  namesUnder(teamId: number, domain: string): Promise<Array<{ name: string; sources: ZoneSource[] }>>;
  /** Removes the names indexed under a root asset (and its apex's records). */
  deleteUnder(teamId: number, root: RootDomain): Promise<void>;
}
