import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runScan } from '../../src/core/scans/scan-runner.service.ts';
import type { ScanEngine, ScanOutcome } from '../../src/core/scans/scan-engine.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { finding } from '../support/findings.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';
import { waitUntil } from '../support/test-jobs.ts';

/**
 * A profile deleted while its scan runs takes the scan's row with it. The run must then stop its
 * engine (no more requests to the target) and end without failing: a finding or a warning it
 * could no longer link to the scan once made the run throw, after the crawl had gone on to the end.
 */
describe(`a scan whose profile is deleted while it runs (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let site: TestHttpServer;
  let assetToken: string;

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 3000 });
    key = (await h.team('deleting', { plan: 'enterprise' })).key;
    site = await startHttpServer({
      '/': { status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>hello</body></html>' },
    });
    assetToken = (await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } })).json()
      .token as string;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'deleting');
  });
  after(async () => {
    await h.close();
    await site.stop();
  });

  it('stops the engine at the next tick and ends quietly, though a finding and a warning arrive after the deletion', async () => {
    const profile = (
      await h.send('POST', '/rest/v2/profiles/', {
        key,
        body: { asset_token: assetToken, endpoint: `127.0.0.1:${site.port}`, name: 'doomed' },
      })
    ).json().token as string;
    assert.equal((await h.send('POST', `/rest/v2/scans/${profile}/`, { key })).statusCode, 202);
    const { id: scanId } = await h.runtime.database.db
      .selectFrom('scans')
      .select('id')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();

    let deleted!: () => void;
    const isDeleted = new Promise<void>((resolve) => (deleted = resolve));
    let abortedAfterMs: number | undefined;
    const engine: Pick<ScanEngine, 'scan'> = {
      scan: async (_target, _settings, _limits, sink, signal): Promise<ScanOutcome> => {
        await isDeleted;
        const at = Date.now();
        void sink
          .finding(finding('late-finding', { host: '127.0.0.1', location: `http://127.0.0.1:${site.port}/late` }))
          .catch(() => undefined);
        sink.warning('a warning after the deletion');
        await new Promise<void>((resolve) => {
          const aborted = () => {
            clearTimeout(timer);
            abortedAfterMs = Date.now() - at;
            resolve();
          };
          const timer = setTimeout(resolve, 8000);
          // A tick may see the deletion before this engine hears of it: the signal is then already aborted.
          if (signal.aborted) aborted();
          else signal.addEventListener('abort', aborted, { once: true });
        });
        return { status: signal.aborted ? 'aborted' : 'completed' };
      },
    };
    const run = runScan({ ...h.runtime.scanRunner, engine, tickMs: 50 }, Number(scanId), {
      runner: 'test',
      signal: new AbortController().signal,
    });
    await waitUntil('the scan to run', async () =>
      (await h.send('GET', `/rest/v2/scans/${profile}/`, { key })).json().status === 'running' ? true : undefined,
    );
    assert.equal((await h.send('DELETE', `/rest/v2/profiles/${profile}/`, { key })).statusCode, 200);
    deleted();

    assert.deepEqual(await run, { kind: 'done' });
    assert.ok(
      abortedAfterMs !== undefined && abortedAfterMs < 2000,
      `the engine was aborted ${abortedAfterMs} ms after the deletion`,
    );
    assert.equal(await h.runtime.store.scans.findById(Number(scanId)), undefined);
    assert.equal((await h.send('GET', `/rest/v2/scans/${profile}/`, { key })).json().code, 2604);
  });
});
