import type { DiscoveredNameRepository, RootDomain, ZoneSource } from '../assets/asset.types.ts';

/** One resource record as the engine reports it (presentation form). */
export interface DnsRecordInput {
  /** Owner name, absolute; a trailing dot and case are normalised away. */
  name: string;
  ttl: number;
  type: string;
  /** RDATA in presentation form. */
  data: string;
}

/** One name to index with its records. */
export interface IndexedName {
  name: string;
  records: DnsRecordInput[];
  /** The name's first records were written earlier in the same run: merge, do not replace. */
  merge?: boolean;
}

/**
 * Persistence of indexed names and records. Every method is scoped to a team. What the asset
 * services read and change of the discovered names is their port (DiscoveredNameRepository).
 */
export interface ZoneRepository extends DiscoveredNameRepository {
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
  indexNames(
    teamId: number,
    root: RootDomain,
    names: IndexedName[],
    source: ZoneSource,
    at: Date,
    assetNames?: ReadonlySet<string>,
  ): Promise<number>;
  /**
   * Every asset name of the team when it has at most `limit` assets (else undefined): with it,
   * indexNames looks up only the names that are assets instead of every name.
   */
  assetNames(teamId: number, limit: number): Promise<ReadonlySet<string> | undefined>;
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
}
