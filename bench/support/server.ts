import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { repoRoot } from './benchmark.ts';
import type { Scope } from './scope.ts';

/** A perimeter server running as a child process on 127.0.0.1. */
export interface ServerProcess {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  pid: number;
  /** SIGTERM (graceful shutdown), SIGKILL after 10 s; resolves once the process is gone. */
  stop(): Promise<void>;
}

/** Options of startPerimeter. */
export interface StartOptions {
  dataDir: string;
  /** Extra environment of the server (PERIMETER_*); the rest of PERIMETER_* is not inherited. */
  env?: Record<string, string>;
  /** Where to write a CPU profile of the server (node --cpu-prof); BENCH_CPU_PROF=1 sets it. */
  cpuProfileDir?: string | undefined;
  readyTimeoutMs?: number;
}

/** A TCP port free on 127.0.0.1 at the time of the call. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Starts `node bin/perimeter.js serve` on the given data directory (embedded store) and a free
 * port, waits for /readyz, and registers its stop with the scope.
 */
export async function startPerimeter(scope: Scope, options: StartOptions): Promise<ServerProcess> {
  const port = await freePort();
  // Only what we set reaches the server: a DATABASE_URL or config file of the caller would
  // silently benchmark another store.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('PERIMETER_') && k !== 'DATABASE_URL' && k !== 'DATA_DIR' && k !== 'PORT',
    ),
  );
  const env = {
    ...inherited,
    DATA_DIR: options.dataDir,
    PORT: String(port),
    PERIMETER_HOST: '127.0.0.1',
    PERIMETER_LOG_LEVEL: 'warn',
    ...options.env,
  };
  const nodeArgs: string[] = [];
  if (options.cpuProfileDir !== undefined) {
    mkdirSync(options.cpuProfileDir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`);
  }
  // Diagnostics of the server under load (`--trace-gc`, say), its output appended to a file.
  const extraArgs = process.env['BENCH_SERVER_NODE_ARGS']?.trim();
  if (extraArgs) nodeArgs.push(...extraArgs.split(/\s+/));
  const child = spawn(process.execPath, [...nodeArgs, join(repoRoot, 'bin/perimeter.js'), 'serve'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = tail(child);
  const logPath = process.env['BENCH_SERVER_LOG'];
  if (logPath) {
    const log = createWriteStream(logPath, { flags: 'a' });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  scope.defer(`stop perimeter (pid ${child.pid})`, stop);
  const url = `http://127.0.0.1:${port}`;
  await waitForReady(url, child, output, options.readyTimeoutMs ?? 60_000);
  return { url, pid: child.pid ?? -1, stop };
}

/** Keeps the last 16 KiB of a child's output, for error messages. */
function tail(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString('utf8')).slice(-16_384);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text;
}

async function waitForReady(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`perimeter exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output()}`);
    }
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`perimeter was not ready at ${url}/readyz within ${timeoutMs} ms:\n${output()}`);
}
