import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { escapeHtml } from '../../src/http/console/html.ts';
import { signedInMember, type ConsoleClient } from '../support/console-client.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { defaultSettingsBody } from '../support/asset-settings-bodies.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';

/** The settings of a new asset, as v2 reads them. */
const defaults = defaultSettingsBody;

type Settings = typeof defaults;

/** The form fields a browser sends for these settings (a switch that is off is not sent). */
function formOf(settings: Settings): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(settings)) {
    if (typeof value === 'boolean') {
      if (value) fields[name] = 'true';
    } else if (name === 'custom_headers') {
      fields[name] = Object.entries(value as Record<string, string>)
        .map(([n, v]) => `${n}: ${v}`)
        .join('\r\n');
    } else fields[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return fields;
}

const tokenIn = (location: unknown): string => /\/assets\/([0-9a-f]{32})/.exec(String(location))![1]!;

/** The text of the element marked `data-proof="KIND"` (the proof the page tells to publish). */
const proofIn = (body: string, kind: 'txt' | 'file'): string =>
  new RegExp(`data-proof="${kind}">([^<]+)<`).exec(body)![1]!;

describe('console: assets', () => {
  const dns = new TestDnsServer();
  let web: TestHttpServer;
  let h: Harness;
  let key: string;
  let otherKey: string;
  let code: string;
  let admin: ConsoleClient;
  let editor: ConsoleClient;
  let viewer: ConsoleClient;
  const tokens: Record<string, string> = {};

  before(async () => {
    await dns.start();
    web = await startHttpServer({});
    // DNS goes to the test server only, connections to loopback only: adding an asset never
    // reaches the network (its background ownership check asks the test server).
    h = await createHarness({ dnsResolvers: [dns.address], egressAllow: ['127.0.0.0/8'] });
    code = JSON.parse(await h.admin('team', 'create', 'acme', '--json')).verification_code;
    key = (await h.key('acme')).key;
    otherKey = (await h.team('rivals')).key;
    admin = await signedInMember(h, 'acme', 'admin@acme.test', 'Admin');
    editor = await signedInMember(h, 'acme', 'editor@acme.test', 'Editor');
    viewer = await signedInMember(h, 'acme', 'viewer@acme.test', 'Viewer');
  });
  after(async () => {
    await h.runtime.verification.settle();
    await h.close();
    await web.stop();
    await dns.stop();
  });

  async function apiAssets(): Promise<Array<{ token: string; name: string; status: string }>> {
    const res = await h.send('GET', '/rest/v2/assets/?include_subdomains=true&pageSize=1000', { key });
    return res.json().assets ?? [];
  }

  it('lists no assets at first, with the add form for an Admin', async () => {
    const res = await admin.get('/assets');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<h1>Assets<\/h1>/);
    assert.match(res.body, /The team has no assets yet/);
    assert.match(res.body, /<form method="post" action="\/assets"/);
    assert.match(res.body, /<label for="name">/);
  });

  it('adds an asset and shows it with how to verify it: the TXT record and the file', async () => {
    await admin.get('/assets');
    const res = await admin.post('/assets', { name: 'shop.test' });
    assert.equal(res.statusCode, 303);
    assert.match(String(res.headers.location), /^\/assets\/[0-9a-f]{32}\?notice=asset-added$/);
    tokens['shop.test'] = tokenIn(res.headers.location);
    await h.runtime.verification.settle();
    assert.deepEqual(
      (await apiAssets()).map((a) => [a.token, a.name, a.status]),
      [[tokens['shop.test'], 'shop.test', 'unverified']],
    );

    const page = await admin.get(String(res.headers.location));
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Asset added\. Verify it to scan it\./);
    assert.match(page.body, /<h1>shop\.test<\/h1>/);
    assert.match(page.body, /How to verify/);
    assert.equal(proofIn(page.body, 'txt'), `perimeter-verification=${code}`);
    assert.equal(proofIn(page.body, 'file'), `perimeter-verification=${code}`);
    assert.ok(page.body.includes('<code>https://shop.test/.well-known/perimeter-verification.txt</code>'));
    assert.ok(page.body.includes('<code>http://shop.test/.well-known/perimeter-verification.txt</code>'));
    assert.match(page.body, /<button type="submit" class="primary">Check now<\/button>/);

    const list = await admin.get('/assets');
    assert.ok(list.body.includes(`<a href="/assets/${tokens['shop.test']}">shop.test</a>`));
    assert.match(list.body, /<th scope="col">Status<\/th>/);
  });

  it("refuses a name the API refuses, with the API's message and status, keeping what was typed", async () => {
    for (const name of ['shop.test', 'not a name']) {
      const api = await h.send('POST', '/rest/v2/assets/', { key, body: { name } });
      assert.ok(api.statusCode === 409 || api.statusCode === 400);
      await admin.get('/assets');
      const res = await admin.post('/assets', { name });
      assert.equal(res.statusCode, api.statusCode);
      const { code: apiCode, message } = api.json() as { code: number; message: string };
      assert.ok(
        res.body.includes(
          `<p class="problem" role="alert" id="add-problem">${escapeHtml(message)} <span class="code">(error ${apiCode})</span></p>`,
        ),
      );
      assert.ok(res.body.includes(`value="${escapeHtml(name)}"`));
    }
    assert.equal((await apiAssets()).length, 1);
  });

  it('accepts a name under a root asset as its subdomain, with the API 2019 message', async () => {
    const api = await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'api.shop.test' } });
    assert.equal(api.statusCode, 202);
    assert.equal(api.json().code, 2019);
    const message = api.json().message as string;
    assert.match(message, /^Asset accepted as a subdomain of shop\.test/);
    await admin.get('/assets');
    const res = await admin.post('/assets', { name: 'www.shop.test' });
    assert.equal(res.statusCode, 200);
    assert.ok(res.body.includes(escapeHtml(message)));
    const sub = (await apiAssets()).find((a) => a.name === 'www.shop.test')!;
    tokens['www.shop.test'] = sub.token;
    assert.ok(res.body.includes(`<a href="/assets/${sub.token}">Open www.shop.test</a>`));

    const root = await admin.get(`/assets/${tokens['shop.test']}`);
    assert.match(root.body, /<h2 id="subdomains">Subdomains<\/h2>/);
    assert.ok(root.body.includes(`<a href="/assets/${sub.token}">www.shop.test</a>`));
    const detail = await admin.get(`/assets/${sub.token}`);
    assert.equal(detail.statusCode, 200);
    assert.ok(
      detail.body.includes(`<dt>Subdomain of</dt><dd><a href="/assets/${tokens['shop.test']}">shop.test</a></dd>`),
    );
  });

  it('pages the root assets with the listing marker', async () => {
    for (let i = 0; i < 50; i++) await h.send('POST', '/rest/v2/assets/', { key, body: { name: `page${i}.test` } });
    await h.runtime.verification.settle();
    const first = await admin.get('/assets');
    const next = /<a href="(\/assets\?marker=[^"]+)">Next page<\/a>/.exec(first.body);
    assert.ok(next !== null, 'a next page');
    assert.equal((first.body.match(/<tr>/g) ?? []).length, 51, 'header row and 50 assets');
    const second = await admin.get(next[1]!.replace(/&amp;/g, '&'));
    assert.equal(second.statusCode, 200);
    assert.equal((second.body.match(/<tr>/g) ?? []).length, 2, 'header row and the 51st asset');
    assert.match(second.body, /page49\.test/);
    assert.match(second.body, /<a href="\/assets">First page<\/a>/);
    assert.doesNotMatch(second.body, /Next page/);
  });

  it('checks an unverified asset now: not yet, then verified once the TXT record the page shows is published', async () => {
    const path = `/assets/${tokens['shop.test']}`;
    const page = await editor.get(path);
    const notYet = await editor.post(`${path}/check`);
    assert.equal(notYet.statusCode, 303);
    assert.equal(notYet.headers.location, `${path}?notice=asset-not-verified`);
    const shown = await editor.get(String(notYet.headers.location));
    assert.match(shown.body, /The verification record or file was not found yet/);
    assert.match(shown.body, /status-unverified/);

    dns.set('shop.test', { txt: [proofIn(page.body, 'txt')] });
    const verified = await editor.post(`${path}/check`);
    assert.equal(verified.headers.location, `${path}?notice=asset-verified`);
    const done = await editor.get(String(verified.headers.location));
    assert.match(done.body, /The asset is verified\./);
    assert.match(done.body, /Ownership is verified/);
    assert.doesNotMatch(done.body, /Check now/);
    assert.equal((await apiAssets()).find((a) => a.name === 'shop.test')!.status, 'verified');
  });

  it('verifies through the file the page shows, on the port given with the name', async () => {
    dns.set('web.test', { a: ['127.0.0.1'] });
    await editor.get('/assets');
    const added = await editor.post('/assets', { name: `web.test:${web.port}` });
    assert.equal(added.statusCode, 303);
    tokens['web.test'] = tokenIn(added.headers.location);
    await h.runtime.verification.settle();
    const page = await editor.get(`/assets/${tokens['web.test']}`);
    assert.ok(page.body.includes(`<code>https://web.test:${web.port}/.well-known/perimeter-verification.txt</code>`));
    assert.ok(page.body.includes(`<code>http://web.test:${web.port}/.well-known/perimeter-verification.txt</code>`));
    web.routes.set('/.well-known/perimeter-verification.txt', `${proofIn(page.body, 'file')}\n`);
    const checked = await editor.post(`/assets/${tokens['web.test']}/check`);
    assert.equal(checked.headers.location, `/assets/${tokens['web.test']}?notice=asset-verified`);
  });

  it('shows the settings and saves them; the API reads what the form saved', async () => {
    const path = `/assets/${tokens['shop.test']}/settings`;
    const page = await admin.get(path);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1>Settings of shop\.test<\/h1>/);
    assert.match(page.body, /<input type="checkbox" id="scrape" name="scrape" value="true" checked>/);
    assert.match(page.body, /<input type="checkbox" id="brute_force" name="brute_force" value="true" aria-describedby/);
    assert.match(page.body, /<label for="requests_per_second">/);
    assert.match(page.body, /value="10"/);

    const wanted = {
      ...defaults,
      custom_headers: { 'X-Scanner': 'perimeter' },
      port_scanning_avoid_list: '22, 3389',
      requests_per_second: 50,
      stateless_tests: false,
      fingerprinting: false,
    };
    const saved = await admin.post(path, formOf(wanted));
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, `${path}?notice=settings-saved`);
    const api = await h.send('GET', `/rest/v2/domains/${tokens['shop.test']}/settings/`, { key });
    assert.deepEqual(api.json(), { ...wanted, port_scanning_avoid_list: [22, 3389] });
    const shown = await admin.get(String(saved.headers.location));
    assert.match(shown.body, /Settings saved\./);
    assert.match(shown.body, /value="22, 3389"/);
    assert.ok(shown.body.includes('X-Scanner: perimeter</textarea>'));
  });

  it("refuses settings the API refuses, with the API's exact message, keeping the values typed", async () => {
    const path = `/assets/${tokens['www.shop.test']}/settings`;
    const unchanged = (await h.send('GET', `/rest/v2/domains/${tokens['www.shop.test']}/settings/`, { key })).json();
    const cases: Settings[] = [
      // 2422: every problem at once.
      {
        ...defaults,
        requests_per_second: 5000,
        port_scanning_avoid_list: '22, http',
        custom_headers: { Authorization: 'secret' },
      },
      { ...defaults, requests_per_second: 'ten' },
      // 2426: brute force without scraping.
      { ...defaults, brute_force: true, scrape: false },
      // 2425: monitoring of an unverified domain.
      { ...defaults, monitoring: true },
    ];
    for (const body of cases) {
      const api = await h.send('PUT', `/rest/v2/domains/${tokens['www.shop.test']}/settings/`, { key, body });
      assert.equal(api.statusCode, 400);
      await admin.get(path);
      const res = await admin.post(path, formOf(body));
      assert.equal(res.statusCode, 400);
      const { code: apiCode, message } = api.json() as { code: number; message: string };
      assert.ok(
        res.body.includes(
          `<p class="problem" role="alert" id="settings-problem">${escapeHtml(message)} <span class="code">(error ${apiCode})</span></p>`,
        ),
        `${apiCode} ${message}`,
      );
      assert.ok(res.body.includes(`value="${escapeHtml(String(body.requests_per_second))}"`));
    }
    const first = await admin.post(path, formOf(cases[0]!));
    assert.match(
      first.body,
      /Asset settings malformed: .*custom_headers.*port_scanning_avoid_list.*requests_per_second/,
    );
    assert.match(
      first.body,
      /id="requests_per_second" name="requests_per_second" value="5000"[^>]*aria-invalid="true"/,
    );
    assert.deepEqual(
      (await h.send('GET', `/rest/v2/domains/${tokens['www.shop.test']}/settings/`, { key })).json(),
      unchanged,
    );
  });

  it('lets a Viewer read but not add, delete or change settings (403)', async () => {
    const list = await viewer.get('/assets');
    assert.equal(list.statusCode, 200);
    assert.doesNotMatch(list.body, /action="\/assets"/);
    const detail = await viewer.get(`/assets/${tokens['www.shop.test']}`);
    assert.equal(detail.statusCode, 200);
    assert.doesNotMatch(detail.body, /Check now|Delete/);
    const settings = await viewer.get(`/assets/${tokens['www.shop.test']}/settings`);
    assert.equal(settings.statusCode, 200);
    assert.match(settings.body, /<fieldset class="plain" disabled>/);
    for (const [url, fields] of [
      ['/assets', { name: 'viewer.test' }],
      [`/assets/${tokens['www.shop.test']}/check`, {}],
      [`/assets/${tokens['www.shop.test']}/delete`, {}],
      [`/assets/${tokens['www.shop.test']}/settings`, formOf(defaults)],
    ] as const) {
      const res = await viewer.post(url, fields);
      assert.equal(res.statusCode, 403, url);
      assert.match(res.body, /Not allowed/);
    }
    assert.equal((await apiAssets()).filter((a) => a.name === 'viewer.test' || a.name === 'www.shop.test').length, 1);
  });

  it('lets an Editor add and check but not delete or change settings (403)', async () => {
    const detail = await editor.get(`/assets/${tokens['www.shop.test']}`);
    assert.doesNotMatch(detail.body, />Delete</);
    for (const [url, fields] of [
      [`/assets/${tokens['www.shop.test']}/delete`, {}],
      [`/assets/${tokens['www.shop.test']}/settings`, formOf(defaults)],
    ] as const) {
      const res = await editor.post(url, fields);
      assert.equal(res.statusCode, 403, url);
      assert.match(res.body, /Not allowed/);
    }
    assert.ok((await apiAssets()).some((a) => a.name === 'www.shop.test'));
  });

  it("answers another team's asset, an unknown token and a malformed one with the same not-found page", async () => {
    const theirs = (await h.send('POST', '/rest/v2/assets/', { key: otherKey, body: { name: 'rival.test' } })).json();
    await admin.get('/assets');
    for (const suffix of ['', '/settings']) {
      const pages = [];
      for (const token of [theirs.token, '0123456789abcdef0123456789abcdef', 'not-a-token'])
        pages.push(await admin.get(`/assets/${token}${suffix}`));
      for (const res of pages) {
        assert.equal(res.statusCode, 404);
        assert.equal(res.body, pages[0]!.body);
      }
      assert.match(pages[0]!.body, /Not found/);
      assert.doesNotMatch(pages[0]!.body, /rival\.test/);
    }
    for (const action of ['delete', 'check', 'settings']) {
      const res = await admin.post(`/assets/${theirs.token}/${action}`, action === 'settings' ? formOf(defaults) : {});
      assert.equal(res.statusCode, 404, action);
    }
    const still = (await h.send('GET', '/rest/v2/assets/', { key: otherKey })).json().assets;
    assert.deepEqual(
      still.map((a: { name: string }) => a.name),
      ['rival.test'],
    );
  });

  it('refuses a form without its CSRF token (403)', async () => {
    await admin.get('/assets');
    const add = await admin.post('/assets', { name: 'csrf.test', _csrf: '' });
    assert.equal(add.statusCode, 403);
    assert.match(add.body, /Form expired/);
    const remove = await admin.post(`/assets/${tokens['web.test']}/delete`, { _csrf: 'x'.repeat(43) });
    assert.equal(remove.statusCode, 403);
    const names = (await apiAssets()).map((a) => a.name);
    assert.ok(!names.includes('csrf.test'));
    assert.ok(names.includes('web.test'));
  });

  it('deletes an asset (Admin) and then answers not found for it', async () => {
    const path = `/assets/${tokens['web.test']}`;
    const page = await admin.get(path);
    assert.match(page.body, /data-confirm="Delete web\.test and everything found under it\?"/);
    const res = await admin.post(`${path}/delete`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/assets?notice=asset-deleted');
    const list = await admin.get(String(res.headers.location));
    assert.match(list.body, /Asset deleted\./);
    assert.ok(!(await apiAssets()).some((a) => a.name === 'web.test'));
    assert.equal((await admin.get(path)).statusCode, 404);
  });
});
