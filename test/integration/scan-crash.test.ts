import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ScanQueue } from '../../src/core/scans/scan.service.ts';
import { recoverScans } from '../../src/core/scans/scan.service.ts';
import type { Scan } from '../../src/core/scans/scan.types.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startGeneratedSite, type TargetServer } from '../support/target-site.ts';
import { jobStateOf, waitUntil } from '../support/test-jobs.ts';
import {
  killAll,
  killHard,
  startWorker as startWorkerOf,
  type WorkerProcess as Worker,
} from '../support/worker-process.ts';

// A 4 s lease, renewed every 1.3 s: a killed worker's job goes to the next one 4 s later, and a
// live worker whose event loop stalls under a loaded CI machine (a 1 s lease once lapsed there,
// and the scan ran twice before the kill) keeps its job.
const startWorker = (h: Harness, workers: Worker[]): Promise<Worker> =>
  startWorkerOf(h, workers, { kind: 'script', leaseMs: 4000 });

// A scan whose worker process is killed (SIGKILL, no chance to hand its job back) is never
// left `running` for ever: the next worker resumes it under the same scan id once the dead
// worker's lease expires, or, when its job can no longer run, recovery ends it
// `unable_to_complete`; either way the profile can be scanned again. Only child worker
// processes (test/support/scan-worker.ts) work jobs here: the harness is the API.

interface Vuln {
  uuid: string;
  title: string;
  request?: { url: string };
}

const missingHeaders = [
  'Missing security header: Content-Security-Policy',
  'Missing security header: Referrer-Policy',
  'Missing security header: X-Content-Type-Options',
  'Missing security header: X-Frame-Options',
];
const liveStatuses = ['starting', 'running', 'stopping'];
const killedError =
  'The worker running this scan stopped (the process was killed or crashed) and the scan could not be resumed; start it again';

describe(`a scan whose worker process is killed (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let site: TargetServer;
  let profileToken: string;
  let teamId: number;
  let profileId: number;
  const workers: Worker[] = [];

  let assetToken: string;

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 3000 });
    key = (await h.team('crash', { plan: 'enterprise' })).key;
    const asset = await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } });
    assert.equal(asset.statusCode, 200, asset.body);
    assetToken = asset.json().token;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'crash');
    teamId = (await h.runtime.store.teams.findByName('crash'))!.id;
  });
  /**
   * Each case scans its own site through its own profile, so a case that fails leaves no live
   * scan in the other's way, and each counts only its own requests and findings.
   */
  const sites: TargetServer[] = [];
  const useProfile = async (name: string) => {
    site = await startGeneratedSite(300);
    sites.push(site);
    const profile = await h.send('POST', '/rest/v2/profiles/', {
      key,
      body: { asset_token: assetToken, endpoint: `127.0.0.1:${site.port}`, name },
    });
    assert.equal(profile.statusCode, 200, profile.body);
    profileToken = profile.json().token;
    profileId = (await h.runtime.store.scanProfiles.findByToken(teamId, profileToken))!.id;
  };
  after(async () => {
    // Every child dies, whatever happened above; then the store and the target go.
    await killAll(workers);
    await h?.close();
    await Promise.all(sites.map((s) => s.stop()));
  });

  const setRate = async (requestsPerSecond: number) => {
    const res = await h.send('PUT', `/rest/v2/profiles/${profileToken}/settings/`, {
      key,
      body: { requests_per_second: requestsPerSecond },
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  const start = async () => {
    const res = await h.send('POST', `/rest/v2/scans/${profileToken}/`, { key });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.json().status, 'starting');
  };
  const status = async () => (await h.send('GET', `/rest/v2/scans/${profileToken}/`, { key })).json();
  const latestScan = async (): Promise<Scan> =>
    (await h.runtime.store.scans.latestOf(teamId, [profileId])).get(profileId)!;
  const finished = (timeoutMs: number) =>
    waitUntil(
      'the scan to end',
      async () => {
        const s = await status();
        return liveStatuses.includes(s.status) ? undefined : s;
      },
      timeoutMs,
    );
  /** Waits until the scan runs and a progress save shows pages crawled and findings recorded. */
  const runningWithProgress = () =>
    waitUntil(
      'the scan to run with some progress',
      async () => {
        const s = await status();
        return s.status === 'running' && s.progress.pages_crawled >= 5 && s.progress.findings >= 1 ? s : undefined;
      },
      60_000,
    );
  const vulnerabilities = async (): Promise<Vuln[]> => {
    const res = await h.send('GET', `/rest/v2/vulnerabilities/?pageSize=100&scan_profile_token[]=${profileToken}`, {
      key,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().vulnerabilities;
  };
  /** Each finding of the profile once: no two vulnerabilities of one title at one location. */
  const assertNoTwins = (vulns: Vuln[]) => {
    const keys = vulns.map((v) => `${v.title} @ ${v.request?.url ?? ''}`);
    assert.equal(new Set(keys).size, keys.length, `duplicated findings:\n${keys.sort().join('\n')}`);
    assert.equal(new Set(vulns.map((v) => v.title)).size, vulns.length, 'one vulnerability per missing header');
  };

  it('resumes the scan on the next worker after SIGKILL (or ends it unable_to_complete); a new start then completes', async (t) => {
    await useProfile('resumed');
    await setRate(10);
    const first = await startWorker(h, workers);
    await start();
    const progressed = await runningWithProgress();
    const before = await latestScan();
    assert.equal(before.status, 'running');
    assert.equal(before.runner, first.name, 'the first worker runs it');
    assert.equal(before.runs, 1);
    assert.ok(before.jobId !== null);

    await killHard(first);
    const requestsAtKill = site.requests.length;
    // Dead, not ended: the row says running, the job still holds the dead worker's lease.
    const atKill = await status();
    assert.equal(atKill.status, 'running');
    const percentAtKill: number = atKill.progress.percentage;
    assert.ok(percentAtKill > 0 && percentAtKill < 100, `a percentage was saved before the kill: ${percentAtKill}`);
    assert.equal((await jobStateOf(h.runtime.database, before.jobId!))?.state, 'active');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(site.requests.length, requestsAtKill, 'nothing crawls once the worker is dead');
    assert.ok(
      requestsAtKill < 300,
      `killed mid-crawl (${requestsAtKill} requests, ${progressed.progress.pages_crawled} pages saved)`,
    );

    // The resumed run crawls every page again: unlimited, so this file stays short. The run
    // reads the profile's settings when it starts, so the change applies to the resumed run.
    await setRate(0);
    const second = await startWorker(h, workers);
    // The resumed run crawls again from the start, yet the percentage never drops below the saved one.
    const resumedRead = await waitUntil(
      'the scan to be resumed or to end',
      async () => {
        const s = await status();
        return (await latestScan()).runs > 1 || !liveStatuses.includes(s.status) ? s : undefined;
      },
      60_000,
    );
    assert.ok(
      resumedRead.progress.percentage >= percentAtKill,
      `${resumedRead.progress.percentage} < ${percentAtKill}`,
    );
    const done = await finished(60_000);
    assert.ok(done.progress.percentage >= percentAtKill, `${done.progress.percentage} < ${percentAtKill}`);
    if (done.status === 'completed') assert.equal(done.progress.percentage, 100);
    const after = await latestScan();
    assert.equal(after.id, before.id, 'the same scan, not a new one');
    if (done.status === 'completed') {
      t.diagnostic(`resumed and completed on the second worker (${after.progress.pagesCrawled} pages)`);
      assert.equal(done.error, '');
      assert.equal(after.runs, 2, 'run twice');
      assert.equal(after.runner, second.name, 'the second worker finished it');
      const resumed = done.warnings.filter((w: string) => w.startsWith('Resumed at '));
      assert.equal(resumed.length, 1, JSON.stringify(done.warnings));
      assert.match(resumed[0], /after the worker running it stopped \(run 2\)/);
      assert.equal(
        after.progress.pagesCrawled,
        302,
        'the resumed run crawled the whole site (300 pages, robots.txt and sitemap.xml)',
      );
      // requests_sent counts both runs: what the first had saved, and every request of the second.
      const secondRun = site.requests.length - requestsAtKill;
      assert.ok(
        after.progress.requestsSent >= before.progress.requestsSent + secondRun &&
          after.progress.requestsSent <= site.requests.length,
        `requests_sent ${after.progress.requestsSent}: first run saved ${before.progress.requestsSent}, second sent ${secondRun}, the site saw ${site.requests.length}`,
      );
      const vulns = await vulnerabilities();
      assertNoTwins(vulns);
      // The generated site sends no security headers: one finding per missing header, recorded
      // by the killed run already and seen again by the resumed one.
      assert.deepEqual(vulns.map((v) => v.title).sort(), missingHeaders);
      const reported = Object.values(after.counts).reduce((a, b) => a + b, 0);
      assert.equal(reported, vulns.length, 'the report counts each finding once');
      assert.equal(done.progress.findings, vulns.length);
    } else {
      t.diagnostic(`ended ${done.status}: ${done.error}`);
      assert.equal(done.status, 'unable_to_complete', JSON.stringify(done));
      assert.ok(done.error.length > 20, `a clear error: ${done.error}`);
    }
    assert.equal(
      (await jobStateOf(h.runtime.database, before.jobId!))?.state,
      done.status === 'completed' ? 'completed' : 'failed',
    );

    // The profile is free again: a new scan starts (202) and completes on the live worker.
    const uuidsBefore = (await vulnerabilities()).map((v) => v.uuid).sort();
    await start();
    const next = await finished(60_000);
    assert.equal(next.status, 'completed', JSON.stringify(next));
    const rescan = await latestScan();
    assert.notEqual(rescan.id, before.id);
    assert.equal(rescan.runs, 1);
    assert.equal(rescan.runner, second.name);
    assert.deepEqual(rescan.warnings, []);
    const vulnsAfter = await vulnerabilities();
    assertNoTwins(vulnsAfter);
    if (uuidsBefore.length > 0)
      assert.deepEqual(
        vulnsAfter.map((v) => v.uuid).sort(),
        uuidsBefore,
        'the rescan updates the same vulnerabilities',
      );

    second.child.kill('SIGTERM');
    assert.deepEqual(await second.exited, { code: 0, signal: null }, second.output());
  });

  it('ends a killed scan unable_to_complete when its job can no longer run; a new start then completes', async () => {
    // Whatever the first case left (it may have failed half-way): no worker, no live scan.
    await killAll(workers);
    await recoverScans({
      store: h.runtime.store,
      queue: { enqueueScan: () => Promise.resolve('never-run'), isPending: () => Promise.resolve(false) },
    });
    await useProfile('ended');
    await setRate(10);
    const worker = await startWorker(h, workers);
    await start();
    await runningWithProgress();
    const killed = await latestScan();
    assert.equal(killed.runner, worker.name);
    await killHard(worker);

    // While the job is still pending (its lease expires, it is retried), recovery leaves the
    // scan alone: a worker will resume it.
    const realQueue = h.runtime.scanQueue;
    assert.equal(await realQueue.isPending(killed.jobId!), true);
    assert.equal(await recoverScans({ store: h.runtime.store, queue: realQueue }), 0);
    assert.equal((await latestScan()).status, 'running');

    // The job can no longer run (as after its last retry): recovery ends the scan with the reason.
    const exhausted: ScanQueue = {
      enqueueScan: () => Promise.reject(new Error('recovery must not enqueue a scan that has a job')),
      isPending: () => Promise.resolve(false),
    };
    assert.equal(await recoverScans({ store: h.runtime.store, queue: exhausted }), 1);
    const ended = await status();
    assert.equal(ended.status, 'unable_to_complete');
    assert.equal(ended.state, 'stopped');
    assert.equal(ended.phase, 'finished');
    assert.equal(ended.error, killedError);
    assert.ok(ended.ended, 'an end time');
    assert.ok(ended.progress.pages_crawled >= 5, 'what it did before the kill is kept');
    assert.equal(await recoverScans({ store: h.runtime.store, queue: exhausted }), 0, 'nothing live left to repair');

    // A new start is accepted at once and completes on a new worker.
    await setRate(0);
    await start();
    const fresh = await latestScan();
    assert.notEqual(fresh.id, killed.id);
    const worker2 = await startWorker(h, workers);
    const done = await finished(60_000);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const completed = await latestScan();
    assert.equal(completed.id, fresh.id);
    assert.equal(completed.runner, worker2.name);
    assert.equal(completed.runs, 1);
    const vulns = await vulnerabilities();
    assertNoTwins(vulns);
    assert.deepEqual(vulns.map((v) => v.title).sort(), missingHeaders);

    // The old job, handed out again once its lease expired, finds its scan ended and leaves it so.
    await waitUntil(
      "the killed scan's job to be settled",
      async () => {
        const state = await jobStateOf(h.runtime.database, killed.jobId!);
        return state?.state === 'completed' || state?.state === 'failed' ? state : undefined;
      },
      60_000,
    );
    const old = (await h.runtime.store.scans.findById(killed.id))!;
    assert.equal(old.status, 'unable_to_complete');
    assert.equal(old.error, killedError);
    assert.equal(old.runs, 1, 'never run again');

    worker2.child.kill('SIGTERM');
    assert.deepEqual(await worker2.exited, { code: 0, signal: null }, worker2.output());
  });
});
