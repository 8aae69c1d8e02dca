import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Scan } from '../../src/core/scans/scan.types.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startGeneratedSite, type TargetServer } from '../support/target-site.ts';
import { waitUntil } from '../support/test-jobs.ts';
import {
  isAlive,
  killAll,
  startWorker as startWorkerOf,
  type WorkerProcess as Worker,
} from '../support/worker-process.ts';

const startWorker = (h: Harness, workers: Worker[]): Promise<Worker> =>
  startWorkerOf(h, workers, { kind: 'serve', leaseMs: 2000 });

// Scans scaled out over two `perimeter serve --roles worker` processes and one `--roles api`
// process on one PostgreSQL store (pg-boss; PERIMETER_DATABASE_SCHEMA points them at the test's
// schema): every scan runs on exactly one worker, both workers take scans, and no target is
// crawled twice.

const scans = 4;
const pagesPerSite = 40;

describe(
  'scans scale out over two worker processes (postgres)',
  { skip: testStore !== 'postgres' ? 'PostgreSQL only' : false },
  () => {
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
        const res = await h.send('POST', '/rest/v2/profiles/', {
          key,
          body: { asset_token: asset.json().token, endpoint: `127.0.0.1:${site.port}`, name: `site ${i}` },
        });
        assert.equal(res.statusCode, 200, res.body);
        const token = res.json().token as string;
        const settings = await h.send('PUT', `/rest/v2/profiles/${token}/settings/`, {
          key,
          body: { requests_per_second: 10 },
        });
        assert.equal(settings.statusCode, 200, settings.body);
        profiles.push({ token, id: (await h.runtime.store.scanProfiles.findByToken(teamId, token))!.id, site });
      }
      // The endpoint validation requested each site once: count the scans' requests only.
      for (const site of sites) site.requests.length = 0;
    });
    after(async () => {
      await killAll(workers);
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

      // A third process serves the API alone: the scans are started through it.
      const api = await startWorkerOf(h, workers, { kind: 'api' });
      for (const p of profiles) {
        const res = await fetch(`${api.name}/rest/v2/scans/${p.token}/`, {
          method: 'POST',
          headers: { 'x-service-key': key },
        });
        assert.equal(res.status, 202, await res.text());
      }
      const ended = await waitUntil(
        'every scan to end',
        async () => {
          const latest = await h.runtime.store.scans.latestOf(
            teamId,
            profiles.map((p) => p.id),
          );
          const all = profiles.map((p) => latest.get(p.id));
          return all.every((s) => s !== undefined && !['starting', 'running', 'stopping'].includes(s.status))
            ? (all as Scan[])
            : undefined;
        },
        60_000,
      );

      for (const [i, scan] of ended.entries()) {
        const api = (await h.send('GET', `/rest/v2/scans/${profiles[i]!.token}/`, { key })).json();
        assert.equal(api.status, 'completed', JSON.stringify(api));
        assert.equal(scan.status, 'completed');
        assert.equal(scan.runs, 1, `scan ${i} ran once`);
        assert.ok(
          scan.runner !== null && names.has(scan.runner),
          `scan ${i} ran on one of the workers: ${scan.runner}`,
        );
        assert.deepEqual(scan.warnings, [], `scan ${i} was never resumed`);
        assert.equal(
          scan.progress.pagesCrawled,
          pagesPerSite + 2,
          `scan ${i} crawled its whole site, robots.txt and sitemap.xml`,
        );
      }
      const byRunner = new Map<string, Scan[]>();
      for (const scan of ended) byRunner.set(scan.runner!, [...(byRunner.get(scan.runner!) ?? []), scan]);
      t.diagnostic(`scans per worker: ${[...byRunner.values()].map((s) => s.length).join(' and ')}`);
      assert.equal(
        byRunner.size,
        2,
        `both workers took scans: ${[...byRunner].map(([n, s]) => `${n}: ${s.length}`).join(', ')}`,
      );
      // One scan at a time per worker (its scan concurrency): a worker's scans never overlap.
      for (const [runner, own] of byRunner) {
        const spans = own.map((s) => [s.started!.getTime(), s.ended!.getTime()] as const).sort((x, y) => x[0] - y[0]);
        for (let i = 1; i < spans.length; i++)
          assert.ok(spans[i]![0] >= spans[i - 1]![1], `${runner} ran two scans at once`);
      }

      // Each site was scanned once: no scan was run by two workers. Checks re-send pages (the
      // start page and robots.txt included: injected headers, stored-XSS re-reads), but the
      // exposed-git probe asks for /.git/HEAD exactly once per origin per scan.
      for (const [i, site] of sites.entries()) {
        const probes = site.requests.filter((r) => r.method === 'GET' && r.path === '/.git/HEAD');
        assert.equal(probes.length, 1, `site ${i}: /.git/HEAD was probed ${probes.length} times (once per scan)`);
      }

      await Promise.all(
        [a, b, api].map(async (w) => {
          w.child.kill('SIGTERM');
          assert.deepEqual(await w.exited, { code: 0, signal: null }, w.output());
        }),
      );
    });

    // pg-boss's create_queue is not safe when two processes create the same new queue at once
    // (insert into queue, then DDL with a foreign key to it): one of them could fail with "deadlock
    // detected" (40P01) and kill a starting worker. PgBossJobStore.createQueue retries it.
    it('starts two workers at once on a fresh store', async () => {
      const fresh = await createHarness();
      const pair: Worker[] = [];
      try {
        const started = await Promise.allSettled([startWorker(fresh, pair), startWorker(fresh, pair)]);
        const failures = started
          .filter((s): s is PromiseRejectedResult => s.status === 'rejected')
          .map((s) => String(s.reason).split('\n').slice(0, 6).join('\n'));
        assert.deepEqual(failures, [], 'both workers came up');
      } finally {
        await Promise.all(
          pair.filter(isAlive).map(async (w) => {
            w.child.kill('SIGKILL');
            await w.exited;
          }),
        );
        await fresh.close();
      }
    });
  },
);
