import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scope } from './scope.ts';

/** What one wrk run measured; latencies in microseconds, as wrk reports them. */
export interface WrkResult {
  requests: number;
  durationSeconds: number;
  requestsPerSecond: number;
  bytesPerSecond: number;
  latencyUs: { mean: number; p50: number; p90: number; p99: number; max: number };
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
}

/** One load run: the same connection, thread and duration settings for every target. */
export interface WrkOptions {
  /** Base URL (scheme, host, port); the script's paths are sent to it. */
  url: string;
  connections: number;
  threads: number;
  duration: string;
  /** Lua defining `request()` (see urlCycleScript); without it wrk sends GET url. */
  script?: string;
  /** Any failed or non-2xx/3xx request fails the run (default), since the numbers would lie. */
  allowErrors?: boolean;
}

const resultTag = 'WRK_JSON ';

// The done() hook prints one JSON line, so nothing depends on wrk's human-readable report.
const doneHook = `
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('${resultTag}{"requests":%.0f,"duration_us":%.0f,"bytes":%.0f,' ..
    '"errors":{"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f},' ..
    '"latency":{"mean":%.1f,"p50":%.0f,"p90":%.0f,"p99":%.0f,"max":%.0f}}\\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`;

/** Makes sure `wrk` is on PATH, installing the Debian package when it is not. */
export function ensureWrk(): void {
  if (isOnPath('wrk')) return;
  console.error('wrk not found: installing the Debian package (apt-get install wrk) …');
  const install = spawnSync('bash', ['-c', 'apt-get update -qq && apt-get install -y -qq wrk'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (install.status !== 0 || !isOnPath('wrk')) {
    throw new Error(
      'wrk is required and could not be installed; install it by hand (Debian/Ubuntu: `sudo apt-get install wrk`) and run again',
    );
  }
}

function isOnPath(command: string): boolean {
  return spawnSync('bash', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** A Lua string literal of printable ASCII text (paths, header values). */
export function luaString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error(`not printable ASCII: ${JSON.stringify(text)}`);
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * A wrk script sending GET to each path in turn, forever, with the given headers. Requests are
 * formatted once per thread, and each thread starts at another point of the cycle.
 */
export function urlCycleScript(paths: string[], headers: Record<string, string>): string {
  return requestCycleScript(
    paths.map((path) => ({ method: 'GET', path })),
    headers,
  );
}

/** Like urlCycleScript, with a method per request (POST status changes, say). */
export function requestCycleScript(
  requests: Array<{ method: string; path: string }>,
  headers: Record<string, string>,
): string {
  if (requests.length === 0) throw new Error('requestCycleScript needs at least one request');
  const headerLines = Object.entries(headers).map(([name, value]) => `  [${luaString(name)}] = ${luaString(value)},`);
  return `local specs = {
${requests.map((r) => `  { ${luaString(r.method)}, ${luaString(r.path)} },`).join('\n')}
}
local headers = {
${headerLines.join('\n')}
}
local requests = {}
local thread_count = 0

function setup(thread)
  thread:set("thread_index", thread_count)
  thread_count = thread_count + 1
end

function init(args)
  for i, spec in ipairs(specs) do requests[i] = wrk.format(spec[1], spec[2], headers) end
  cursor = ((thread_index or 0) * 97) % #requests
end

function request()
  cursor = cursor % #requests + 1
  return requests[cursor]
end
`;
}

/** Runs wrk once (with --latency) and returns what its done() hook reported; the scope stops it if the run is aborted. */
export async function runWrk(scope: Scope, options: WrkOptions): Promise<WrkResult> {
  const dir = scope.tempDir('perimeter-wrk-');
  try {
    const scriptPath = join(dir, 'load.lua');
    writeFileSync(scriptPath, `${options.script ?? ''}\n${doneHook}`);
    const args = [
      '--latency',
      '--timeout',
      '10s',
      '-c',
      String(options.connections),
      '-t',
      String(options.threads),
      '-d',
      options.duration,
      '-s',
      scriptPath,
      options.url,
    ];
    const { code, signal, stdout, stderr } = await run(scope, 'wrk', args);
    if (code !== 0)
      throw new Error(
        `wrk ${signal === null ? `exited with ${code}` : `was stopped by ${signal}`}: ${stderr.trim() || stdout.trim()}`,
      );
    const line = stdout.split('\n').find((l) => l.startsWith(resultTag));
    if (line === undefined) throw new Error(`wrk printed no result line:\n${stdout}\n${stderr}`);
    const result = toResult(JSON.parse(line.slice(resultTag.length)) as RawResult);
    const failed = Object.values(result.errors).reduce((a, b) => a + b, 0);
    if (failed > 0 && options.allowErrors !== true) {
      throw new Error(`wrk saw failed requests against ${options.url}: ${JSON.stringify(result.errors)}\n${stdout}`);
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface RawResult {
  requests: number;
  duration_us: number;
  bytes: number;
  errors: WrkResult['errors'];
  latency: WrkResult['latencyUs'];
}

function toResult(raw: RawResult): WrkResult {
  const durationSeconds = raw.duration_us / 1e6;
  return {
    requests: raw.requests,
    durationSeconds,
    requestsPerSecond: raw.requests / durationSeconds,
    bytesPerSecond: raw.bytes / durationSeconds,
    latencyUs: raw.latency,
    errors: raw.errors,
  };
}

function run(
  scope: Scope,
  command: string,
  args: string[],
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    scope.defer(`stop ${command} (pid ${child.pid})`, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
