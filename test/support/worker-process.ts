import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawnOwned } from './child-processes.ts';
import { hostname } from 'node:os';
import type { Harness } from './harness.ts';
import { waitUntil } from './test-jobs.ts';

/** A worker child process on a harness's store. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Its runner name (host:pid), as scans record it. */
  name: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

/**
 * How to start a process: the test worker script (short lease), the real `perimeter serve
 * --roles worker`, or `perimeter serve --roles api` (its name is then its base URL).
 */
export interface WorkerOptions {
  kind: 'script' | 'serve' | 'api';
  leaseMs?: number;
  concurrency?: number;
}

/**
 * Starts a worker on the harness's store (SQLite folder or PostgreSQL schema), records it in
 * `workers` (so `after()` can kill it) and waits until it works jobs.
 */
export async function startWorker(
  h: Harness,
  workers: WorkerProcess[],
  options: WorkerOptions,
): Promise<WorkerProcess> {
  const concurrency = String(options.concurrency ?? 1);
  const child =
    options.kind === 'script'
      ? spawnOwned(process.execPath, ['--import', 'tsx', 'test/support/scan-worker.ts'], {
          env: {
            ...process.env,
            SCAN_WORKER_DATA_DIR: h.config.dataDir,
            SCAN_WORKER_SCHEMA: h.schema,
            SCAN_WORKER_LEASE_MS: String(options.leaseMs ?? 1000),
            SCAN_WORKER_CONCURRENCY: concurrency,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawnOwned(
          process.execPath,
          [
            'bin/perimeter.js',
            'serve',
            '--roles',
            options.kind === 'api' ? 'api' : 'worker',
            '--port',
            '0',
            '--host',
            '127.0.0.1',
          ],
          {
            env: {
              ...process.env,
              DATA_DIR: h.config.dataDir,
              DATABASE_URL: process.env['PERIMETER_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
              PERIMETER_DATABASE_SCHEMA: h.schema,
              PERIMETER_EGRESS_ALLOW: '127.0.0.0/8',
              PERIMETER_SCAN_CONCURRENCY: concurrency,
              PERIMETER_LOG_LEVEL: 'warn',
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const worker: WorkerProcess = { child, name: '', exited, output: () => output };
  workers.push(worker);
  worker.name = await waitUntil(
    'the worker process to start',
    async () => {
      if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}:\n${output}`);
      const url = /perimeter listening on (http:\/\/[\d.:]+)/.exec(output)?.[1];
      if (options.kind === 'api') return url;
      if (options.kind === 'serve') return url === undefined ? undefined : `${hostname()}:${child.pid}`;
      return /worker ready (\S+)/.exec(output)?.[1];
    },
    30_000,
  );
  return worker;
}

/** True while the process runs. */
export const isAlive = (w: WorkerProcess): boolean => w.child.exitCode === null && w.child.signalCode === null;

/** SIGKILL: the process dies at once; its running job keeps a lease nobody renews. */
export async function killHard(w: WorkerProcess): Promise<void> {
  w.child.kill('SIGKILL');
  assert.deepEqual(await w.exited, { code: null, signal: 'SIGKILL' });
}

/** Kills every worker still running (an `after()` hook). */
export async function killAll(workers: WorkerProcess[]): Promise<void> {
  await Promise.all(
    workers.filter(isAlive).map(async (w) => {
      w.child.kill('SIGKILL');
      await w.exited;
    }),
  );
}
