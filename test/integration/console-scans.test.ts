import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { escapeHtml } from '../../src/http/console/html.ts';
import { signedInMember, type ConsoleClient } from '../support/console-client.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startGeneratedSite, type TargetServer } from '../support/target-site.ts';

/** The settings form's fields of a new profile, as a browser sends them (switches off are not sent). */
const defaultForm: Record<string, string> = {
  start_urls: '',
  whitelisted_paths: '',
  blacklisted_paths: '',
  blacklisted_subdomains: '',
  whitelisted_ports: '',
  blacklisted_ports: '',
  requests_per_second: '0',
  custom_headers: '',
  custom_cookies: '',
  basic_auth_username: '',
  basic_auth_password: '',
  session_cookie: '',
  login_url: '',
  login_fields: '',
  login_logged_in_text: '',
  login_logged_in_selector: '',
  login_logged_out_text: '',
  login_logged_out_selector: '',
  report_lifespan_days: '0',
  scan_region: 'inherit-from-team',
};

/** The problem paragraph a form shows for an API error. */
const problemHtml = (id: string, code: number, message: string) =>
  `<p class="problem" role="alert" id="${id}">${escapeHtml(message)} <span class="code">(error ${code})</span></p>`;

const profileIn = (location: unknown): string => /\/scans\/([0-9a-f]{32})/.exec(String(location))![1]!;

describe(`console: scans (${testStore})`, () => {
  let h: Harness;
  let site: TargetServer;
  let other: TargetServer;
  let key: string;
  let rivalKey: string;
  let assetToken: string;
  let rivalProfile: string;
  let admin: ConsoleClient;
  let editor: ConsoleClient;
  let viewer: ConsoleClient;
  let profile = '';

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 3000 });
    site = await startGeneratedSite(6);
    other = await startGeneratedSite(3);
    key = (await h.team('acme')).key;
    rivalKey = (await h.team('rivals')).key;
    assetToken = (await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } })).json().token;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'acme');
    const rivalAsset = (
      await h.send('POST', '/rest/v2/assets/', { key: rivalKey, body: { name: '127.0.0.1' } })
    ).json();
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'rivals');
    const created = await h.send('POST', '/rest/v2/profiles/', {
      key: rivalKey,
      body: { asset_token: rivalAsset.token, endpoint: `127.0.0.1:${other.port}`, name: 'rival app' },
    });
    rivalProfile = created.json().token;
    admin = await signedInMember(h, 'acme', 'admin@acme.test', 'Admin');
    editor = await signedInMember(h, 'acme', 'editor@acme.test', 'Editor');
    viewer = await signedInMember(h, 'acme', 'viewer@acme.test', 'Viewer');
  });
  after(async () => {
    await h.runtime.verification.settle();
    await h.close();
    await site.stop();
    await other.stop();
  });

  it('lists no profiles at first, with the create form offering the verified asset', async () => {
    const res = await admin.get('/scans');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<h1>Scans<\/h1>/);
    assert.match(res.body, /The team has no scan profiles yet/);
    assert.match(res.body, /<form method="post" action="\/scans" class="stack">/);
    assert.ok(res.body.includes(`<option value="${assetToken}">127.0.0.1</option>`));
  });

  it('creates a profile and lists it under its asset, as the API does', async () => {
    await admin.get('/scans');
    const res = await admin.post('/scans', {
      asset_token: assetToken,
      endpoint: `127.0.0.1:${site.port}`,
      name: 'shop',
    });
    assert.equal(res.statusCode, 303, res.body);
    assert.match(String(res.headers.location), /^\/scans\/[0-9a-f]{32}\?notice=profile-created$/);
    profile = profileIn(res.headers.location);
    const api = (await h.send('GET', '/rest/v2/profiles/', { key })).json();
    assert.deepEqual(
      api.map((p: { token: string; name: string; endpoint: string }) => [p.token, p.name, p.endpoint]),
      [[profile, 'shop', `127.0.0.1:${site.port}`]],
    );
    const page = await admin.get(String(res.headers.location));
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Scan profile created\./);
    assert.match(page.body, /<h1>shop<\/h1>/);
    assert.match(page.body, /This profile was never scanned\./);
    assert.match(page.body, /<button type="submit" class="primary">Start a scan<\/button>/);
    const list = await admin.get('/scans');
    assert.ok(list.body.includes(`<a href="/assets/${assetToken}">127.0.0.1</a>`));
    assert.ok(list.body.includes(`<a href="/scans/${profile}">shop</a>`));
    assert.match(list.body, /never scanned/);
  });

  it("refuses a profile the API refuses, with the API's message and status, keeping what was typed", async () => {
    const cases = [
      { asset_token: assetToken, endpoint: `127.0.0.1:${site.port}` },
      { asset_token: assetToken, endpoint: 'example.com' },
      { asset_token: assetToken, endpoint: 'not a host!' },
      { asset_token: 'nope', endpoint: '127.0.0.1' },
      { asset_token: 'f'.repeat(32), endpoint: '127.0.0.1' },
      { asset_token: assetToken, endpoint: `127.0.0.1:${other.port}`, name: 'x'.repeat(256) },
    ];
    for (const body of cases) {
      const api = await h.send('POST', '/rest/v2/profiles/', { key, body });
      assert.ok(api.statusCode >= 400, api.body);
      await admin.get('/scans');
      const res = await admin.post('/scans', { name: '', ...body });
      assert.equal(res.statusCode, api.statusCode, body.endpoint);
      const { code, message } = api.json() as { code: number; message: string };
      assert.ok(res.body.includes(problemHtml('create-problem', code, message)), `${code} ${message}\n${res.body}`);
      assert.ok(res.body.includes(`value="${escapeHtml(body.endpoint)}"`));
    }
    assert.equal((await h.send('GET', '/rest/v2/profiles/', { key })).json().length, 1);
  });

  it('shows every settings field and saves them; the API reads what the form saved', async () => {
    const path = `/scans/${profile}/settings`;
    const page = await admin.get(path);
    assert.equal(page.statusCode, 200);
    for (const field of [...Object.keys(defaultForm), 'crawl_subdomains', 'scan_common_ports', 'render_javascript'])
      assert.ok(page.body.includes(`id="${field}" name="${field}"`), field);
    const form = {
      ...defaultForm,
      start_urls: '/p/1\n/p/2?x=1',
      blacklisted_paths: '/logout',
      whitelisted_ports: '80, 8080',
      requests_per_second: '20',
      custom_headers: 'X-Scanner: perimeter',
      custom_cookies: 'lang=en; Secure',
      basic_auth_username: 'scan',
      basic_auth_password: 'pw',
      login_url: '/login',
      login_fields: 'user=scanner\npassword=s3cret',
      login_logged_in_selector: 'a#logout',
      report_lifespan_days: '30',
      render_javascript: 'true',
    };
    const saved = await admin.post(path, form);
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `${path}?notice=settings-saved`);
    const api = (await h.send('GET', `/rest/v2/profiles/${profile}/settings/`, { key })).json();
    assert.deepEqual(api.start_urls, ['/p/1', '/p/2?x=1']);
    assert.deepEqual(api.blacklisted_paths, ['/logout']);
    assert.deepEqual(api.whitelisted_ports, [80, 8080]);
    assert.equal(api.requests_per_second, 20);
    assert.deepEqual(api.custom_headers, [{ name: 'X-Scanner', value: 'perimeter' }]);
    assert.deepEqual(api.custom_cookies, [{ name: 'lang', value: 'en', secure: true, httponly: false }]);
    assert.deepEqual(api.basic_auth, { username: 'scan', password: 'pw' });
    assert.equal(api.report_lifespan_days, 30);
    assert.equal(api.render_javascript, true);
    assert.equal(api.crawl_subdomains, false);
    assert.deepEqual(api.login, {
      url: '/login',
      fields: [
        { name: 'user', value: 'scanner' },
        { name: 'password', value: 's3cret' },
      ],
      logged_in_text: null,
      logged_in_selector: 'a#logout',
      logged_out_text: null,
      logged_out_selector: null,
    });
    const shown = await admin.get(String(saved.headers.location));
    assert.match(shown.body, /Settings saved\./);
    assert.ok(shown.body.includes('/p/1\n/p/2?x=1</textarea>'));
    // Cookie values show hidden (console-scans-secrets.test.ts).
    assert.ok(shown.body.includes('lang=••••••••; Secure</textarea>'));
    assert.ok(shown.body.includes('value="80, 8080"'));
    // Saving the form as shown changes nothing.
    const again = await admin.post(path, { ...form });
    assert.equal(again.statusCode, 303);
    assert.deepEqual((await h.send('GET', `/rest/v2/profiles/${profile}/settings/`, { key })).json(), api);
  });

  it("refuses each settings value the API refuses, with the API's exact message, keeping the values typed", async () => {
    const path = `/scans/${profile}/settings`;
    const before = (await h.send('GET', `/rest/v2/profiles/${profile}/settings/`, { key })).json();
    const cases: Array<[Record<string, string>, Record<string, unknown>]> = [
      [{ requests_per_second: '3' }, { requests_per_second: 3 }],
      [{ requests_per_second: 'ten' }, { requests_per_second: 'ten' }],
      [{ report_lifespan_days: '5' }, { report_lifespan_days: 5 }],
      [{ whitelisted_ports: '80, 70000' }, { whitelisted_ports: [80, 70000] }],
      [{ blacklisted_paths: 'logout' }, { blacklisted_paths: ['logout'] }],
      [{ blacklisted_subdomains: 'bad_name!' }, { blacklisted_subdomains: ['bad_name!'] }],
      [{ custom_cookies: 'lang' }, { custom_cookies: [{ name: 'lang', value: '', secure: false, httponly: false }] }],
      [{ session_cookie: 'a b=c' }, { session_cookie: { name: 'a b', value: 'c', secure: false, httponly: false } }],
      [{ custom_headers: ': x' }, { custom_headers: [{ name: '', value: 'x' }] }],
      [{ basic_auth_username: 'a:b', basic_auth_password: 'p' }, { basic_auth: { username: 'a:b', password: 'p' } }],
      [{ start_urls: 'javascript:alert(1)' }, { start_urls: ['javascript:alert(1)'] }],
      [{ login_url: '/login', login_fields: '' }, { login: { url: '/login', fields: [] } }],
      [
        { login_url: '/login', login_fields: 'user=a', login_logged_in_selector: 'a[' },
        { login: { url: '/login', fields: [{ name: 'user', value: 'a' }], logged_in_selector: 'a[' } },
      ],
      [{ scan_region: 'us-east-1' }, { scan_region: 'us-east-1' }],
      [{ scan_region: 'mars-1' }, { scan_region: 'mars-1' }],
    ];
    for (const [fields, body] of cases) {
      const api = await h.send('PUT', `/rest/v2/profiles/${profile}/settings/`, { key, body });
      assert.ok(api.statusCode >= 400, `${JSON.stringify(body)}: ${api.body}`);
      await admin.get(path);
      const res = await admin.post(path, { ...defaultForm, ...fields });
      assert.equal(res.statusCode, api.statusCode, JSON.stringify(fields));
      const { code, message } = api.json() as { code: number; message: string };
      assert.ok(res.body.includes(problemHtml('settings-problem', code, message)), `${code} ${message}`);
      assert.match(res.body, /aria-invalid="true"/, JSON.stringify(fields));
      const [name, value] = Object.entries(fields).find(([, v]) => v !== '')!;
      assert.ok(res.body.includes(escapeHtml(value)), `${name} keeps what was typed`);
    }
    assert.deepEqual((await h.send('GET', `/rest/v2/profiles/${profile}/settings/`, { key })).json(), before);
  });

  it("sets and removes a schedule, refusing a bad start and frequency with the API's messages", async () => {
    const path = `/scans/${profile}`;
    await editor.get(path);
    const set = await editor.post(`${path}/schedule`, { frequency: 'weekly', start: '2031-03-01 08:00' });
    assert.equal(set.statusCode, 303, set.body);
    assert.equal(set.headers.location, `${path}?notice=schedule-saved`);
    const api = (await h.send('GET', `/rest/v2/scanschedules/${profile}/`, { key })).json();
    assert.deepEqual(api, {
      scan_profile_token: profile,
      frequency: 'weekly',
      first_scan: '2031-03-01T08:00:00Z',
      next_scan: '2031-03-01T08:00:00Z',
    });
    const shown = await editor.get(String(set.headers.location));
    assert.match(shown.body, /Schedule saved\./);
    assert.match(shown.body, /<dt>Frequency<\/dt><dd>Weekly<\/dd>/);

    for (const body of [
      { frequency: 'weekly', start: 'tomorrow' },
      { frequency: 'hourly', start: '' },
    ]) {
      const apiBody = body.start === '' ? { frequency: body.frequency } : body;
      const refused = await h.send('POST', `/rest/v2/scanschedules/${profile}/`, { key, body: apiBody });
      assert.equal(refused.statusCode, 400);
      await editor.get(path);
      const res = await editor.post(`${path}/schedule`, body);
      assert.equal(res.statusCode, 400);
      const { code, message } = refused.json() as { code: number; message: string };
      assert.ok(res.body.includes(problemHtml('schedule-problem', code, message)), `${code} ${message}`);
    }
    const removed = await editor.post(`${path}/schedule/remove`);
    assert.equal(removed.statusCode, 303);
    assert.equal((await h.send('GET', `/rest/v2/scanschedules/${profile}/`, { key })).json().frequency, 'never');
  });

  it('starts and stops a scan as the API does, with its refusals, and serves status.json', async () => {
    const path = `/scans/${profile}`;
    const none = await editor.get(`${path}/status.json`);
    assert.equal(none.statusCode, 200);
    assert.match(String(none.headers['content-type']), /^application\/json/);
    assert.deepEqual(none.json(), { status: 'none', live: false });

    await editor.get(path);
    const started = await editor.post(`${path}/start`);
    assert.equal(started.statusCode, 303);
    assert.equal(started.headers.location, `${path}?notice=scan-started`);
    assert.equal((await h.send('GET', `/rest/v2/scans/${profile}/`, { key })).json().status, 'starting');
    const live = await editor.get(String(started.headers.location));
    assert.match(live.body, /data-live="true"/);
    assert.match(live.body, /<progress id="scan-progress" max="100" value="0"/);
    assert.match(live.body, /Waiting for a worker\./);
    assert.match(live.body, /<script type="module" src="\/console\/static\/scans\.[0-9a-f]{12}\.js"><\/script>/);
    const status = (await editor.get(`${path}/status.json`)).json();
    assert.equal(status.status, 'starting');
    assert.equal(status.live, true);
    assert.equal(status.percentage, 0);
    assert.equal(status.seconds_left, null);
    assert.deepEqual(status.progress, { pages_crawled: 0, requests_sent: 0, checks_done: 0, findings: 0 });

    // A warning of the live scan (the scheduler's, say) shows on the page and in status.json, as text.
    const team = (await h.runtime.store.teams.findByName('acme'))!;
    const row = (await h.runtime.store.scanProfiles.findByToken(team.id, profile))!;
    const liveScan = (await h.runtime.store.scans.findLive(team.id, row.id))!;
    await h.runtime.store.scans.addWarning(liveScan.id, 'A <b>scheduled</b> scan was skipped');
    assert.deepEqual((await editor.get(`${path}/status.json`)).json().warnings, [
      'A <b>scheduled</b> scan was skipped',
    ]);
    const warned = await editor.get(path);
    assert.ok(warned.body.includes('<li>A &lt;b&gt;scheduled&lt;/b&gt; scan was skipped</li>'));

    const api = await h.send('POST', `/rest/v2/scans/${profile}/`, { key });
    const again = await editor.post(`${path}/start`);
    assert.equal(again.statusCode, api.statusCode);
    assert.ok(again.body.includes(problemHtml('scan-problem', api.json().code, api.json().message)));

    const stopped = await editor.post(`${path}/stop`);
    assert.equal(stopped.statusCode, 303);
    assert.equal(stopped.headers.location, `${path}?notice=scan-stopped`);
    assert.equal((await h.send('GET', `/rest/v2/scans/${profile}/`, { key })).json().status, 'stopped');
    const apiStop = await h.send('DELETE', `/rest/v2/scans/${profile}/`, { key });
    const stopAgain = await editor.post(`${path}/stop`);
    assert.equal(stopAgain.statusCode, apiStop.statusCode);
    assert.ok(stopAgain.body.includes(problemHtml('scan-problem', apiStop.json().code, apiStop.json().message)));
    const ended = (await editor.get(`${path}/status.json`)).json();
    assert.equal(ended.live, false);
    assert.match(ended.report_url, /^\/scans\/[0-9a-f]{32}\/reports\/[0-9a-f]{32}$/);
  });

  it('lists the ended scan in the history, linking to its report', async () => {
    const page = await viewer.get(`/scans/${profile}`);
    assert.match(page.body, /<h2 id="history">History<\/h2>/);
    const report = /href="(\/scans\/[0-9a-f]{32}\/reports\/[0-9a-f]{32})"/.exec(page.body)![1]!;
    const res = await viewer.get(report);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<h1>Scan of shop<\/h1>/);
    assert.match(res.body, /This scan reported no findings\./);
    assert.equal((await viewer.get(`${report.slice(0, -32)}${'0'.repeat(32)}`)).statusCode, 404);
  });

  it("answers another team's profile, an unknown token and a malformed one with the same not-found page", async () => {
    for (const token of [rivalProfile, 'a'.repeat(32), 'nope']) {
      for (const suffix of ['', '/settings', '/status.json', `/reports/${'b'.repeat(32)}`]) {
        const res = await admin.get(`/scans/${token}${suffix}`);
        assert.equal(res.statusCode, 404, `${token}${suffix}`);
        assert.match(res.body, /<h1>Not found<\/h1>/);
      }
      await admin.get('/scans');
      for (const action of ['/start', '/stop', '/schedule', '/schedule/remove', '/settings', '/delete']) {
        const res = await admin.post(`/scans/${token}${action}`, { frequency: 'daily' });
        assert.equal(res.statusCode, 404, `${token}${action}`);
      }
    }
    assert.equal((await h.send('GET', `/rest/v2/scans/${rivalProfile}/`, { key: rivalKey })).statusCode, 404);
    assert.equal((await h.send('GET', '/rest/v2/profiles/', { key: rivalKey })).json().length, 1);
  });

  it('lets a Viewer read but not create, start, schedule, change or delete (403, no buttons)', async () => {
    const list = await viewer.get('/scans');
    assert.equal(list.statusCode, 200);
    assert.doesNotMatch(list.body, /action="\/scans"/);
    const page = await viewer.get(`/scans/${profile}`);
    assert.doesNotMatch(page.body, /Start a scan|Stop the scan|Delete the profile|Save the schedule/);
    const settings = await viewer.get(`/scans/${profile}/settings`);
    assert.match(settings.body, /<fieldset class="plain" disabled>/);
    for (const [url, fields] of [
      ['/scans', { asset_token: assetToken, endpoint: `127.0.0.1:${other.port}` }],
      [`/scans/${profile}/start`, {}],
      [`/scans/${profile}/stop`, {}],
      [`/scans/${profile}/schedule`, { frequency: 'daily' }],
      [`/scans/${profile}/settings`, defaultForm],
      [`/scans/${profile}/delete`, {}],
    ] as const) {
      const res = await viewer.post(url, fields);
      assert.equal(res.statusCode, 403, url);
      assert.match(res.body, /Your role \(Viewer\) does not allow this/);
    }
    assert.equal((await h.send('GET', `/rest/v2/scans/${profile}/`, { key })).json().status, 'stopped');
  });

  it('lets an Editor scan but not change settings or delete (403); an Admin deletes', async () => {
    const page = await editor.get(`/scans/${profile}`);
    assert.match(page.body, /Start a scan/);
    assert.doesNotMatch(page.body, /Delete the profile/);
    assert.equal((await editor.post(`/scans/${profile}/settings`, defaultForm)).statusCode, 403);
    assert.equal((await editor.post(`/scans/${profile}/delete`)).statusCode, 403);
    const shown = await admin.get(`/scans/${profile}`);
    assert.match(shown.body, /data-confirm="Delete the scan profile shop and its reports\? Its findings stay\."/);
    const deleted = await admin.post(`/scans/${profile}/delete`);
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, '/scans?notice=profile-deleted');
    assert.deepEqual((await h.send('GET', '/rest/v2/profiles/', { key })).json(), []);
    assert.equal((await admin.get(`/scans/${profile}`)).statusCode, 404);
  });

  it('refuses a form without its CSRF token (403)', async () => {
    await admin.get('/scans');
    const res = await admin.post('/scans', { _csrf: 'forged', asset_token: assetToken, endpoint: '127.0.0.1' });
    assert.equal(res.statusCode, 403);
    assert.deepEqual((await h.send('GET', '/rest/v2/profiles/', { key })).json(), []);
  });
});
