import type { ScanEngine, ScanLimits, ScanSink } from '../../src/core/scans/scan-engine.ts';
import { defaultScanProfileSettings, type ScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { createHttpScanEngine } from '../../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import type { TargetServer } from './target-site.ts';
import { startVulnerableSites, type VulnerableSites } from './vulnerable-site/index.ts';

// Every target is 127.0.0.1: the system resolver is never asked and nothing leaves the machine.
const engine = createHttpScanEngine({
  guard: new EgressGuard(['127.0.0.0/8']),
  resolver: createDnsResolver(['127.0.0.1:9']) /* no name leaves the machine: a closed loopback port */,
});

/** Limits of a fixture scan; the time-based checks sleep 4 s, so a request may take up to 10 s. */
export const fixtureScanLimits: ScanLimits = {
  maxPages: 500,
  maxDepth: 10,
  maxDurationMs: 120_000,
  requestTimeoutMs: 10_000,
};

/** What a scan of a fixture site reported. */
export interface FixtureScan {
  status: string;
  findings: FindingInput[];
  warnings: string[];
}

/** How a fixture scan may differ from the default one. */
export interface FixtureScanOptions {
  /** Profile settings over the defaults. */
  settings?: Partial<ScanProfileSettings>;
  /** Another engine (its own browser path, canary). */
  engine?: ScanEngine;
  signal?: AbortSignal;
}

/** Scans a fixture site (one twin) with the default profile settings or the given ones, collecting what the engine reports. */
export async function scanFixture(
  server: Pick<TargetServer, 'port'> & { scheme?: 'http' | 'https' },
  limits: ScanLimits = fixtureScanLimits,
  options: FixtureScanOptions = {},
): Promise<FixtureScan> {
  const findings: FindingInput[] = [];
  const warnings: string[] = [];
  const sink: ScanSink = {
    finding: async (f) => void findings.push(f),
    progress: () => undefined,
    warning: (w) => void warnings.push(w),
  };
  const outcome = await (options.engine ?? engine).scan(
    { scheme: server.scheme ?? 'http', host: '127.0.0.1', port: server.port, scopeName: '127.0.0.1' },
    { ...defaultScanProfileSettings, ...options.settings },
    limits,
    sink,
    options.signal ?? new AbortController().signal,
  );
  return { status: outcome.status, findings, warnings };
}

/** The path (and query) of a finding's location. */
export const pathOf = (location: string): string => location.replace(/^https?:\/\/[^/]+/, '');

/** `check-id /path` of each finding, for assertion messages. */
export const summary = (findings: FindingInput[]): string[] =>
  findings.map((f) => `${f.checkId} ${pathOf(f.location)}`);

/** The injection checks' ids. */
export const injectionChecks = new Set([
  'sql-injection',
  'path-traversal',
  'open-redirect',
  'template-injection',
  'command-injection',
  'reflected-xss',
]);

/** Starts both twins of the fixture site and scans them side by side; the caller stops `sites`. */
export async function scanTwins(
  limits: ScanLimits = fixtureScanLimits,
): Promise<{ sites: VulnerableSites; vulnerable: FixtureScan; safe: FixtureScan }> {
  const sites = await startVulnerableSites();
  const [vulnerable, safe] = await Promise.all([
    scanFixture(sites.vulnerable, limits),
    scanFixture(sites.safe, limits),
  ]);
  return { sites, vulnerable, safe };
}
