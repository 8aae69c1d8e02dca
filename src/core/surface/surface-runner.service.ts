import type { ServiceLogger } from '../shared/service-logger.ts';
import { defaultAssetSettings, type AssetSettings } from '../assets/asset-settings.ts';
import type { Asset, SurfaceSource, ZoneSource } from '../assets/asset.types.ts';
import type { ScanSink } from '../scans/scan-engine.ts';
import type { FindingSink } from '../scans/scan.types.ts';
import type { Team } from '../teams/team.types.ts';
import type { FindingInput } from '../vulnerabilities/vulnerability.types.ts';
import type { DnsRecordInput } from '../zones/zone.types.ts';
import {
  defaultWebOrigins,
  isExposureOff,
  observeExposure,
  type ExposureDeps,
  type ExposureObservations,
  type PortInventoryPort,
  type TechnologyInventoryPort,
} from './exposure-phase.ts';
import type { IpInventoryService } from './ip-inventory.service.ts';
import type { DiscoveredSource, SurfaceDiscoveryReport, SurfaceEngine } from './surface-engine.ts';
import type {
  BreachEvaluator,
  NameIndexer,
  SurfaceRun,
  SurfaceRunProgress,
  SurfaceRunSummary,
  SurfaceStore,
} from './surface-run.types.ts';
import { subdomainEvents, subdomainChanges } from './surface-events.ts';
import { subdomainTakeoverFinding } from './takeover-finding.ts';

/** What the surface-run job runs with. */
export interface SurfaceRunnerDeps {
  store: SurfaceStore;
  engine: SurfaceEngine;
  ipInventory: Pick<IpInventoryService, 'recordRun'>;
  /** Ports, TLS and technologies (the exposure engines and the two inventories they feed). */
  exposure: Omit<ExposureDeps, 'requestTimeoutMs' | 'ports'>;
  portInventory: PortInventoryPort;
  technologyInventory: TechnologyInventoryPort;
  /** Where the findings go (the vulnerabilities' ingestion). */
  findings: FindingSink;
  /** Where the resolved names go (the zones' index). */
  names: NameIndexer;
  /** The policy evaluation over the recorded inventory. */
  breaches: BreachEvaluator;
  log: ServiceLogger;
  /** Time limit of one request of the stateless tests. */
  requestTimeoutMs: number;
  /** Ports of the web origins (443 and 80; tests point them at loopback servers). */
  ports?: { https: number; http: number };
  /** How often progress is saved and a stop request looked for (default 1000 ms). */
  tickMs?: number;
}

/** Thrown when the worker itself stops mid-run: the job goes back to the queue and the run starts again. */
export class SurfaceRunInterruptedError extends Error {
  override readonly name = 'SurfaceRunInterruptedError';
}

/** The added_by source of a name found by a run, from the engine's first source of it. */
function sourceOf(sources: readonly DiscoveredSource[]): SurfaceSource {
  const map: Partial<Record<DiscoveredSource, SurfaceSource>> = {
    dns: 'dns-scrape',
    certificate: 'certificate-scrape',
    page: 'page-scrape',
    'brute-force': 'brute-force',
    permutation: 'permutation',
  };
  for (const source of sources) {
    const mapped = map[source];
    if (mapped !== undefined) return mapped;
  }
  return 'surface-monitoring';
}

/** The records a run resolved for a name, as the inventory keeps them (what the latest run saw). */
function recordsOf(name: SurfaceDiscoveryReport['names'][number]): DnsRecordInput[] {
  const records: DnsRecordInput[] = [];
  if (name.cnames !== undefined && name.cnames.length > 0)
    records.push({ name: name.name, ttl: 0, type: 'CNAME', data: `${name.cnames[0]}.` });
  for (const address of name.addresses)
    records.push({ name: name.name, ttl: 0, type: address.includes(':') ? 'AAAA' : 'A', data: address });
  return records;
}

const zoneSources: readonly ZoneSource[] = ['zone-file', 'zone-transfer', 'zone-lookup', 'connector'];

/** A name the zones already hold under the monitored domain, with where it came from. */
interface HeldName {
  name: string;
  sources: ZoneSource[];
}

/**
 * Runs one surface-monitoring run of a monitored domain: discovery (and takeover tests), the
 * found names into the inventory (discovered subdomains, with their source in added_by), the
 * IP inventory, the stateless tests against every live web origin, and the findings through the
 * ingestion service (scan source surface-monitoring), where a completed run patches what it no
 * longer sees. A stop request (monitoring turned off), seen within one tick, aborts the engines
 * and ends the run `stopped` with nothing recorded. A run whose worker stops is thrown back to
 * the queue (SurfaceRunInterruptedError) and starts again: every write is an upsert or a
 * whole-run replacement, and nothing is written before discovery has finished.
 */
export async function runSurfaceRun(
  deps: SurfaceRunnerDeps,
  runId: number,
  ctx: { runner: string; signal: AbortSignal },
): Promise<void> {
  const { store } = deps;
  const run = await store.surfaceRuns.findById(runId);
  if (run === undefined || !['queued', 'running', 'stopping'].includes(run.status)) return;
  if (run.status === 'stopping') {
    await store.surfaceRuns.end(run.id, 'stopped', new Date(), {});
    return;
  }
  if (!(await store.surfaceRuns.markRunning(run.id, ctx.runner, new Date()))) return;
  const asset = await store.assets.findById(run.teamId, run.assetId);
  const team = await store.teams.findById(run.teamId);
  if (asset === undefined || team === undefined || !asset.monitored || asset.kind !== 'domain') {
    await store.surfaceRuns.end(run.id, 'stopped', new Date(), { error: 'Surface monitoring is off for the asset' });
    return;
  }
  if (asset.status !== 'verified') {
    await store.surfaceRuns.end(run.id, 'failed', new Date(), {
      error: `${asset.name} is not verified any more: monitoring runs only on verified domains`,
    });
    return;
  }

  const progress: SurfaceRunProgress = {
    phase: 'discovery',
    candidates: 0,
    live: 0,
    takeovers: 0,
    origins: 0,
    requests: 0,
    findings: 0,
    portsProbed: 0,
    openPorts: 0,
    tlsEndpoints: 0,
    technologies: 0,
  };
  const stop = new AbortController();
  const tick = async () => {
    await store.surfaceRuns.setProgress(run.id, progress);
    const current = await store.surfaceRuns.findById(run.id);
    const owner = current === undefined ? undefined : await store.assets.findById(current.teamId, current.assetId);
    if (current === undefined || current.status !== 'running' || owner === undefined || !owner.monitored)
      stop.abort(new Error('stop requested'));
  };
  let ticking: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    ticking = ticking
      .then(tick)
      .catch((err: unknown) => deps.log.warn({ err, run: run.id }, 'saving surface run progress failed'));
  }, deps.tickMs ?? 1000);
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  try {
    const summary = await work(deps, run, asset, team, progress, signal);
    clearInterval(timer);
    await ticking;
    progress.phase = 'done';
    await store.surfaceRuns.setProgress(run.id, progress);
    await store.surfaceRuns.end(run.id, 'completed', new Date(), { summary });
    deps.log.info({ run: run.id, asset: asset.name, ...summary }, 'surface run completed');
  } catch (err) {
    clearInterval(timer);
    await ticking;
    if (stop.signal.aborted) {
      await store.surfaceRuns.end(run.id, 'stopped', new Date(), {});
      deps.log.info({ run: run.id, asset: asset.name }, 'surface run stopped');
      return;
    }
    if (ctx.signal.aborted)
      throw new SurfaceRunInterruptedError('The worker stopped during the run; it starts again on the next delivery');
    throw err;
  }
}

/** What every step of a run's work shares: the run, its asset and team, the settings it runs with. */
interface RunWork {
  deps: SurfaceRunnerDeps;
  run: SurfaceRun;
  asset: Asset;
  team: Team;
  settings: AssetSettings;
  customHeaders: Array<{ name: string; value: string }>;
  progress: SurfaceRunProgress;
  signal: AbortSignal;
}

/** The run's work once it holds the run; throws on abort (the caller decides what that means). */
async function work(
  deps: SurfaceRunnerDeps,
  run: SurfaceRun,
  asset: Asset,
  team: Team,
  progress: SurfaceRunProgress,
  signal: AbortSignal,
): Promise<SurfaceRunSummary> {
  const settings = asset.settings ?? defaultAssetSettings;
  const customHeaders = Object.entries(settings.custom_headers ?? {}).map(([name, value]) => ({ name, value }));
  const w: RunWork = { deps, run, asset, team, settings, customHeaders, progress, signal };
  const held = await deps.store.zones.namesUnder(team.id, asset.name);
  const listed = await deps.store.surfaceNames.listedUnder(team.id, asset.name);
  if (await skipWhenEverythingIsOff(w)) return emptySummary();
  const report = await discover(w, held);
  // The exposure engines, stateless tests and takeover findings are gathered before anything is
  // written: a stop during them leaves the inventories as the previous run left them.
  const exposure = await observe(w, report);
  const findings: FindingInput[] = [...report.takeovers.map((t) => subdomainTakeoverFinding(t)), ...exposure.findings];
  progress.findings = findings.length;
  await runStatelessTests(w, report, exposure, findings);
  progress.phase = 'inventory';
  const newNames = await indexNames(w, report, held, listed);
  const recorded = await recordInventories(w, report, exposure);
  progress.phase = 'findings';
  const result = await ingestFindings(w, findings);
  for (const warning of [...report.warnings, ...exposure.warnings].slice(0, 20))
    await deps.store.surfaceRuns.addWarning(run.id, warning);
  return {
    names: report.names.length,
    newNames,
    goneNames: report.gone.length,
    addresses: recorded.addresses,
    isWildcard: report.isWildcard,
    takeovers: report.takeovers.length,
    ports: recorded.ports,
    technologies: recorded.technologies,
    tlsEndpoints: settings.enable_tls_discovery ? exposure.tlsEndpoints : null,
    findings: result,
    breaches: recorded.breaches,
  };
}

/** True, with a warning on the run, when every test is switched off: the run then sends and records nothing. */
async function skipWhenEverythingIsOff(w: RunWork): Promise<boolean> {
  const { settings } = w;
  if (settings.scrape || settings.subdomain_takeover_tests || settings.stateless_tests || !isExposureOff(settings))
    return false;
  // Not even the known names are resolved: a run with every test switched off sends nothing,
  // and records nothing (the inventories keep what earlier runs saw).
  await w.deps.store.surfaceRuns.addWarning(
    w.run.id,
    'Every surface-monitoring test is switched off in the asset settings: the run sent nothing and recorded nothing',
  );
  return true;
}

/** Discovery (and takeover tests) under the asset's name, seeded with the names already held. */
async function discover(w: RunWork, held: readonly HeldName[]): Promise<SurfaceDiscoveryReport> {
  const { settings, progress, signal } = w;
  const isZoneName = (n: HeldName) => n.sources.some((s) => zoneSources.includes(s));
  const report = await w.deps.engine.discover({
    root: w.asset.name,
    knownNames: held.filter((n) => !isZoneName(n)).map((n) => n.name),
    zoneNames: held.filter(isZoneName).map((n) => n.name),
    scrape: settings.scrape,
    bruteForce: settings.brute_force,
    takeoverTests: settings.subdomain_takeover_tests,
    requestsPerSecond: settings.requests_per_second,
    customHeaders: w.customHeaders,
    signal,
    onProgress: (p) => Object.assign(progress, { candidates: p.candidates, live: p.live, takeovers: p.takeovers }),
  });
  signal.throwIfAborted();
  return report;
}

/** Ports, TLS and technologies of what discovery found (nothing written yet). */
async function observe(w: RunWork, report: SurfaceDiscoveryReport): Promise<ExposureObservations> {
  const { deps } = w;
  return observeExposure(
    {
      ...deps.exposure,
      requestTimeoutMs: deps.requestTimeoutMs,
      ...(deps.ports === undefined ? {} : { ports: deps.ports }),
    },
    report,
    w.asset.name,
    w.settings,
    w.customHeaders,
    w.progress,
    w.signal,
  );
}

/** The stateless tests against every live web origin, their findings added to `findings` (when the settings ask for them). */
async function runStatelessTests(
  w: RunWork,
  report: SurfaceDiscoveryReport,
  exposure: ExposureObservations,
  findings: FindingInput[],
): Promise<void> {
  const { deps, settings, progress, signal } = w;
  const origins = settings.stateless_tests
    ? [...defaultWebOrigins(report, w.asset.name, deps.ports), ...exposure.extraOrigins]
    : [];
  if (origins.length === 0) return;
  progress.phase = 'stateless-tests';
  const sink: ScanSink = {
    finding: async (finding) => {
      findings.push(finding);
      progress.findings = findings.length;
    },
    progress: (counters) => {
      progress.requests = counters.requestsSent;
    },
    warning: (message) => void deps.store.surfaceRuns.addWarning(w.run.id, message).catch(() => undefined),
  };
  const outcome = await deps.engine.statelessTests(
    origins,
    {
      requestsPerSecond: settings.requests_per_second,
      customHeaders: w.customHeaders,
      requestTimeoutMs: deps.requestTimeoutMs,
    },
    sink,
    signal,
  );
  signal.throwIfAborted();
  progress.origins = outcome.origins.filter((o) => o.isAnswered).length;
  progress.requests = outcome.origins.reduce((sum, o) => sum + o.requestsSent, 0);
}

/**
 * The resolved names into the zones' index, by source, in one transaction, with the names the
 * run found gone no longer listed and the subdomain events of both; returns how many names are new.
 */
async function indexNames(
  w: RunWork,
  report: SurfaceDiscoveryReport,
  held: readonly HeldName[],
  listed: ReadonlySet<string>,
): Promise<number> {
  const bySource = new Map<ZoneSource, DnsRecordInput[]>();
  const heldNames = new Set(held.map((n) => n.name));
  const recorded: string[] = [];
  let newNames = 0;
  for (const name of report.names) {
    if (name.name !== w.asset.name && !heldNames.has(name.name)) newNames += 1;
    const records = recordsOf(name);
    if (records.length === 0) continue;
    recorded.push(name.name);
    const source = sourceOf(name.sources);
    const list = bySource.get(source);
    if (list === undefined) bySource.set(source, records);
    else list.push(...records);
  }
  const gone = report.gone.map((g) => g.name);
  const names = subdomainChanges({ root: w.asset.name, recorded, gone, held, listed });
  const base = { teamId: w.team.id, asset: w.asset, at: new Date() };
  const events = [
    ...subdomainEvents('subdomain.discovered', base, names.discovered),
    ...subdomainEvents('subdomain.disappeared', base, names.disappeared),
  ];
  await w.deps.store.transaction(async (tx) => {
    for (const [source, records] of bySource) await w.deps.names.indexRecords(tx, w.team, [records], source);
    await tx.surfaceNames.markGone(w.team.id, names.disappeared);
    if (events.length > 0) await tx.events.append(events);
  });
  return newNames;
}

/** The addresses, ports and technologies into their inventories, then the policies evaluated over them. */
async function recordInventories(
  w: RunWork,
  report: SurfaceDiscoveryReport,
  exposure: ExposureObservations,
): Promise<Pick<SurfaceRunSummary, 'ports' | 'technologies' | 'breaches'> & { addresses: number }> {
  const { deps, asset } = w;
  const teamId = w.team.id;
  const seen = report.names.flatMap((n) => n.addresses.map((address) => ({ name: n.name, address })));
  const at = Date.now();
  const ips = await deps.ipInventory.recordRun({ teamId, assetId: asset.id, seen, at });
  const recorded = await recordExposure(deps, teamId, asset.id, at, exposure);
  const breaches = await deps.breaches.evaluateBreaches(deps.store, { teamId, assetId: asset.id, at });
  return { addresses: ips.seen, ...recorded, breaches };
}

/** The run's findings through the ingestion (scan source surface-monitoring), which patches what the run no longer sees. */
async function ingestFindings(w: RunWork, findings: readonly FindingInput[]): Promise<SurfaceRunSummary['findings']> {
  const { asset } = w;
  const ingestion = w.deps.findings.begin(w.deps.store, {
    teamId: w.team.id,
    asset: { id: asset.id, token: asset.token, name: asset.name },
    scanSource: 'surface-monitoring',
    scanProfileToken: null,
    scannedAt: new Date(),
  });
  for (const finding of findings) await ingestion.add(finding);
  return ingestion.finish(true);
}

/** The ports and technologies a completed run saw, into their inventories (an engine that did not run changes nothing). */
async function recordExposure(
  deps: SurfaceRunnerDeps,
  teamId: number,
  assetId: number,
  at: number,
  exposure: ExposureObservations,
): Promise<Pick<SurfaceRunSummary, 'ports' | 'technologies'>> {
  const ports =
    exposure.openPorts === undefined
      ? null
      : await deps.portInventory.recordRun({ teamId, assetId, at, open: exposure.openPorts });
  const technologies =
    exposure.technologies === undefined
      ? null
      : await deps.technologyInventory.recordRun({ teamId, assetId, at, seen: exposure.technologies });
  return { ports, technologies };
}

/** The summary of a run that did nothing. */
function emptySummary(): SurfaceRunSummary {
  return {
    names: 0,
    newNames: 0,
    goneNames: 0,
    addresses: 0,
    isWildcard: false,
    takeovers: 0,
    ports: null,
    tlsEndpoints: null,
    technologies: null,
    findings: { created: 0, updated: 0, regressions: 0, patched: 0 },
    breaches: null,
  };
}

/** Ends a run that failed on every delivery. */
export async function failSurfaceRun(store: SurfaceStore, runId: number, error: string): Promise<void> {
  await store.surfaceRuns.end(runId, 'failed', new Date(), { error });
}
