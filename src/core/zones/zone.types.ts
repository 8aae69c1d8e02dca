/** One resource record as the engine reports it (presentation form). */
export interface DnsRecordInput {
  /** Owner name, absolute; a trailing dot and case are normalised away. */
  name: string;
  ttl: number;
  type: string;
  /** RDATA in presentation form. */
  data: string;
}

/** Where a name or record came from; becomes part of the asset's `added_by`. */
export type ZoneSource = 'zone-file' | 'zone-transfer' | 'zone-lookup';

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
}

/** Persistence of indexed names and records. Every method is scoped to a team. */
export interface ZoneRepository {
  /** The team's root domain assets (what records may be indexed under). */
  rootDomains(teamId: number): Promise<RootDomain[]>;
  /**
   * Creates or refreshes the assets of the names (subdomains of `root`, or the root itself) and
   * upserts their records, adding `source` to added_by. Returns how many names were written.
   */
  indexNames(teamId: number, root: RootDomain, names: IndexedName[], source: ZoneSource, at: Date): Promise<number>;
}
