import type { BulkResolver, LookupOutcome } from '../dns/bulk-resolver.ts';
import type { DnsResolver } from '../dns/resolver.ts';
import type { EgressGuard } from '../net/egress-guard.ts';

/**
 * Where a discovered name came from (the core maps these to `added_by`):
 * - `dns`: a target in a DNS answer (CNAME, MX, NS, SRV, SOA, TXT/SPF include:/redirect=/a:/mx:);
 * - `certificate`: a subjectAltName (or subject CN) of a certificate a host presented on HTTPS;
 * - `page`: a host name in a page, its links, scripts or response headers;
 * - `zone`: a name of zone data the team uploaded (given by the core);
 * - `brute-force`: a word of the shipped list under the root;
 * - `permutation`: a variant of a name already found (dev-, -staging, 1/2 …);
 * - `known`: a name already in the inventory (given by the core), and the root itself.
 */
export type DiscoverySource = 'dns' | 'certificate' | 'page' | 'zone' | 'brute-force' | 'permutation' | 'known';

/** One live name under the root: it has an address, a CNAME or is a delegation point. */
export interface DiscoveredName {
  /** Owner form: lower-case ASCII, no trailing dot. */
  name: string;
  /** Every source that produced the name in this run: the first one first, then the others. */
  sources: DiscoverySource[];
  /** A and AAAA addresses (after the CNAME chain), sorted; empty for a dangling CNAME or a delegation. */
  addresses: string[];
  /** The CNAME chain from the name, in order (targets without trailing dot); absent when none. */
  cnames?: string[];
  /** Name servers when the name is a zone cut delegated from the root's zone. */
  nameServers?: string[];
  /** Scraping steps from a seed (known, zone, root, brute force and permutations are 0). */
  depth: number;
}

/** A name given by the core (known or zone) that no longer resolves. */
export interface GoneName {
  name: string;
  /** `nxdomain`: the name does not exist; `nodata`: it exists without address, CNAME or delegation. */
  outcome: 'nxdomain' | 'nodata';
}

/** A name whose lookup failed (timeout, SERVFAIL …): neither live nor gone in this run. */
export interface UnresolvedName {
  name: string;
  outcome: LookupOutcome;
  detail: string;
}

/** A zone level that answers any label: candidates there are kept only when their answer differs. */
export interface WildcardObservation {
  /** The name under which random labels resolved (the root or a name under it). */
  parent: string;
  /** Addresses and CNAME targets the random labels got. */
  addresses: string[];
  cnames: string[];
  /** Brute-force and permutation names dropped because they got the wildcard's answer. */
  filtered: number;
  /** A few of the dropped names, for the record. */
  samples: string[];
}

/**
 * A name that another party could claim:
 * - `cname`: its CNAME chain ends in a name that does not exist (NXDOMAIN), or at a provider
 *   that serves its "unclaimed" page for the name;
 * - `ns`: it is delegated to name servers that do not exist or do not serve the zone
 *   (SERVFAIL, REFUSED, NXDOMAIN or no SOA from every one of them).
 */
export interface TakeoverObservation {
  name: string;
  kind: 'cname' | 'ns';
  /** The dangling CNAME target, or the name servers of the delegation (comma-separated). */
  target: string;
  /** The hosting provider of the data file whose suffix the target matches. */
  provider?: string;
  /** What was seen: the DNS answers and/or the HTTP status and the signature that matched. */
  evidence: string;
}

/** Counters of a run. */
export interface DiscoveryStats {
  /** Names resolved (every candidate of every source, each once). */
  candidates: number;
  /** DNS queries the bulk resolver sent for them (retries included). */
  queries: number;
  /** Of those, retries after a timeout or a failure, and queries that timed out. */
  retries: number;
  timeouts: number;
  /** Time spent resolving candidates (the rest is scraping, probing and takeover tests), ms. */
  resolveMs: number;
  /** Brute-force and permutation candidates tried. */
  bruteForceCandidates: number;
  permutationCandidates: number;
  /** True when the permutation bound cut the list. */
  isPermutationCapped: boolean;
  /** Hosts whose certificate and pages were read. */
  hostsScraped: number;
  /** Live hosts not read because the egress guard refuses one of their addresses. */
  hostsSkippedByGuard: number;
  /** HTTP requests and TLS handshakes sent. */
  httpRequests: number;
  durationMs: number;
}

/** The outcome of one run: plain data the core persists; the engine never writes the store. */
export interface DiscoveryReport {
  root: string;
  /** True when random labels directly under the root resolve. */
  isWildcard: boolean;
  /** Every wildcard level met, with what it filtered. */
  wildcards: WildcardObservation[];
  /**
   * Every live name under the root (the root included when it resolves), sorted by name; empty
   * when the request gave `onNames` (the names went there instead).
   */
  names: DiscoveredName[];
  /** Known and zone names that do not resolve any more. */
  gone: GoneName[];
  /** Names whose lookup failed: keep their state, try again next run. */
  unresolved: UnresolvedName[];
  /** Empty unless takeover tests were asked for. */
  takeovers: TakeoverObservation[];
  /** Problems met on the way (unreachable hosts are not problems), at most 100. */
  warnings: string[];
  stats: DiscoveryStats;
}

/** The phase a run is in, with its counters so far. */
export interface DiscoveryProgress {
  phase: 'seeds' | 'scrape' | 'brute-force' | 'permutations' | 'takeover' | 'done';
  candidates: number;
  live: number;
  takeovers: number;
}

/** One run's parameters, from the asset's settings. */
export interface DiscoveryRequest {
  /** The verified root domain. */
  root: string;
  /** Names already in the inventory (re-checked; those that stop resolving are reported gone). */
  knownNames: string[];
  /** Names of zone data the team uploaded (source `zone`). */
  zoneNames?: string[];
  /** Scrape DNS answers, certificates and pages (the `scrape` setting). */
  scrape: boolean;
  /** Word list, wildcard filtering and permutations; only runs when `scrape` is true too. */
  bruteForce: boolean;
  /** Dangling CNAME, provider fingerprint and broken NS delegation checks. */
  takeoverTests: boolean;
  /** Requests per second per HTTP origin; 0 = unlimited. */
  requestsPerSecond: number;
  /** Sent with every HTTP request (names start with x- per the settings rules). */
  customHeaders: Array<{ name: string; value: string }>;
  /** Scraping steps followed from a seed (default 3). */
  maxDepth?: number;
  signal: AbortSignal;
  /** Called at each phase and about once a second while resolving. */
  onProgress?(progress: DiscoveryProgress): void;
  /**
   * Receives the live names in batches (up to 1,000, in the order they are confirmed, not
   * sorted) while the run goes on, instead of `report.names`, which then stays empty: the run
   * keeps no list of them, so its memory does not grow with the names found. Each name comes
   * once, with the sources known when it was confirmed (a source that finds it again later, e.g.
   * the word list naming a known host, is not reported again). Awaited: while a batch is being
   * consumed the run stops taking new candidates once its resolver window is full, so a slow
   * consumer holds it back. A rejection ends the run with that error. Every batch has been
   * delivered (and its promise settled) before discoverSurface resolves.
   */
  onNames?(batch: DiscoveredName[]): Promise<void>;
}

/** A hosting provider of the takeover data file. */
export interface TakeoverProvider {
  provider: string;
  /** CNAME target suffixes (a target equal to or under one matches). */
  cnames: string[];
  /** Texts of the provider's "unclaimed" page; any one found in the body matches. */
  fingerprints: string[];
  /** True when the provider's unclaimed targets are NXDOMAIN (no page to match). */
  nxdomain: boolean;
  /** Only `vulnerable` entries raise a takeover. */
  status: 'vulnerable' | 'edge case' | 'not vulnerable';
  reference: string;
}

/** Ports the engine talks to: 443, 80 and 53 in the world; tests point them at loopback servers. */
export interface DiscoveryPorts {
  https: number;
  http: number;
  dns: number;
}

/** Bounds of a run (defaults in surface-discovery.ts). */
export interface DiscoveryLimits {
  /** Hosts whose certificate and pages are read at once. */
  hostConcurrency: number;
  /** Requests in flight per origin. */
  perOriginInFlight: number;
  /** Time limit of one HTTP request or TLS handshake, ms. */
  httpTimeoutMs: number;
  /** Largest page body read, bytes. */
  pageBodyLimit: number;
  /** Same-root scripts of a page read for names. */
  scriptsPerPage: number;
  /** Names permuted, and candidates generated at most. */
  permutationBases: number;
  maxPermutations: number;
  /** Time limit of one direct query to a delegated name server, ms. */
  nameServerTimeoutMs: number;
}

/** What the engine needs; the core builds it once per process. */
export interface DiscoveryDeps {
  guard: EgressGuard;
  /** Resolves hosts for the guard when the run has not resolved them itself. */
  resolver: DnsResolver;
  /** The bulk resolver every candidate goes through (owned by the caller: not closed here). */
  bulk: BulkResolver;
  /** Word list for brute force; default the shipped top 10,000 list. */
  wordList?: readonly string[];
  /** Takeover providers; default the shipped data file. */
  providers?: readonly TakeoverProvider[];
  ports?: Partial<DiscoveryPorts>;
  limits?: Partial<DiscoveryLimits>;
}
