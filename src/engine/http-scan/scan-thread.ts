import { parentPort, workerData } from 'node:worker_threads';
import type { ScanCounters, ScanLimits, ScanOutcome, ScanSink, ScanTarget } from '../../core/scans/scan-engine.ts';
import type { ScanProfileSettings } from '../../core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../../core/vulnerabilities/vulnerability.types.ts';
import { createDnsResolver } from '../dns/resolver.ts';
import { EgressGuard } from '../net/egress-guard.ts';
import type { CanaryConfig } from '../../config/canary.ts';
import { createHttpScanEngine } from './http-scan-engine.ts';

/** What a scan thread builds its engine from: the configuration, never live objects (they cannot cross threads). */
export interface ScanThreadConfig {
  egressAllow: string[];
  dnsResolvers: string[];
  canary: CanaryConfig;
}

/** Messages to a scan thread: run a scan, abort one, or settle a finding it reported. */
export type ScanThreadRequest =
  | { kind: 'scan'; id: number; target: ScanTarget; settings: ScanProfileSettings; limits: ScanLimits }
  | { kind: 'abort'; id: number }
  | { kind: 'finding-settled'; seq: number; error?: string };

/** Messages from a scan thread about the scan `id`: what its sink was told, and its outcome. */
export type ScanThreadMessage =
  | { kind: 'finding'; id: number; seq: number; finding: FindingInput }
  | { kind: 'progress'; id: number; counters: ScanCounters }
  | { kind: 'warning'; id: number; message: string }
  | { kind: 'done'; id: number; outcome: ScanOutcome };

/**
 * The thread side: one http-scan engine (its own guard, resolver and canary, built from the
 * configuration) running every scan it is sent, several at once. A finding waits until the host
 * has written it (`finding-settled`), as the in-process sink makes it wait; `abort` aborts that
 * scan's signal, and the engine answers `aborted` as it does in process.
 */
export function serveScanThread(): void {
  const port = parentPort;
  if (port === null) throw new Error('serveScanThread runs in a worker thread');
  const config = workerData as ScanThreadConfig;
  const engine = createHttpScanEngine({
    guard: new EgressGuard(config.egressAllow),
    resolver: createDnsResolver(config.dnsResolvers),
    canary: config.canary,
  });
  const running = new Map<number, AbortController>();
  /** Findings posted and not yet settled by the host, by their sequence number (unique in the thread). */
  const pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  let nextSeq = 1;
  const post = (message: ScanThreadMessage): void => port.postMessage(message);

  const run = async (request: Extract<ScanThreadRequest, { kind: 'scan' }>): Promise<void> => {
    const { id } = request;
    const controller = new AbortController();
    running.set(id, controller);
    const sink: ScanSink = {
      finding: (finding) =>
        new Promise<void>((resolve, reject) => {
          const seq = nextSeq++;
          pending.set(seq, { resolve, reject });
          try {
            post({ kind: 'finding', id, seq, finding });
          } catch (err) {
            // A finding that cannot be copied to the host (a DataCloneError) fails as a refused one.
            pending.delete(seq);
            throw err;
          }
        }),
      progress: (counters) => post({ kind: 'progress', id, counters }),
      warning: (message) => post({ kind: 'warning', id, message }),
    };
    let outcome: ScanOutcome;
    try {
      outcome = await engine.scan(request.target, request.settings, request.limits, sink, controller.signal);
    } catch (err) {
      outcome = controller.signal.aborted
        ? { status: 'aborted' }
        : { status: 'unable_to_complete', error: err instanceof Error ? err.message : String(err) };
    } finally {
      running.delete(id);
    }
    post({ kind: 'done', id, outcome });
  };

  port.on('message', (request: ScanThreadRequest) => {
    if (request.kind === 'scan') void run(request);
    else if (request.kind === 'abort') running.get(request.id)?.abort(new Error('scan aborted'));
    else {
      const waiter = pending.get(request.seq);
      pending.delete(request.seq);
      if (request.error === undefined) waiter?.resolve();
      else waiter?.reject(new Error(request.error));
    }
  });
}
