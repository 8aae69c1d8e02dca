import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { connectScan, type ConnectScanOptions, type ConnectScanResult, type ScanHost } from './connect-scan.ts';
import type { ConnectScanMessage, ConnectScanRequest, ConnectScanShare } from './connect-scan-thread.ts';

const workerUrl = new URL('./connect-scan-worker.mjs', import.meta.url);
/** Below this many (address, port) pairs per thread, one thread is as fast (a share's messages cost too). */
const MIN_PAIRS_PER_THREAD = 4096;

/** Threads for a scan: one per core, at most 4 (the kernel's side of each connect is most of the cost). */
export function defaultScanThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

type Listener = (message: ConnectScanMessage) => void;

/** A scan worker kept for the life of the process; referenced only while it runs a share. */
interface PooledWorker {
  worker: Worker;
  listeners: Map<number, Listener>;
}

const pool: PooledWorker[] = [];
let nextId = 1;

function startWorker(): PooledWorker {
  const pooled: PooledWorker = { worker: new Worker(workerUrl), listeners: new Map() };
  pooled.worker.on('message', (message: ConnectScanMessage) => pooled.listeners.get(message.id)?.(message));
  const fail = (message: string): void => {
    const index = pool.indexOf(pooled);
    if (index >= 0) pool.splice(index, 1);
    for (const [id, listener] of pooled.listeners) listener({ id, kind: 'failed', message });
    pooled.listeners.clear();
  };
  pooled.worker.on('error', (err) => fail(err.message));
  pooled.worker.on('exit', (code) => fail(`exited (${code})`));
  // Idle workers never hold the process open (after the listeners: adding one references the worker again).
  pooled.worker.unref();
  return pooled;
}

/** `count` pooled workers, started on first use (starting one costs ~100–300 ms: TypeScript is loaded in it). */
function workers(count: number): PooledWorker[] {
  while (pool.length < count) pool.push(startWorker());
  return pool.slice(0, count);
}

/** Runs one share on a pooled worker; on abort the worker closes the share's sockets before this rejects. */
function runShare(
  pooled: PooledWorker,
  share: ConnectScanShare,
  signal: AbortSignal,
  onProgress: (probed: number, open: number) => void,
): Promise<ConnectScanResult> {
  const id = nextId;
  nextId += 1;
  return new Promise<ConnectScanResult>((resolve, reject) => {
    const abort = (): void => pooled.worker.postMessage({ kind: 'abort', id } satisfies ConnectScanRequest);
    pooled.listeners.set(id, (message) => {
      if (message.kind === 'progress') return onProgress(message.probed, message.open);
      pooled.listeners.delete(id);
      if (pooled.listeners.size === 0) pooled.worker.unref();
      signal.removeEventListener('abort', abort);
      if (message.kind === 'done') resolve(message.result);
      else reject(message.kind === 'aborted' ? signal.reason : new Error(`port scan worker: ${message.message}`));
    });
    signal.addEventListener('abort', abort, { once: true });
    pooled.worker.ref();
    pooled.worker.postMessage({ kind: 'scan', id, share } satisfies ConnectScanRequest);
  });
}

/**
 * connectScan() spread over `threads` worker threads: most of a connect's cost is the kernel's
 * (socket, connect, close), paid on the thread that makes the call, so a second core nearly
 * halves a 65,535-port scan. Each worker takes every `threads`-th port of every address, with
 * that share of the global and per-address limits (its own RTT estimate and window). Small scans
 * run on the calling thread. Rejects with the signal's reason when aborted, once every share has
 * closed its sockets.
 */
export async function parallelConnectScan(
  hosts: ScanHost[],
  ports: readonly number[],
  options: ConnectScanOptions,
  threads: number,
  signal: AbortSignal,
  onProgress?: (probed: number, open: number) => void,
): Promise<ConnectScanResult> {
  const count = Math.min(threads, Math.floor((hosts.length * ports.length) / MIN_PAIRS_PER_THREAD));
  if (count <= 1) return connectScan(hosts, ports, options, signal, onProgress);
  signal.throwIfAborted();
  const shareOptions: ConnectScanOptions = {
    ...options,
    concurrency: Math.max(1, Math.ceil(options.concurrency / count)),
    perAddressConcurrency: Math.max(1, Math.ceil(options.perAddressConcurrency / count)),
    minWindow: Math.max(1, Math.ceil(options.minWindow / count)),
  };
  const progress = Array.from({ length: count }, () => ({ probed: 0, open: 0 }));
  const report = (i: number, probed: number, open: number): void => {
    progress[i] = { probed, open };
    onProgress?.(
      progress.reduce((sum, p) => sum + p.probed, 0),
      progress.reduce((sum, p) => sum + p.open, 0),
    );
  };
  const results = await Promise.allSettled(
    workers(count).map((pooled, i) => {
      const share: ConnectScanShare = {
        hosts,
        ports: ports.filter((_p, index) => index % count === i),
        options: shareOptions,
      };
      return runShare(pooled, share, signal, (probed, open) => report(i, probed, open));
    }),
  );
  signal.throwIfAborted();
  const failed = results.find((r) => r.status === 'rejected');
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  return merge(results.map((r) => (r as PromiseFulfilledResult<ConnectScanResult>).value));
}

function merge(parts: ConnectScanResult[]): ConnectScanResult {
  const open = parts
    .flatMap((p) => p.open)
    .sort((a, b) => (a.address === b.address ? a.port - b.port : a.address < b.address ? -1 : 1));
  const sum = (pick: (p: ConnectScanResult) => number): number => parts.reduce((total, p) => total + pick(p), 0);
  return {
    open,
    probed: sum((p) => p.probed),
    filtered: sum((p) => p.filtered),
    retries: sum((p) => p.retries),
    warnings: [...new Set(parts.flatMap((p) => p.warnings))],
  };
}
