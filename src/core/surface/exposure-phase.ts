import type { AssetSettings } from '../assets/asset-settings.ts';
import type { StatelessOrigin } from '../scans/scan-engine.ts';
import type { FindingInput } from '../vulnerabilities/vulnerability.types.ts';
import type {
  ExposureEngines,
  FingerprintOrigin,
  ServiceGuess,
  TechnologyObservation,
  TlsTarget,
} from './exposure-engines.ts';
import type { SurfaceDiscoveryReport } from './surface-engine.ts';
import type { SurfaceRunProgress } from './surface-run.types.ts';

/** An open port as the port inventory records it. */
export interface ObservedPort {
  address: string;
  port: number;
  /** A name of the asset that resolved to the address (the first in sort order). */
  domainName: string;
  service: ServiceGuess;
}

/** A technology as the technology inventory records it. */
export interface ObservedTechnology {
  domainName: string;
  port: number;
  serviceProtocol: string;
  name: string;
  version: string | null;
  categories: string[];
}

/** The port inventory as the run uses it (PortInventoryService). */
export interface PortInventoryPort {
  recordRun(input: {
    teamId: number;
    assetId: number;
    at: number;
    open: ObservedPort[];
  }): Promise<{ opened: number; reopened: number; closed: number; open: number }>;
}

/** The technology inventory as the run uses it (TechnologyInventoryService). */
export interface TechnologyInventoryPort {
  recordRun(input: {
    teamId: number;
    assetId: number;
    at: number;
    seen: ObservedTechnology[];
  }): Promise<{ added: number; returned: number; disappeared: number; seen: number }>;
}

/** What the exposure phase needs beside the asset's settings. */
export interface ExposureDeps {
  engines: ExposureEngines;
  /** Time limit of one request or handshake. */
  requestTimeoutMs: number;
  /** Ports of the default web origins (443 and 80; tests point them at loopback servers). */
  ports?: { https: number; http: number };
}

/**
 * What the engines observed, gathered before anything is written. `undefined` means the engine
 * did not run (its setting is off): the inventory it feeds keeps what earlier runs recorded.
 */
export interface ExposureObservations {
  /**
   * One entry per (open port, name resolving to its address): the port inventory keeps the name it
   * shows while that name still resolves there, so it must see every name, not only the first.
   */
  openPorts: ObservedPort[] | undefined;
  technologies: ObservedTechnology[] | undefined;
  /** TLS findings and version advisories, for the ingestion service. */
  findings: FindingInput[];
  /** HTTP(S) services on discovered ports, for the stateless tests (include_discovered_ports_in_surface_monitoring). */
  extraOrigins: StatelessOrigin[];
  /** (address, port) pairs that spoke TLS. */
  tlsEndpoints: number;
  warnings: string[];
}

/** The settings of the exposure engines. */
type ExposureSettings = Pick<
  AssetSettings,
  | 'enable_port_scanning'
  | 'port_scanning_avoid_list'
  | 'port_scanning_force_list'
  | 'port_scanning_include_recommended_ports'
  | 'enable_tls_discovery'
  | 'enable_certificate_assessments'
  | 'enable_passive_tls_assessments'
  | 'enable_active_tls_assessments'
  | 'fingerprinting'
  | 'include_discovered_ports_in_surface_monitoring'
  | 'requests_per_second'
>;

/** True when no exposure engine would send anything. */
export function isExposureOff(settings: ExposureSettings): boolean {
  return !settings.enable_port_scanning && !settings.enable_tls_discovery && !settings.fingerprinting;
}

/**
 * The ports a scan tries: the recommended list when asked, plus the force list, minus the avoid
 * list; a port in both the force and the avoid list is scanned (the force list wins). Ascending.
 */
export function portsToScan(
  settings: Pick<
    ExposureSettings,
    'port_scanning_avoid_list' | 'port_scanning_force_list' | 'port_scanning_include_recommended_ports'
  >,
  recommended: readonly number[],
): number[] {
  const force = new Set(settings.port_scanning_force_list);
  const avoid = new Set(settings.port_scanning_avoid_list.filter((p) => !force.has(p)));
  const ports = new Set<number>(force);
  if (settings.port_scanning_include_recommended_ports)
    for (const port of recommended) if (!avoid.has(port)) ports.add(port);
  return [...ports].sort((a, b) => a - b);
}

/** The names of the asset that resolved to each address, sorted. */
function namesByAddress(report: SurfaceDiscoveryReport): Map<string, string[]> {
  const byAddress = new Map<string, string[]>();
  for (const name of report.names) {
    for (const address of name.addresses) {
      const names = byAddress.get(address);
      if (names === undefined) byAddress.set(address, [name.name]);
      else names.push(name.name);
    }
  }
  for (const names of byAddress.values()) names.sort();
  return byAddress;
}

/** The default web origins: HTTPS and HTTP on every live name with an address (each name once per scheme). */
export function defaultWebOrigins(
  report: SurfaceDiscoveryReport,
  scopeName: string,
  ports = { https: 443, http: 80 },
): StatelessOrigin[] {
  const origins: StatelessOrigin[] = [];
  for (const name of report.names) {
    if (name.addresses.length === 0) continue;
    origins.push({ scheme: 'https', host: name.name, port: ports.https, scopeName });
    origins.push({ scheme: 'http', host: name.name, port: ports.http, scopeName });
  }
  return origins;
}

/**
 * Runs the exposure engines the settings allow, in order: the port scan over every address the
 * discovery resolved, TLS on the ports that speak it (on the HTTPS port of every address when
 * ports are not scanned), fingerprinting on the web origins (and, with
 * include_discovered_ports_in_surface_monitoring, on the HTTP services found on other ports).
 * Nothing is written here; a stop aborts the engines through `signal`.
 */
export async function observeExposure(
  deps: ExposureDeps,
  report: SurfaceDiscoveryReport,
  scopeName: string,
  settings: ExposureSettings,
  customHeaders: Array<{ name: string; value: string }>,
  progress: SurfaceRunProgress,
  signal: AbortSignal,
): Promise<ExposureObservations> {
  const { engines } = deps;
  const webPorts = deps.ports ?? { https: 443, http: 80 };
  const byAddress = namesByAddress(report);
  const observations: ExposureObservations = {
    openPorts: undefined,
    technologies: undefined,
    findings: [],
    extraOrigins: [],
    tlsEndpoints: 0,
    warnings: [],
  };

  if (settings.enable_port_scanning && byAddress.size > 0) {
    progress.phase = 'ports';
    const ports = portsToScan(settings, engines.ports.recommendedPorts);
    const scan = await engines.ports.scan({
      addresses: [...byAddress.keys()],
      ports,
      identify: true,
      signal,
      onProgress: (p) => Object.assign(progress, { portsProbed: p.probed, openPorts: p.open }),
    });
    signal.throwIfAborted();
    observations.openPorts = scan.open.flatMap((o) =>
      (byAddress.get(o.address) ?? [scopeName]).map((domainName) => ({ ...o, domainName })),
    );
    observations.warnings.push(...scan.warnings);
    progress.openPorts = scan.open.length;
  } else if (settings.enable_port_scanning) {
    observations.openPorts = [];
  }

  const discovered = settings.include_discovered_ports_in_surface_monitoring
    ? discoveredWebOrigins(observations.openPorts ?? [], byAddress, scopeName, webPorts)
    : [];
  observations.extraOrigins = discovered;

  if (settings.enable_tls_discovery && byAddress.size > 0) {
    progress.phase = 'tls';
    const targets = tlsTargets(observations.openPorts, byAddress, webPorts.https);
    const tls = await engines.tls.assess(
      targets,
      {
        certificates: settings.enable_certificate_assessments,
        passive: settings.enable_passive_tls_assessments,
        active: settings.enable_active_tls_assessments,
        customHeaders,
        timeoutMs: deps.requestTimeoutMs,
      },
      signal,
    );
    signal.throwIfAborted();
    observations.findings.push(...tls.findings);
    observations.warnings.push(...tls.warnings);
    observations.tlsEndpoints = new Set(tls.endpoints.filter((e) => e.isTls).map((e) => `${e.address} ${e.port}`)).size;
    progress.tlsEndpoints = observations.tlsEndpoints;
  }

  if (settings.fingerprinting && byAddress.size > 0) {
    progress.phase = 'fingerprinting';
    const origins: FingerprintOrigin[] = [...defaultWebOrigins(report, scopeName, webPorts), ...discovered];
    const result = await engines.fingerprint.fingerprint(
      origins,
      { requestsPerSecond: settings.requests_per_second, customHeaders, requestTimeoutMs: deps.requestTimeoutMs },
      signal,
    );
    signal.throwIfAborted();
    observations.technologies = distinctTechnologies(result.technologies);
    observations.warnings.push(...result.warnings);
    progress.technologies = observations.technologies.length;
    for (const technology of result.technologies)
      if (technology.version !== null) observations.findings.push(...engines.versions.advisories(technology));
  }
  return observations;
}

/** The TLS endpoints: the ports the scan found speaking TLS, else the HTTPS port of every address. */
function tlsTargets(
  openPorts: ObservedPort[] | undefined,
  byAddress: Map<string, string[]>,
  httpsPort: number,
): TlsTarget[] {
  if (openPorts === undefined)
    return [...byAddress].map(([address, names]) => ({ address, port: httpsPort, names, isHttp: true }));
  // openPorts holds a port once per name: one target per (address, port), with every name.
  const targets = new Map<string, TlsTarget>();
  for (const o of openPorts) {
    const key = `${o.address} ${o.port}`;
    if (o.service.isTls && !targets.has(key))
      targets.set(key, {
        address: o.address,
        port: o.port,
        names: byAddress.get(o.address) ?? [o.domainName],
        isHttp: o.service.isHttp,
      });
  }
  return [...targets.values()];
}

/** HTTP(S) services on ports other than the default web ports, once per (name, port). */
function discoveredWebOrigins(
  openPorts: ObservedPort[],
  byAddress: Map<string, string[]>,
  scopeName: string,
  webPorts: { https: number; http: number },
): StatelessOrigin[] {
  const origins = new Map<string, StatelessOrigin>();
  for (const open of openPorts) {
    if (!open.service.isHttp || open.port === webPorts.https || open.port === webPorts.http) continue;
    const scheme = open.service.isTls ? 'https' : 'http';
    for (const host of byAddress.get(open.address) ?? [])
      origins.set(`${scheme}://${host}:${open.port}`, { scheme, host, port: open.port, scopeName });
  }
  return [...origins.values()];
}

/** One observation per (name, port, technology, version): an origin seen over two addresses counts once. */
function distinctTechnologies(observed: TechnologyObservation[]): ObservedTechnology[] {
  const seen = new Map<string, ObservedTechnology>();
  for (const t of observed) {
    const key = JSON.stringify([t.host, t.port, t.name, t.version]);
    if (!seen.has(key))
      seen.set(key, {
        domainName: t.host,
        port: t.port,
        serviceProtocol: t.serviceProtocol,
        name: t.name,
        version: t.version,
        categories: t.categories,
      });
  }
  return [...seen.values()];
}
