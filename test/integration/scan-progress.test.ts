import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startGeneratedSite, type TargetServer } from '../support/target-site.ts';
import { waitUntil } from '../support/test-jobs.ts';

// The scan status's progress extension during a real scan of a loopback site, slowed down by
// requests_per_second so that it runs for a few seconds: the percentage rises and never falls,
// stays below 100 while the scan runs, and a time left appears once there is enough to judge.

/** One read of the scan status while a test watched it. */
interface Read {
  at: number;
  status: string;
  percentage: number;
  secondsLeft: number | null;
}

const liveStatuses = ['starting', 'running', 'stopping'];

describe(`scan progress percentage and time left (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let site: TargetServer;
  let profileToken: string;

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 3000 });
    key = (await h.team('progress', { plan: 'enterprise' })).key;
    site = await startGeneratedSite(40);
    const asset = await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } });
    assert.equal(asset.statusCode, 200, asset.body);
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'progress');
    const profile = await h.send('POST', '/rest/v2/profiles/', {
      key,
      body: { asset_token: asset.json().token, endpoint: `127.0.0.1:${site.port}`, name: 'progress' },
    });
    assert.equal(profile.statusCode, 200, profile.body);
    profileToken = profile.json().token;
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
  });
  after(async () => {
    await h?.close();
    await site?.stop();
  });

  const setRate = async (requestsPerSecond: number) => {
    const res = await h.send('PUT', `/rest/v2/profiles/${profileToken}/settings/`, {
      key,
      body: { requests_per_second: requestsPerSecond },
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  const read = async (): Promise<Read> => {
    const res = await h.send('GET', `/rest/v2/scans/${profileToken}/`, { key });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    return {
      at: Date.now(),
      status: body.status,
      percentage: body.progress.percentage,
      secondsLeft: body.progress.seconds_left,
    };
  };
  /** Reads the status about every 200 ms until `until` says enough; answers every read. */
  const watch = async (until: (r: Read) => boolean, timeoutMs: number): Promise<Read[]> => {
    const reads: Read[] = [];
    await waitUntil(
      'the watched scan',
      async () => {
        const r = await read();
        reads.push(r);
        if (until(r)) return true;
        await new Promise((resolve) => setTimeout(resolve, 150));
        return undefined;
      },
      timeoutMs,
    );
    return reads;
  };
  const assertNeverFalls = (reads: Read[]) => {
    for (let i = 1; i < reads.length; i++)
      assert.ok(
        reads[i]!.percentage >= reads[i - 1]!.percentage,
        `the percentage fell: ${reads.map((r) => `${r.status} ${r.percentage}`).join(', ')}`,
      );
  };

  it('rises while a scan runs, with a time left once there is enough to judge, and reads 100 once completed', async (t) => {
    await setRate(25);
    const started = await h.send('POST', `/rest/v2/scans/${profileToken}/`, { key });
    assert.equal(started.statusCode, 202, started.body);
    assert.equal(started.json().status, 'starting');
    assert.equal(started.json().progress.percentage, 0);
    assert.equal(started.json().progress.seconds_left, null, 'nothing to judge before the scan runs');
    const startedAt = Date.now();

    const reads = await watch((r) => !liveStatuses.includes(r.status), 60_000);
    const ended = reads.at(-1)!;
    t.diagnostic(
      `${((ended.at - startedAt) / 1000).toFixed(1)} s: ` +
        reads
          .map((r) => `${((r.at - startedAt) / 1000).toFixed(1)}:${r.status[0]}${r.percentage}/${r.secondsLeft ?? '-'}`)
          .join(' '),
    );
    assert.equal(ended.status, 'completed', JSON.stringify(ended));
    assert.equal(ended.percentage, 100);
    assert.equal(ended.secondsLeft, 0);
    assertNeverFalls(reads);

    const running = reads.filter((r) => r.status === 'running');
    assert.ok(running.length >= 5, `watched the scan run (${running.length} reads)`);
    assert.ok(
      running.every((r) => r.percentage < 100),
      'a running scan never reads 100',
    );
    const risen = new Set(running.map((r) => r.percentage));
    assert.ok(risen.size >= 3, `the percentage rose step by step while running: ${[...risen].join(', ')}`);
    const judged = running.filter((r) => r.secondsLeft !== null);
    assert.ok(judged.length >= 2, 'a time left while running');
    assert.ok(
      judged.every((r) => Number.isInteger(r.secondsLeft) && r.secondsLeft! >= 1),
      'at least a second left while running',
    );
    // Before the run did enough (or ran long enough) there is no estimate.
    assert.equal(running[0]!.secondsLeft, null, 'no estimate at the first read of the run');
    // An estimate, revised as the work goes (small sites front-load their once-per-origin probes, so
    // it starts pessimistic): it shrinks as the scan nears its end, and the last one is of the right size.
    const [first, last] = [judged[0]!, judged.at(-1)!];
    assert.ok(last.secondsLeft! < first.secondsLeft!, `from ${first.secondsLeft} s down to ${last.secondsLeft} s`);
    // Measured from the first read that showed that estimate (the save that made it): reads repeat
    // a saved progress for up to a second, and a small site can end within that second.
    const shown = judged.find((r) => r.secondsLeft === last.secondsLeft && r.percentage === last.percentage)!;
    const actual = (ended.at - shown.at) / 1000;
    assert.ok(last.secondsLeft! <= 5 * actual + 3, `estimated ${last.secondsLeft} s, took ${actual.toFixed(1)} s`);
  });

  it('keeps the percentage of a stopped scan, with no time left', async () => {
    await setRate(10);
    assert.equal((await h.send('POST', `/rest/v2/scans/${profileToken}/`, { key })).statusCode, 202);
    const reads = await watch((r) => r.status === 'running' && r.percentage > 0, 20_000);
    const stop = await h.send('DELETE', `/rest/v2/scans/${profileToken}/`, { key });
    assert.equal(stop.statusCode, 202, stop.body);
    reads.push(...(await watch((r) => !liveStatuses.includes(r.status), 10_000)));
    const ended = reads.at(-1)!;
    assert.equal(ended.status, 'stopped');
    assertNeverFalls(reads);
    assert.ok(ended.percentage > 0 && ended.percentage < 100, `stopped at ${ended.percentage}`);
    assert.equal(ended.secondsLeft, null);
  });
});
