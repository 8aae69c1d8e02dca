import type { FindingInput } from '../vulnerabilities/vulnerability.types.ts';
import type { ScanProfileSettings } from './scan-profile-settings.ts';

/** An endpoint as a profile stores it: host (lowercase, IPv6 without brackets), optional port and scheme. */
export interface EndpointAddress {
  host: string;
  port: number | null;
  scheme: 'http' | 'https' | null;
}

/** What endpoint validation found: the origin that answered, or why none did. */
export type ProbeResult =
  | { isReachable: true; scheme: 'http' | 'https'; port: number; status: number; url: string }
  | { isReachable: false; observations: string[] };

/** The origin a scan starts from and the name it must stay inside. */
export interface ScanTarget {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  /** The asset's name: the crawler never leaves it (a host equal to it or under it). */
  scopeName: string;
}

/** Counters a scan reports while it runs (each report carries the totals so far). */
export interface ScanCounters {
  pagesCrawled: number;
  requestsSent: number;
  checksDone: number;
  /**
   * Share of the work known so far that is done, 0 to 1, when the engine can tell: it may fall
   * when the crawl finds more pages (the runner keeps the highest value a scan reached).
   */
  fraction?: number;
}

/**
 * Where an engine reports what it observes. Only the core writes the store: the scan job turns
 * findings into vulnerabilities through the ingestion service. `finding` may wait (backpressure).
 */
export interface ScanSink {
  finding(finding: FindingInput): Promise<void>;
  progress(counters: ScanCounters): void;
  /** A limit hit, a page skipped, a setting that could not be honoured: shown in the scan's warnings. */
  warning(message: string): void;
}

/** How a scan ended, as the engine judges it. An aborted scan resolves with `aborted`. */
export interface ScanOutcome {
  status: 'completed' | 'unable_to_resolve' | 'unable_to_complete' | 'aborted';
  /** Why it could not complete (for people). */
  error?: string;
  /**
   * What a completed scan reached: `answered` holds `origin/path` (origin as `scheme://host:port`,
   * the path as requested, no query) of every request that got an answer the checks could read
   * (a status below 500, not 429); `unanswered` counts the requests that got none (a time-out, a
   * refused or broken connection, a server error). A completed scan patches only the findings at
   * locations it reached (core/scans/scan-coverage.ts).
   */
  coverage?: { answered: string[]; unanswered: number };
}

/** Limits of one scan, from configuration. */
export interface ScanLimits {
  maxPages: number;
  maxDepth: number;
  maxDurationMs: number;
  /** Time limit of one request. */
  requestTimeoutMs: number;
}

/** A live web origin of an asset that the stateless tests examine; `host` is `scopeName` or a name under it. */
export interface StatelessOrigin {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  /** The asset's name: no request leaves it (the origin's host must be it or under it). */
  scopeName: string;
}

/** Settings of one stateless-tests run (the asset's settings and the configured time-out). */
export interface StatelessOptions {
  /** Requests per second to each origin (origins run side by side); 0 = unlimited. */
  requestsPerSecond: number;
  /** Sent with every request (a `User-Agent` here replaces the scanner's, a `Cookie` is sent as given). */
  customHeaders: Array<{ name: string; value: string }>;
  /** Time limit of one request. */
  requestTimeoutMs: number;
}

/** What the stateless tests did with one origin. */
export interface StatelessOriginResult {
  origin: StatelessOrigin;
  /** True when the start page got an HTTP response (any status); otherwise nothing else was requested. */
  isAnswered: boolean;
  /** Requests sent to the origin (the start page included). */
  requestsSent: number;
  /** Why the origin did not answer (refused, timed out, TLS, not resolvable, denied by the egress guard, outside scopeName). */
  error?: string;
}

/** How a stateless-tests run ended: one result per distinct origin, in the order given. */
export interface StatelessOutcome {
  status: 'completed' | 'aborted';
  origins: StatelessOriginResult[];
}

/**
 * The port every application-scan engine implements (engine/http-scan). Every connection goes
 * through the egress guard and ends with the signal; an unreachable host is reported, never thrown.
 */
export interface ScanEngine {
  /** Endpoint validation: GET over HTTPS then HTTP (redirects inside `scopeName` followed), within timeoutMs. */
  probe(endpoint: EndpointAddress, scopeName: string, signal: AbortSignal, timeoutMs: number): Promise<ProbeResult>;
  /** Crawls the target and runs the checks, honouring the profile's settings. */
  scan(
    target: ScanTarget,
    settings: ScanProfileSettings,
    limits: ScanLimits,
    sink: ScanSink,
    signal: AbortSignal,
  ): Promise<ScanOutcome>;
  /**
   * Surface monitoring's stateless tests: safe single GET requests to each origin (exposed
   * .git/.svn/.env, backups of well-known files, directory listings, phpinfo, server-status,
   * default and debug pages), findings reported exactly as scan() reports them. No crawling,
   * injection, login or state-changing method. An origin that does not answer is in the outcome.
   */
  statelessTests(
    origins: StatelessOrigin[],
    options: StatelessOptions,
    sink: ScanSink,
    signal: AbortSignal,
  ): Promise<StatelessOutcome>;
}
