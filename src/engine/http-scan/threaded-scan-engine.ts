import { Worker } from 'node:worker_threads';
import type { ScanEngine, ScanOutcome, ScanSink } from '../../core/scans/scan-engine.ts';
import type { ScanThreadConfig, ScanThreadMessage, ScanThreadRequest } from './scan-thread.ts';

const workerUrl = new URL('./scan-thread-worker.mjs', import.meta.url);

/** One scan a thread runs: where its observations go and how it ends. */
interface RunningScan {
  sink: ScanSink;
  signal: AbortSignal;
  finish: (outcome: ScanOutcome) => void;
}

/** Runs a sink call whose failure has nowhere to go (progress and warnings are best effort). */
function ignoreThrow(call: () => void): void {
  try {
    call();
  } catch {
    // Dropped: a counter or warning the sink could not take.
  }
}

/** A scan thread and the scans it runs. */
interface ScanThread {
  worker: Worker;
  scans: Map<number, RunningScan>;
  isGone: boolean;
}

/** The application-scan engine with scan() run on threads of its own; close() ends them. */
export interface ThreadedScanEngine extends ScanEngine {
  /** Scan threads started and still alive (started on demand, at most `threads`). */
  readonly liveThreads: number;
  /**
   * Terminates every thread as a thread's death would: their scans end `unable_to_complete`
   * (`aborted` when their signal was), and the next scan starts a new thread.
   */
  terminateThreads(): Promise<void>;
  /** Terminates every thread and refuses further scans (callers stop running scans first). */
  close(): Promise<void>;
}

/** The scan threads of one engine, and what it hands out. */
interface ThreadPool {
  readonly options: { threads: number; config: ScanThreadConfig };
  /** Threads started and still alive. */
  readonly threads: ScanThread[];
  /** The id of the next scan (a thread's messages name their scan by it). */
  nextId: number;
  isClosed: boolean;
}

/**
 * Runs application scans on up to `threads` worker threads, each with an http-scan engine of
 * its own built from `config`, so that crawling and the checks' page work leave the process's
 * event loop (the API, the store, the jobs) free and use another core. A scan goes to the thread
 * running the fewest; its sink calls come back as messages and a finding waits until the sink
 * has taken it, as in process. The signal aborts the scan in its thread. A thread that dies
 * (an uncaught error, out of memory) ends its scans `unable_to_complete` with the reason, never
 * the process; the next scan starts a new thread. Endpoint probes and surface monitoring's
 * stateless tests stay on `inner` in process: they are short and few.
 */
export function createThreadedScanEngine(
  inner: ScanEngine,
  options: { threads: number; config: ScanThreadConfig },
): ThreadedScanEngine {
  if (!Number.isInteger(options.threads) || options.threads < 1)
    throw new Error(`scan threads must be a whole number ≥ 1, not ${options.threads}`);
  const pool: ThreadPool = { options, threads: [], nextId: 1, isClosed: false };
  return {
    probe: (endpoint, scopeName, signal, timeoutMs) => inner.probe(endpoint, scopeName, signal, timeoutMs),
    statelessTests: (origins, statelessOptions, sink, signal) =>
      inner.statelessTests(origins, statelessOptions, sink, signal),
    scan: (target, settings, limits, sink, signal) => {
      if (signal.aborted) return Promise.resolve({ status: 'aborted' });
      if (pool.isClosed) return Promise.resolve({ status: 'unable_to_complete', error: 'the scan engine is closed' });
      return scanOnThread(pickThread(pool), pool.nextId++, { target, settings, limits }, sink, signal);
    },
    get liveThreads() {
      return pool.threads.length;
    },
    terminateThreads: () => terminateThreads(pool, 'it was terminated'),
    close: () => {
      pool.isClosed = true;
      return terminateThreads(pool, 'the scan engine closed');
    },
  };
}

/** Ends a thread that died or was terminated: it leaves the pool and its scans end with the reason (`aborted` when their signal was). */
function endThread(pool: ThreadPool, thread: ScanThread, reason: string): void {
  if (thread.isGone) return;
  thread.isGone = true;
  const index = pool.threads.indexOf(thread);
  if (index >= 0) pool.threads.splice(index, 1);
  for (const scan of thread.scans.values()) {
    scan.finish(
      scan.signal.aborted
        ? { status: 'aborted' }
        : { status: 'unable_to_complete', error: `the scan thread stopped: ${reason}` },
    );
  }
  thread.scans.clear();
}

/** Starts a scan thread and adds it to the pool; it is unreferenced until it runs a scan. */
function startThread(pool: ThreadPool): ScanThread {
  const thread: ScanThread = {
    worker: new Worker(workerUrl, { workerData: pool.options.config }),
    scans: new Map(),
    isGone: false,
  };
  thread.worker.on('message', (message: ScanThreadMessage) => handleThreadMessage(thread, message));
  thread.worker.on('error', (err) => endThread(pool, thread, err.message));
  thread.worker.on('exit', (code) => endThread(pool, thread, `it exited with code ${code}`));
  thread.worker.unref();
  pool.threads.push(thread);
  return thread;
}

/**
 * Hands a thread's message to the sink of its scan: a finding is answered once the sink took it,
 * and `done` ends the scan. A sink that throws fails what it was told, as in process; it never
 * throws out of this handler (the process would end).
 */
function handleThreadMessage(thread: ScanThread, message: ScanThreadMessage): void {
  const scan = thread.scans.get(message.id);
  if (scan === undefined) return;
  switch (message.kind) {
    case 'finding':
      Promise.resolve()
        .then(() => scan.sink.finding(message.finding))
        .then(
          () => sendToThread(thread, { kind: 'finding-settled', seq: message.seq }),
          (err: unknown) =>
            sendToThread(thread, {
              kind: 'finding-settled',
              seq: message.seq,
              error: err instanceof Error ? err.message : String(err),
            }),
        );
      break;
    case 'progress':
      ignoreThrow(() => scan.sink.progress(message.counters));
      break;
    case 'warning':
      ignoreThrow(() => scan.sink.warning(message.message));
      break;
    case 'done':
      thread.scans.delete(message.id);
      if (thread.scans.size === 0) thread.worker.unref();
      scan.finish(message.outcome);
      break;
  }
}

/** Posts a request to a thread that is alive: a finding settled after its thread died has no one to tell. */
function sendToThread(thread: ScanThread, request: ScanThreadRequest): void {
  if (!thread.isGone) thread.worker.postMessage(request);
}

/** Ends every thread's scans with the reason and terminates the threads. */
async function terminateThreads(pool: ThreadPool, reason: string): Promise<void> {
  const all = [...pool.threads];
  for (const thread of all) endThread(pool, thread, reason);
  await Promise.all(all.map((thread) => thread.worker.terminate()));
}

/** The thread with the fewest scans; a new one while fewer than `threads` run and all are busy. */
function pickThread(pool: ThreadPool): ScanThread {
  let best: ScanThread | undefined;
  for (const thread of pool.threads) if (best === undefined || thread.scans.size < best.scans.size) best = thread;
  if (best === undefined || (best.scans.size > 0 && pool.threads.length < pool.options.threads))
    return startThread(pool);
  return best;
}

/** Runs a scan on a thread: its outcome once the thread says it is done (or dies); the signal aborts it there. */
function scanOnThread(
  thread: ScanThread,
  id: number,
  scan: Pick<Extract<ScanThreadRequest, { kind: 'scan' }>, 'target' | 'settings' | 'limits'>,
  sink: ScanSink,
  signal: AbortSignal,
): Promise<ScanOutcome> {
  return new Promise<ScanOutcome>((resolve) => {
    const onAbort = (): void => {
      if (!thread.isGone) thread.worker.postMessage({ kind: 'abort', id } satisfies ScanThreadRequest);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    thread.scans.set(id, {
      sink,
      signal,
      finish: (outcome) => {
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      },
    });
    // Referenced while it runs a scan: a process waiting for a scan's end stays alive.
    thread.worker.ref();
    thread.worker.postMessage({ kind: 'scan', id, ...scan } satisfies ScanThreadRequest);
  });
}
