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
}

/** Limits of one scan, from configuration. */
export interface ScanLimits {
  maxPages: number;
  maxDepth: number;
  maxDurationMs: number;
  /** Time limit of one request. */
  requestTimeoutMs: number;
}

/**
 * The port every application-scan engine implements (engine/http-scan). Every connection goes
 * through the egress guard and ends with the signal; an unreachable host is reported, never thrown.
 */
export interface ScanEngine {
  /** Endpoint validation: GET over HTTPS then HTTP (redirects inside `scopeName` followed), within timeoutMs. */
  probe(endpoint: EndpointAddress, scopeName: string, signal: AbortSignal, timeoutMs: number): Promise<ProbeResult>;
  /** Crawls the target and runs the checks, honouring the profile's settings. */
  scan(target: ScanTarget, settings: ScanProfileSettings, limits: ScanLimits, sink: ScanSink, signal: AbortSignal): Promise<ScanOutcome>;
}
