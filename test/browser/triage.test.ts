import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { BrowserSuite, redirectStatus, type ConsolePage } from '../support/browser.ts';
import { testStore } from '../support/harness.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';
import { waitUntil } from '../support/test-jobs.ts';

/**
 * The triage flow end to end: a real scan (the job worker, the HTTP engine) of a site on loopback
 * finds its exposed git repository; a member marks the finding fixed in the browser; a rescan
 * finds it again, and the console shows it as a regression, on the detail page and in the list
 * filtered by status.
 */
describe(`console triage flow in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  let key: string;
  let profile: string;
  let site: TestHttpServer;
  let editor: ConsolePage;
  let uuid = '';
  const title = 'Git repository exposed (/.git/HEAD readable)';
  const page = {
    status: 200,
    headers: { 'content-type': 'text/html' },
    body: '<html><head><title>Shop</title></head><body><a href="/about">about</a></body></html>',
  };

  /** Starts a scan of the profile through the API and waits for it to complete. */
  const runScan = async (): Promise<void> => {
    assert.equal((await suite.h.send('POST', `/rest/v2/scans/${profile}/`, { key })).statusCode, 202);
    const done = await waitUntil(
      'the scan to end',
      async () => {
        const s = (await suite.h.send('GET', `/rest/v2/scans/${profile}/`, { key })).json();
        return ['starting', 'running', 'stopping'].includes(s.status) ? undefined : s;
      },
      60_000,
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
  };
  const statusOf = async (): Promise<string> =>
    (await suite.h.send('GET', `/rest/v2/vulnerabilities/uuid/${uuid}/`, { key })).json().vulnerability
      .status as string;
  const badge = (cp: ConsolePage) => cp.page.locator('main .status').first();

  before(async () => {
    await suite.start({ endpointValidationTimeoutMs: 3000, scanRequestTimeoutMs: 600 });
    key = (await suite.h.team('triage', { plan: 'enterprise' })).key;
    site = await startHttpServer({
      '/': page,
      '/about': page,
      '/.git/HEAD': { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ref: refs/heads/main\n' },
    });
    const asset = (await suite.h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } })).json();
    await suite.h.admin('asset', 'verify', '127.0.0.1', '--team', 'triage');
    const created = await suite.h.send('POST', '/rest/v2/profiles/', {
      key,
      body: { asset_token: asset.token, endpoint: `127.0.0.1:${site.port}`, name: 'shop' },
    });
    assert.equal(created.statusCode, 200, created.body);
    profile = created.json().token as string;
    await suite.h.jobs.work(jobHandlers(suite.h.runtime), { pollIntervalMs: 50 });
    editor = await suite.member('triage', 'editor@triage.test', 'Editor', '/vulnerabilities');
  });
  after(async () => {
    await suite.close();
    await site.stop();
  });

  it('finds the exposed repository with a scan of the loopback site', async () => {
    await runScan();
    const list = (await suite.h.send('GET', '/rest/v2/vulnerabilities/?pageSize=100', { key })).json()
      .vulnerabilities as Array<{ uuid: string; title: string; status: string }>;
    const found = list.find((v) => v.title === title);
    assert.ok(found, JSON.stringify(list.map((v) => v.title)));
    assert.equal(found.status, 'new');
    uuid = found.uuid;
  });

  it('shows the finding in the list and opens its page from there', async () => {
    await editor.goto('/vulnerabilities');
    const row = editor.page.locator(`tr[data-uuid="${uuid}"]`);
    assert.match(await row.innerText(), /Git repository exposed/);
    assert.equal(await row.locator('.status').innerText(), 'new');
    await editor.check('findings');
    const res = await editor.submit(row.locator(`a[href$="/vulnerabilities/${uuid}"]`).first());
    assert.equal(res.status(), 200);
    assert.equal(new URL(res.url()).pathname, `/vulnerabilities/${uuid}`);
    assert.equal(await editor.page.locator('h1').innerText(), title);
    assert.equal(await badge(editor).innerText(), 'new');
    await editor.check('finding-new');
  });

  it('marks it fixed in the browser', async () => {
    const form = editor.page.locator(`form[action="/vulnerabilities/${uuid}/marks"]`);
    const res = await editor.submit(form.locator('button[name="action"][value="mark:fixed"]'));
    assert.equal(await redirectStatus(res), 303);
    assert.equal(res.status(), 200);
    assert.equal(await statusOf(), 'patched', 'fixed reads patched');
    await editor.goto(`/vulnerabilities/${uuid}`);
    assert.match(await badge(editor).innerText(), /^(patched|fixed)$/);
    assert.match((await badge(editor).getAttribute('class')) ?? '', /status-(patched|fixed)/);
    assert.match(await editor.page.locator('ol.history').innerText(), /fixed/i);
    await editor.check('finding-fixed');
  });

  it('shows it as a regression once a rescan finds it again', async () => {
    await runScan();
    assert.equal(await statusOf(), 'regression');
    await editor.goto(`/vulnerabilities/${uuid}`);
    assert.equal(await badge(editor).innerText(), 'regression');
    assert.match((await badge(editor).getAttribute('class')) ?? '', /\bstatus-regression\b/);
    assert.match(await editor.page.locator('ol.history').innerText(), /regression/i);
    await editor.check('finding-regression');
    const res = await editor.goto('/vulnerabilities?status[]=regression');
    assert.equal(res.status(), 200);
    const rows = editor.page.locator('tr[data-uuid]');
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.first().getAttribute('data-uuid'), uuid);
    assert.equal(await rows.first().locator('.status').innerText(), 'regression');
    await editor.check('findings-regression');
  });
});
