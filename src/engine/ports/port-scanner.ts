import { setMaxListeners } from 'node:events';
import { isIP } from 'node:net';
import type {
  PortScanner,
  PortScanReport,
  PortScanRequest,
  ServiceGuess,
} from '../../core/surface/exposure-engines.ts';
import type { EgressGuard } from '../net/egress-guard.ts';
import type { ConnectScanOptions, ScanHost } from './connect-scan.ts';
import { defaultScanThreads, parallelConnectScan } from './parallel-connect-scan.ts';
import { recommendedPortNumbers } from './recommended-ports.ts';
import { defaultTimeoutPolicy, type TimeoutPolicy } from './rtt-estimator.ts';
import { defaultIdentifyOptions, identifyService, type IdentifyOptions } from './service-probe.ts';
import type { DialerKind } from './tcp-dialer.ts';

/** What the port scanner needs: the egress guard, and limits that default to the values below. */
export interface PortScannerDeps {
  guard: EgressGuard;
  /** Connects in flight over all addresses (default 512). */
  concurrency?: number;
  /** Connects in flight to one address (default 256). */
  perAddressConcurrency?: number;
  /** Extra tries of a port that did not answer (default 2). */
  maxRetries?: number;
  /** Adaptive time-out: initial, floor, cap and RTT multiple (default nmap -T4's). */
  timeouts?: Partial<TimeoutPolicy>;
  /** Open ports identified at once (default 32). */
  identifyConcurrency?: number;
  identify?: Partial<IdentifyOptions>;
  /** `auto` (default): node's bare TCP handles when available, else net.Socket. */
  dialer?: DialerKind;
  /** Threads the connect scan spreads over (default one per core, at most 4; small scans use one). */
  threads?: number;
}

/**
 * engine/ports: a TCP connect scan through the egress guard (connect-scan.ts, over worker threads
 * for large scans: parallel-connect-scan.ts), then, when asked,
 * the service of each open port (service-probe.ts). An address the guard refuses is a warning
 * and gets no packet. Rejects with the signal's reason when aborted, every socket closed.
 */
export function createPortScanner(deps: PortScannerDeps): PortScanner {
  const concurrency = deps.concurrency ?? 512;
  const options: ConnectScanOptions = {
    concurrency,
    perAddressConcurrency: Math.min(concurrency, deps.perAddressConcurrency ?? 256),
    minWindow: 8,
    maxRetries: deps.maxRetries ?? 2,
    timeouts: { ...defaultTimeoutPolicy, ...deps.timeouts },
    dialer: deps.dialer ?? 'auto',
  };
  const identifyOptions: IdentifyOptions = { ...defaultIdentifyOptions, ...deps.identify };
  const identifyConcurrency = Math.max(1, deps.identifyConcurrency ?? 32);
  const recommendedPorts = recommendedPortNumbers();
  const threads = Math.max(1, deps.threads ?? defaultScanThreads());

  return {
    recommendedPorts,
    async scan(request: PortScanRequest): Promise<PortScanReport> {
      request.signal.throwIfAborted();
      const warnings: string[] = [];
      const hosts = allowedHosts(request.addresses, deps.guard, warnings);
      const ports = validPorts(request.ports, warnings);
      if (hosts.length === 0 || ports.length === 0) return { open: [], probed: 0, warnings };
      const onProgress = request.onProgress;
      const found = await parallelConnectScan(
        hosts,
        ports,
        options,
        threads,
        request.signal,
        onProgress === undefined ? undefined : (probed, open) => onProgress({ probed, open }),
      );
      warnings.push(...found.warnings);
      if (found.filtered > 0)
        warnings.push(
          `${found.filtered} of ${found.probed} probed ports never answered (filtered), after ${found.retries} retries`,
        );
      const families = new Map(hosts.map((h) => [h.address, h.family]));
      let services: ServiceGuess[] = found.open.map(() => unidentified);
      if (request.identify && found.open.length > 0) {
        // One internal signal for the many probe connections (each listens to it), so the caller's holds one listener.
        const controller = new AbortController();
        setMaxListeners(0, controller.signal);
        const forward = (): void => controller.abort(request.signal.reason);
        request.signal.addEventListener('abort', forward, { once: true });
        try {
          services = await identifyAll(
            found.open,
            (target) =>
              identifyService(
                target.address,
                families.get(target.address) ?? 4,
                target.port,
                identifyOptions,
                controller.signal,
              ),
            identifyConcurrency,
            warnings,
          );
        } finally {
          request.signal.removeEventListener('abort', forward);
        }
      }
      return {
        open: found.open.map((target, i) => ({ ...target, service: services[i] as ServiceGuess })),
        probed: found.probed,
        warnings,
      };
    },
  };
}

const unidentified: ServiceGuess = Object.freeze({ name: 'unknown', isTls: false, isHttp: false });

/** The distinct addresses the guard allows; each refusal is a warning. */
function allowedHosts(addresses: string[], guard: EgressGuard, warnings: string[]): ScanHost[] {
  const hosts: ScanHost[] = [];
  for (const address of new Set(addresses)) {
    const decision = guard.check(address);
    const family = isIP(address);
    if (!decision.isAllowed || family === 0) {
      warnings.push(`${address} not scanned: ${decision.reason ?? 'not an IP address'}`);
      continue;
    }
    hosts.push({ address, family: family as 4 | 6 });
  }
  return hosts;
}

/** The distinct ports 1–65535, in the order given; anything else is a warning. */
function validPorts(ports: number[], warnings: string[]): number[] {
  const seen = new Set<number>();
  const invalid: unknown[] = [];
  for (const port of ports) {
    if (Number.isInteger(port) && port >= 1 && port <= 65535) seen.add(port);
    else invalid.push(port);
  }
  if (invalid.length > 0)
    warnings.push(`invalid ports skipped: ${invalid.slice(0, 10).join(', ')}${invalid.length > 10 ? ' …' : ''}`);
  return [...seen];
}

/** Identifies the open ports, `concurrency` at a time, in the order given. */
async function identifyAll(
  targets: Array<{ address: string; port: number }>,
  identify: (target: { address: string; port: number }) => Promise<{ service: ServiceGuess; isOverBudget: boolean }>,
  concurrency: number,
  warnings: string[],
): Promise<ServiceGuess[]> {
  const services: ServiceGuess[] = new Array(targets.length);
  const overBudget: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < targets.length) {
      const i = next;
      next += 1;
      const target = targets[i] as { address: string; port: number };
      const result = await identify(target);
      services[i] = result.service;
      if (result.isOverBudget) overBudget.push(`${target.address}:${target.port}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, worker));
  if (overBudget.length > 0)
    warnings.push(
      `service identification hit its time limit on ${overBudget.length} port(s): ${overBudget.slice(0, 10).join(', ')}`,
    );
  return services;
}
