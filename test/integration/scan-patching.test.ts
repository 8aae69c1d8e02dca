import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';
import { waitUntil } from '../support/test-jobs.ts';

interface Vuln {
  uuid: string;
  title: string;
  status: string;
}

/**
 * A completed scan patches only the findings at locations it reached: a rescan that gets no
 * answer from a path (a time-out), or no longer requests it (a narrowed scope), must not call
 * the finding there patched. Once a rescan reaches the path again and finds nothing, it does.
 */
describe(`a completed scan patches only what it reached (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let site: TestHttpServer;
  let profile: string;
  const page = {
    status: 200,
    headers: { 'content-type': 'text/html' },
    body: '<html><body><a href="/about">about</a></body></html>',
  };

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 3000, scanRequestTimeoutMs: 600 });
    key = (await h.team('patching', { plan: 'enterprise' })).key;
    site = await startHttpServer({
      '/': page,
      '/about': page,
      '/.git/HEAD': { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ref: refs/heads/main\n' },
    });
    const asset = (await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } })).json()
      .token as string;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'patching');
    profile = (
      await h.send('POST', '/rest/v2/profiles/', {
        key,
        body: { asset_token: asset, endpoint: `127.0.0.1:${site.port}`, name: 'patching' },
      })
    ).json().token as string;
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
  });
  after(async () => {
    await h.close();
    await site.stop();
  });

  const scan = async () => {
    assert.equal((await h.send('POST', `/rest/v2/scans/${profile}/`, { key })).statusCode, 202);
    const done = await waitUntil(
      'the scan to end',
      async () => {
        const s = (await h.send('GET', `/rest/v2/scans/${profile}/`, { key })).json();
        return ['starting', 'running', 'stopping'].includes(s.status) ? undefined : s;
      },
      30_000,
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    return done as { warnings: string[] };
  };
  const git = async () => {
    const list = (
      await h.send('GET', `/rest/v2/vulnerabilities/?pageSize=100&scan_profile_token[]=${profile}`, { key })
    ).json().vulnerabilities as Vuln[];
    const found = list.filter((v) => /git/i.test(v.title));
    assert.equal(found.length, 1, JSON.stringify(list.map((v) => v.title)));
    return found[0]!;
  };

  it('finds the exposed repository', async () => {
    await scan();
    assert.equal((await git()).status, 'new');
  });

  it('leaves it as it was when the rescan gets no answer from the path, and says so in a warning', async () => {
    site.routes.set('/.git/HEAD', { isHanging: true });
    const done = await scan();
    assert.equal((await git()).status, 'new');
    assert.ok(
      done.warnings.some((w) => /requests got no answer/.test(w)),
      JSON.stringify(done.warnings),
    );
  });

  it('leaves it as it was when the rescan no longer requests the path (the scope was narrowed)', async () => {
    site.routes.set('/.git/HEAD', { status: 404, body: 'gone' });
    const before = site.requests.length;
    assert.equal(
      (
        await h.send('PATCH', `/rest/v2/profiles/${profile}/settings/`, {
          key,
          body: { whitelisted_paths: ['/about'] },
        })
      ).statusCode,
      200,
    );
    await scan();
    assert.ok(
      !site.requests.slice(before).some((r) => r.includes('/.git/')),
      JSON.stringify(site.requests.slice(before)),
    );
    assert.equal((await git()).status, 'new');
  });

  it('patches it once a rescan reaches the path and finds nothing there', async () => {
    assert.equal(
      (await h.send('PATCH', `/rest/v2/profiles/${profile}/settings/`, { key, body: { whitelisted_paths: [] } }))
        .statusCode,
      200,
    );
    await scan();
    assert.equal((await git()).status, 'patched');
  });
});
