import { spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { defaultConfig } from '../src/config/config.ts';
import { eventKinds } from '../src/core/events/event.types.ts';
import { createApiKey } from '../src/core/teams/api-key.service.ts';
import { openRuntime } from '../src/runtime.ts';
import { repoRoot, type BenchContext } from './support/benchmark.ts';
import type { FanoutReceiver } from './support/fanout-receivers.ts';
import type { Scope } from './support/scope.ts';
import { seededVulnerabilities } from './support/vulnerability-store.ts';

/** The store the events-fanout server runs on: a private copy of the seeded vulnerabilities store. */
export interface FanoutStore {
  dataDir: string;
  /** The server key (PERIMETER_SECRET_KEY) the store was made with. */
  env: Record<string, string>;
  /** v2 key of the team (the vulnerability list). */
  v2Key: string;
  /** v3 key of the team (webhooks). */
  v3Key: string;
  teamId: number;
}

/**
 * The vulnerabilities benchmark's seeded store (cached under .bench/cache, seeded through the
 * ingestion service) copied into a temporary folder, since this benchmark writes events, webhooks
 * and deliveries into it, plus a v3 key of its team for the webhook API.
 */
export async function prepareFanoutStore(ctx: BenchContext, vulnerabilities: number): Promise<FanoutStore> {
  const seeded = await seededVulnerabilities('sqlite', vulnerabilities, ctx.log);
  const dataDir = ctx.scope.tempDir('perimeter-bench-fanout-');
  cpSync(seeded.dataDir, dataDir, { recursive: true });
  const secretKey = seeded.env['PERIMETER_SECRET_KEY'];
  const runtime = await openRuntime(
    { ...defaultConfig, dataDir, secretKey, logLevel: 'warn' },
    { log: pino({ level: 'warn' }) },
  );
  try {
    const team = await runtime.store.teams.findByName('bench');
    if (team === undefined) throw new Error(`the seeded store ${seeded.dataDir} has no team "bench"`);
    const { key } = await createApiKey(runtime.store, runtime.box, {
      teamName: 'bench',
      kind: 'v3',
      signing: false,
      permissions: [],
    });
    return { dataDir, env: seeded.env, v2Key: seeded.key, v3Key: key, teamId: team.id };
  } finally {
    await runtime.close();
  }
}

/** Creates one json webhook per receiver through the API, subscribed to every kind; each receiver gets its secret. */
export async function createWebhooks(url: string, v3Key: string, receivers: FanoutReceiver[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, { receiver }] of receivers.entries()) {
    const res = await fetch(`${url}/rest/v3/webhooks`, {
      method: 'POST',
      headers: { authorization: v3Key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `fanout-${i + 1}`, format: 'json', url: receiver.url, events: [...eventKinds] }),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`creating webhook ${i + 1} answered ${res.status}: ${text.slice(0, 500)}`);
    const hook = JSON.parse(text) as { id: string; secret: string };
    receiver.setSecret(hook.secret);
    ids.push(hook.id);
  }
  return ids;
}

/** Follows next_marker from the first page of the team's vulnerability list; the paths of up to `pages` pages. */
export async function listPages(url: string, v2Key: string, pages: number): Promise<string[]> {
  const paths: string[] = [];
  let marker: string | undefined;
  while (paths.length < pages) {
    const path = `/rest/v2/vulnerabilities/?pageSize=100${marker === undefined ? '' : `&marker=${encodeURIComponent(marker)}`}`;
    const res = await fetch(url + path, { headers: { 'x-service-key': v2Key } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
    const page = JSON.parse(text) as { has_more: boolean; next_marker?: string };
    paths.push(path);
    if (!page.has_more || page.next_marker === undefined) break;
    marker = page.next_marker;
  }
  return paths;
}

/** What the producer reported (bench/events-fanout-producer.ts). */
export interface ProducerReport {
  appended: number;
  /** Wall-clock times (epoch ms) of the first and last append. */
  firstAtMs: number;
  lastAtMs: number;
  doneAtMs: number;
  seconds: number;
  eventsPerMinute: number;
  /** How far behind its schedule an append started, at worst. */
  maxBehindMs: number;
  appendMs: { p50: number; p99: number; max: number };
}

/** A producer child with its store open, waiting for `go()`. */
export interface Producer {
  /** Starts appending; resolves with its report once the last event is appended. */
  go(): Promise<ProducerReport>;
}

/** Starts the producer child on the server's store and waits until its store connection is open. */
export async function startProducer(
  scope: Scope,
  store: FanoutStore,
  eventsPerMinute: number,
  seconds: number,
): Promise<Producer> {
  const script = join(repoRoot, 'bench/events-fanout-producer.ts');
  const args = [
    '--import',
    'tsx',
    script,
    store.dataDir,
    String(store.teamId),
    String(eventsPerMinute),
    String(seconds),
  ];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...store.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  scope.defer(`stop the producer (pid ${child.pid})`, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const check = () => {
      if (stdout.includes('producer ready')) resolve();
    };
    child.stdout.on('data', check);
    void exited.then((code) => reject(new Error(`the producer exited (${code}) before it was ready: ${stderr}`)));
  });
  await ready;
  return {
    async go() {
      child.stdin.end('go\n');
      const code = await exited;
      const line = stdout.split('\n').find((l) => l.startsWith('PRODUCER_JSON '));
      if (code !== 0 || line === undefined) throw new Error(`the producer failed (exit ${code}): ${stderr}\n${stdout}`);
      return JSON.parse(line.slice('PRODUCER_JSON '.length)) as ProducerReport;
    },
  };
}

/** Seconds of a wrk duration (`30s`, `2m`, `1h`). */
export function durationSeconds(duration: string): number {
  const match = /^(\d+)([smh])$/.exec(duration);
  if (match === null) throw new Error(`not a duration: ${duration}`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[match[2] as 's' | 'm' | 'h'];
}
