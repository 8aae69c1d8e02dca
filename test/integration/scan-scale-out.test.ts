import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Scan } from '../../src/core/scans/scan.types.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startGeneratedSite, type TargetServer } from '../support/target-site.ts';
import { waitUntil } from '../support/test-jobs.ts';

// Scans scaled out over two worker processes on one PostgreSQL store (pg-boss): every scan runs
// on exactly one worker, both workers take scans, and no target is crawled twice.
//
// The workers are test/support/scan-worker.ts processes, not `perimeter serve --roles worker`:
// a served process opens its store from DATABASE_URL alone, so its Database has no `schema`
// and bossSchemaOf() puts its queue in the shared `pgboss` schema, while the harness (the API
// here) enqueues into `<harness schema>_boss`. A search_path in the URL moves the tables but
// not the queue, so a served worker would never see the harness's jobs.

interface Worker {
  child: ChildProcess;
  name: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

const scans = 4;
const pagesPerSite = 40;

/** Starts test/support/scan-worker.ts on the harness's store and waits until it works jobs. */
async function startWorker(h: Harness, workers: Worker[]): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/scan-worker.ts'], {
    env: { ...process.env, SCAN_WORKER_DATA_DIR: h.config.dataDir, SCAN_WORKER_SCHEMA: h.schema, SCAN_WORKER_LEASE_MS: '2000', SCAN_WORKER_CONCURRENCY: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const worker: Worker = { child, name: '', exited, output: () => output };
  workers.push(worker);
  worker.name = await waitUntil('the worker process to start', async () => {
    if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}:\n${output}`);
    return /worker ready (\S+)/.exec(output)?.[1];
  }, 30_000);
  return worker;
}

const isAlive = (w: Worker): boolean => w.child.exitCode === null && w.child.signalCode === null;

describe('scans scale out over two worker processes (postgres)', { skip: testStore !== 'postgres' ? 'PostgreSQL only' : false }, () => {
  let h: Harness;
  let key: string;
  let teamId: number;
  const sites: TargetServer[] = [];
  const profiles: Array<{ token: string; id: number; site: TargetServer }> = [];
  const workers: Worker[] = [];

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 3000 });
    key = (await h.team('scale', { plan: 'enterprise' })).key;
    teamId = (await h.runtime.store.teams.findByName('scale'))!.id;
    const asset = await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } });
    assert.equal(asset.statusCode, 200, asset.body);
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'scale');
    for (let i = 0; i < scans; i++) {
      const site = await startGeneratedSite(pagesPerSite);
      sites.push(site);
      const res = await h.send('POST', '/rest/v2/profiles/', { key, body: { asset_token: asset.json().token, endpoint: `127.0.0.1:${site.port}`, name: `site ${i}` } });
      assert.equal(res.statusCode, 200, res.body);
      const token = res.json().token as string;
      const settings = await h.send('PUT', `/rest/v2/profiles/${token}/settings/`, { key, body: { requests_per_second: 10 } });
      assert.equal(settings.statusCode, 200, settings.body);
      profiles.push({ token, id: (await h.runtime.store.scanProfiles.findByToken(teamId, token))!.id, site });
    }
    // The endpoint validation requested each site once: count the scans' requests only.
    for (const site of sites) site.requests.length = 0;
  });
  after(async () => {
    await Promise.all(workers.filter(isAlive).map(async (w) => {
      w.child.kill('SIGKILL');
      await w.exited;
    }));
    await h?.close();
    await Promise.all(sites.map((s) => s.stop()));
  });

  it('runs every scan once, on one of the two workers, both taking scans, no target crawled twice', async (t) => {
    // One after the other: two workers creating pg-boss's queues at once on a fresh store can
    // deadlock (see the last test below); the first one ready has created them.
    const a = await startWorker(h, workers);
    const b = await startWorker(h, workers);
    assert.notEqual(a.name, b.name);
    const names = new Set([a.name, b.name]);

    for (const p of profiles) {
      const res = await h.send('POST', `/rest/v2/scans/${p.token}/`, { key });
      assert.equal(res.statusCode, 202, res.body);
    }
    const ended = await waitUntil('every scan to end', async () => {
      const latest = await h.runtime.store.scans.latestOf(teamId, profiles.map((p) => p.id));
      const all = profiles.map((p) => latest.get(p.id));
      return all.every((s) => s !== undefined && !['starting', 'running', 'stopping'].includes(s.status)) ? (all as Scan[]) : undefined;
    }, 60_000);

    for (const [i, scan] of ended.entries()) {
      const api = (await h.send('GET', `/rest/v2/scans/${profiles[i]!.token}/`, { key })).json();
      assert.equal(api.status, 'completed', JSON.stringify(api));
      assert.equal(scan.status, 'completed');
      assert.equal(scan.runs, 1, `scan ${i} ran once`);
      assert.ok(scan.runner !== null && names.has(scan.runner), `scan ${i} ran on one of the workers: ${scan.runner}`);
      assert.deepEqual(scan.warnings, [], `scan ${i} was never resumed`);
      assert.equal(scan.progress.pagesCrawled, pagesPerSite, `scan ${i} crawled its whole site`);
    }
    const byRunner = new Map<string, Scan[]>();
    for (const scan of ended) byRunner.set(scan.runner!, [...(byRunner.get(scan.runner!) ?? []), scan]);
    t.diagnostic(`scans per worker: ${[...byRunner.values()].map((s) => s.length).join(' and ')}`);
    assert.equal(byRunner.size, 2, `both workers took scans: ${[...byRunner].map(([n, s]) => `${n}: ${s.length}`).join(', ')}`);
    // One scan at a time per worker (its scan concurrency): a worker's scans never overlap.
    for (const [runner, own] of byRunner) {
      const spans = own.map((s) => [s.started!.getTime(), s.ended!.getTime()] as const).sort((x, y) => x[0] - y[0]);
      for (let i = 1; i < spans.length; i++) assert.ok(spans[i]![0] >= spans[i - 1]![1], `${runner} ran two scans at once`);
    }

    // Each page of each site was fetched once: no scan was crawled by two workers.
    for (const [i, site] of sites.entries()) {
      const perPath = new Map<string, number>();
      for (const r of site.requests) perPath.set(r.path, (perPath.get(r.path) ?? 0) + 1);
      const twice = [...perPath].filter(([, n]) => n > 1);
      assert.deepEqual(twice, [], `site ${i}: paths requested more than once`);
      for (let page = 0; page < pagesPerSite; page++) assert.equal(perPath.get(page === 0 ? '/' : `/p/${page}`), 1, `site ${i} page ${page} crawled once`);
    }

    await Promise.all([a, b].map(async (w) => {
      w.child.kill('SIGTERM');
      assert.deepEqual(await w.exited, { code: 0, signal: null }, w.output());
    }));
  });

  // pg-boss's create_queue is not safe when two processes create the same new queue at once
  // (insert into queue, then DDL with a foreign key to it): one of them could fail with "deadlock
  // detected" (40P01) and kill a starting worker. PgBossJobStore.createQueue retries it.
  it('starts two workers at once on a fresh store', async () => {
    const fresh = await createHarness();
    const pair: Worker[] = [];
    try {
      const started = await Promise.allSettled([startWorker(fresh, pair), startWorker(fresh, pair)]);
      const failures = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => String(s.reason).split('\n').slice(0, 6).join('\n'));
      assert.deepEqual(failures, [], 'both workers came up');
    } finally {
      await Promise.all(pair.filter(isAlive).map(async (w) => {
        w.child.kill('SIGKILL');
        await w.exited;
      }));
      await fresh.close();
    }
  });
});
