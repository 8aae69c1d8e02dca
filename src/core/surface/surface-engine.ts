import type { ScanEngine } from '../scans/scan-engine.ts';

/**
 * The core's view of the discovery engine (engine/discovery): what a run asks and the plain
 * report it gets back. Only the core writes the store.
 */
export interface SurfaceDiscoveryRequest {
  root: string;
  /** Names the inventory holds under the root (assets and names found before). */
  knownNames: string[];
  /** Names of zone data the team uploaded. */
  zoneNames: string[];
  scrape: boolean;
  bruteForce: boolean;
  takeoverTests: boolean;
  requestsPerSecond: number;
  customHeaders: Array<{ name: string; value: string }>;
  signal: AbortSignal;
  onProgress?(progress: { phase: string; candidates: number; live: number; takeovers: number }): void;
}

/** Where a live name came from, as the engine says it. */
export type DiscoveredSource = 'dns' | 'certificate' | 'page' | 'zone' | 'brute-force' | 'permutation' | 'known';

/** What a run found: live names with their addresses, names gone, takeover candidates. */
export interface SurfaceDiscoveryReport {
  isWildcard: boolean;
  names: Array<{ name: string; sources: DiscoveredSource[]; addresses: string[]; cnames?: string[] }>;
  gone: Array<{ name: string; outcome: string }>;
  takeovers: Array<{ name: string; kind: 'cname' | 'ns'; target: string; provider?: string; evidence: string }>;
  warnings: string[];
}

/** The engines a surface run uses. */
export interface SurfaceEngine {
  discover(request: SurfaceDiscoveryRequest): Promise<SurfaceDiscoveryReport>;
  statelessTests: ScanEngine['statelessTests'];
}
