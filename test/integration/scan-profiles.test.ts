import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, testStore, v2Error, type Harness } from '../support/harness.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';

describe(`v2 scan profiles (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let other: string;
  let site: TestHttpServer;
  const tokens: Record<string, string> = {};

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 1500 });
    key = (await h.team('scanners', { plan: 'starter' })).key;
    other = (await h.team('others')).key;
    site = await startHttpServer({
      '/': 'hello',
      '/away': { status: 302, headers: { location: 'http://elsewhere.example/' } },
    });
    for (const name of ['127.0.0.1', 'unverified.example', 'shop.example']) {
      tokens[name] = (await h.send('POST', '/rest/v2/assets/', { key, body: { name } })).json().token;
    }
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'scanners');
    await h.admin('asset', 'verify', 'shop.example', '--team', 'scanners');
  });
  after(async () => {
    await site.stop();
    await h.close();
  });

  const create = (body: unknown, k = key) => h.send('POST', '/rest/v2/profiles/', { key: k, body });

  it('creates a profile after a real GET to the endpoint, remembering the origin that answered', async () => {
    const before = site.requests.length;
    const res = await create({
      asset_token: tokens['127.0.0.1'],
      endpoint: `127.0.0.1:${site.port}`,
      name: 'Local site',
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.match(body.token, /^[0-9a-f]{32}$/);
    assert.deepEqual(
      { ...body, token: undefined, created: undefined },
      { token: undefined, created: undefined, name: 'Local site', endpoint: `127.0.0.1:${site.port}` },
    );
    assert.ok(
      site.requests.slice(before).some((r) => r.startsWith('GET / ')),
      'the endpoint was requested',
    );
    tokens['profile'] = body.token;
    const profile = await h.runtime.store.scanProfiles.findByToken(
      (await h.runtime.store.teams.findByName('scanners'))!.id,
      body.token,
    );
    assert.equal(profile?.scheme, 'http');
    assert.equal(profile?.port, site.port);
  });

  it('lists all profiles and the profiles of one asset; the name defaults to the endpoint', async () => {
    const list = (await h.send('GET', '/rest/v2/profiles/', { key })).json();
    assert.deepEqual(
      list.map((p: { token: string }) => p.token),
      [tokens['profile']],
    );
    assert.equal(list[0].latest_scan, undefined);
    const ofAsset = await h.send('GET', `/rest/v2/profiles/${tokens['127.0.0.1']}/`, { key });
    assert.equal(ofAsset.statusCode, 200);
    assert.equal(ofAsset.json().length, 1);
    assert.deepEqual((await h.send('GET', `/rest/v2/profiles/${tokens['shop.example']}/`, { key })).json(), []);
    assert.deepEqual((await h.send('GET', '/rest/v2/profiles/', { key: other })).json(), []);
  });

  it('accepts the older body with domain_token; unique:true answers the existing profile instead of 2605', async () => {
    const endpoint = `127.0.0.1:${site.port}`;
    const dup = await create({ domain_token: tokens['127.0.0.1'], endpoint });
    assert.equal(dup.statusCode, 409);
    assert.deepEqual(
      dup.json(),
      v2Error(2605, `Scan profile already exists: the team has a profile for ${endpoint} (${tokens['profile']})`, [
        'endpoint',
      ]),
    );
    const same = await create({ domain_token: tokens['127.0.0.1'], endpoint, unique: true, valid: true });
    assert.equal(same.statusCode, 200);
    assert.equal(same.json().token, tokens['profile']);
  });

  it('answers 2021 (423) for an unverified asset, 2606 for a malformed endpoint, 2607 outside the asset, 2602 for a long name', async () => {
    const unverified = await create({ asset_token: tokens['unverified.example'], endpoint: 'unverified.example' });
    assert.equal(unverified.statusCode, 423);
    assert.equal(unverified.json().code, 2021);
    for (const endpoint of [
      'ftp://127.0.0.1',
      '127.0.0.1/path',
      '127.0.0.1:0',
      '127.0.0.1:99999',
      'bad host',
      '',
      42,
    ]) {
      const res = await create({ asset_token: tokens['127.0.0.1'], endpoint });
      assert.equal(res.statusCode, 400, String(endpoint));
      assert.equal(res.json().code, 2606, String(endpoint));
      assert.deepEqual(res.json().parameters, ['endpoint']);
    }
    const outside = await create({ asset_token: tokens['shop.example'], endpoint: 'evilshop.example' });
    assert.deepEqual(
      outside.json(),
      v2Error(
        2607,
        'Endpoint does not match the associated asset name: evilshop.example is neither shop.example nor a subdomain of it',
        ['endpoint'],
      ),
    );
    const long = await create({
      asset_token: tokens['127.0.0.1'],
      endpoint: `127.0.0.1:${site.port}`,
      name: 'x'.repeat(256),
    });
    assert.deepEqual(long.json(), v2Error(2602, 'Scan profile name longer than 255 characters (256)', ['name']));
  });

  it('answers 2609 when nothing answers within the time-out, and creates nothing', async () => {
    const closed = await startHttpServer({});
    const port = closed.port;
    await closed.stop();
    const res = await create({ asset_token: tokens['127.0.0.1'], endpoint: `127.0.0.1:${port}` });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 2609);
    assert.match(res.json().message, /did not answer an HTTP\(S\) GET/);
    assert.equal((await h.send('GET', '/rest/v2/profiles/', { key })).json().length, 1);
  });

  it('answers 2011/2014 for bad or foreign asset tokens and 1050/1051 for bad bodies', async () => {
    assert.equal((await create({ asset_token: 'nope', endpoint: 'x.example' })).json().code, 2011);
    assert.equal((await create({ asset_token: tokens['127.0.0.1'], endpoint: '127.0.0.1' }, other)).json().code, 2014);
    assert.equal((await create({ endpoint: '127.0.0.1' })).json().code, 1050);
    assert.equal((await h.send('POST', '/rest/v2/profiles/', { key, body: '{' })).json().code, 1051);
    assert.equal(
      (await create({ asset_token: tokens['127.0.0.1'], endpoint: '127.0.0.1', unique: 'yes' })).json().code,
      1051,
    );
  });

  it('reads and partially updates every setting, each violation with its own code and field', async () => {
    const path = `/rest/v2/profiles/${tokens['profile']}/settings/`;
    const initial = (await h.send('GET', path, { key })).json();
    assert.deepEqual(initial, {
      blacklisted_paths: [],
      blacklisted_ports: [],
      blacklisted_subdomains: [],
      crawl_subdomains: false,
      custom_cookies: [],
      custom_headers: [],
      report_lifespan_days: 0,
      requests_per_second: 0,
      scan_common_ports: false,
      scan_region: 'inherit-from-team',
      whitelisted_paths: [],
      whitelisted_ports: [],
      start_urls: [],
      render_javascript: false,
    });
    const update = {
      basic_auth: { username: 'u', password: 'p' },
      blacklisted_paths: ['/logout', '/admin/%20x'],
      blacklisted_ports: [8081],
      blacklisted_subdomains: ['legacy', 'old.eu'],
      custom_cookies: [{ name: 'consent', value: 'yes', secure: true, httponly: false }],
      custom_headers: [{ name: 'X-Scanner', value: 'perimeter' }],
      report_lifespan_days: 30,
      requests_per_second: 5,
      session_cookie: { name: 'sid', value: 'abc', secure: false, httponly: true },
    };
    const res = await h.send('PUT', path, { key, body: update });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      ...initial,
      ...update,
      custom_cookies: [{ name: 'consent', value: 'yes', secure: true, httponly: false }],
    });
    // Partial: only one field changes; PATCH does the same; empty arrays remove all; null removes.
    const patched = await h.send('PATCH', path, {
      key,
      body: { requests_per_second: 0, blacklisted_paths: [], basic_auth: null },
    });
    assert.equal(patched.statusCode, 200);
    assert.equal(patched.json().requests_per_second, 0);
    assert.deepEqual(patched.json().blacklisted_paths, []);
    assert.equal(patched.json().basic_auth, undefined);
    assert.deepEqual(patched.json().blacklisted_ports, [8081]);
    assert.deepEqual((await h.send('GET', path, { key })).json(), patched.json());

    const cases: Array<[unknown, number, string]> = [
      [{ blacklisted_subdomains: ['bad_label!'] }, 2641, 'blacklisted_subdomains'],
      [{ whitelisted_paths: ['relative/path'] }, 2642, 'whitelisted_paths'],
      [{ blacklisted_paths: ['/a b'] }, 2642, 'blacklisted_paths'],
      [{ whitelisted_ports: [0] }, 2643, 'whitelisted_ports'],
      [{ blacklisted_ports: [65536] }, 2643, 'blacklisted_ports'],
      [{ custom_cookies: [{ name: '', value: 'x' }] }, 2651, 'custom_cookies'],
      [{ custom_cookies: [{ name: 'a;b', value: 'x' }] }, 2652, 'custom_cookies'],
      [{ session_cookie: { name: 'sid', value: '' } }, 2653, 'session_cookie'],
      [{ session_cookie: { name: 'sid', value: 'a b' } }, 2654, 'session_cookie'],
      [{ custom_headers: [{ name: '', value: 'x' }] }, 2657, 'custom_headers'],
      [{ custom_headers: [{ name: 'X-A', value: '' }] }, 2658, 'custom_headers'],
      [{ report_lifespan_days: 6 }, 2671, 'report_lifespan_days'],
      [{ report_lifespan_days: 10001 }, 2671, 'report_lifespan_days'],
      [{ requests_per_second: 4 }, 2672, 'requests_per_second'],
      [{ requests_per_second: 1001 }, 2672, 'requests_per_second'],
      [{ scan_region: 'mars-1' }, 2673, 'scan_region'],
      [{ crawl_subdomains: 'yes' }, 1051, 'crawl_subdomains'],
      [{ not_a_setting: 1 }, 1051, 'not_a_setting'],
    ];
    for (const [body, code, field] of cases) {
      const bad = await h.send('PUT', path, { key, body });
      assert.equal(bad.json().code, code, JSON.stringify(body));
      assert.deepEqual(bad.json().parameters, [field], JSON.stringify(body));
    }
    assert.equal(
      (await h.send('PUT', path, { key, body: { report_lifespan_days: 7, requests_per_second: 1000 } })).statusCode,
      200,
    );
    // Changing the region is a team permission (enterprise); this team is on starter.
    const region = await h.send('PUT', path, { key, body: { scan_region: 'eu-west-1' } });
    assert.equal(region.statusCode, 403);
    assert.equal(region.json().code, 1009);
    assert.equal((await h.send('PUT', path, { key, body: { scan_region: 'inherit-from-team' } })).statusCode, 200);
  });

  it('reads and updates the extensions start_urls, render_javascript and login, naming the bad part', async () => {
    const path = `/rest/v2/profiles/${tokens['profile']}/settings/`;
    const login = {
      url: '/login.php',
      fields: [
        { name: 'username', value: 'admin' },
        { name: 'password', value: 'p a s s;word' },
      ],
      logged_in_text: 'Logout',
      logged_in_selector: 'a[href$="logout.php"]',
      logged_out_text: null,
      logged_out_selector: null,
    };
    const update = {
      start_urls: ['/app/menu?tab=1', 'https://127.0.0.1:8443/deep/page', '/app/menu?tab=1'],
      render_javascript: true,
      login: {
        url: login.url,
        fields: login.fields,
        logged_in_text: 'Logout',
        logged_in_selector: login.logged_in_selector,
      },
    };
    const res = await h.send('PUT', path, { key, body: update });
    assert.equal(res.statusCode, 200, res.body);
    const answer = res.json();
    assert.deepEqual(answer.start_urls, ['/app/menu?tab=1', 'https://127.0.0.1:8443/deep/page']);
    assert.equal(answer.render_javascript, true);
    // The login's values are the team's own secrets, shown as given like basic_auth's password.
    assert.deepEqual(answer.login, login);
    assert.deepEqual((await h.send('GET', path, { key })).json(), answer);
    // An update without them keeps them; null removes the login; empty indicators read as null.
    const kept = (await h.send('PATCH', path, { key, body: { crawl_subdomains: false } })).json();
    assert.deepEqual(kept.login, login);
    const emptyText = await h.send('PATCH', path, {
      key,
      body: { login: { ...login, logged_in_text: '', logged_in_selector: null } },
    });
    assert.equal(emptyText.json().login.logged_in_text, null);
    const removed = (await h.send('PATCH', path, { key, body: { login: null, start_urls: [] } })).json();
    assert.equal(removed.login, undefined);
    assert.deepEqual(removed.start_urls, []);

    const fields = login.fields;
    const cases: Array<[unknown, string]> = [
      [{ start_urls: ['relative/path'] }, 'start_urls'],
      [{ start_urls: ['/a#fragment'] }, 'start_urls'],
      [{ start_urls: ['ftp://127.0.0.1/'] }, 'start_urls'],
      [{ start_urls: [`/${'a'.repeat(2048)}`] }, 'start_urls'],
      [{ start_urls: Array.from({ length: 51 }, (_, i) => `/p${i}`) }, 'start_urls'],
      [{ start_urls: '/one' }, 'start_urls'],
      [{ render_javascript: 'yes' }, 'render_javascript'],
      [{ login: 'admin:admin' }, 'login'],
      [{ login: { fields } }, 'login.url'],
      [{ login: { url: 'login.php', fields } }, 'login.url'],
      [{ login: { url: '/login', fields: [] } }, 'login.fields'],
      [{ login: { url: '/login', fields: Array.from({ length: 21 }, () => fields[0]) } }, 'login.fields'],
      [{ login: { url: '/login', fields: [{ name: '', value: 'x' }] } }, 'login.fields[0].name'],
      [{ login: { url: '/login', fields: [fields[0], { name: 'password', value: 7 }] } }, 'login.fields[1].value'],
      [{ login: { url: '/login', fields: [{ name: 'u', value: 'x', type: 'text' }] } }, 'login.fields[0]'],
      [{ login: { url: '/login', fields, logged_in_text: 'x'.repeat(1025) } }, 'login.logged_in_text'],
      [{ login: { url: '/login', fields, logged_out_text: 3 } }, 'login.logged_out_text'],
      [{ login: { url: '/login', fields, remember: true } }, 'login'],
      // Selectors the scanner cannot match are refused (pseudo-classes, sibling combinators).
      [{ login: { url: '/login', fields, logged_in_selector: 'a:hover' } }, 'login.logged_in_selector'],
      [{ login: { url: '/login', fields, logged_out_selector: 'form ~ p' } }, 'login.logged_out_selector'],
    ];
    for (const [body, field] of cases) {
      const bad = await h.send('PUT', path, { key, body });
      assert.equal(bad.statusCode, 400, JSON.stringify(body));
      assert.equal(bad.json().code, 1051, JSON.stringify(body));
      assert.deepEqual(bad.json().parameters, [field], JSON.stringify(body));
    }
  });

  it('refuses a settings body over 30 KB with 1052', async () => {
    const body = {
      custom_headers: Array.from({ length: 400 }, (_, i) => ({ name: `X-H${i}`, value: 'v'.repeat(80) })),
    };
    const res = await h.send('PUT', `/rest/v2/profiles/${tokens['profile']}/settings/`, { key, body });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().code, 1052);
  });

  it('keeps profiles to their team: a foreign token is 2604 everywhere, a malformed one 2601', async () => {
    for (const [method, path] of [
      ['GET', 'profiles/T/settings/'],
      ['PUT', 'profiles/T/settings/'],
      ['DELETE', 'profiles/T/'],
      ['GET', 'scans/T/'],
      ['POST', 'scans/T/'],
      ['DELETE', 'scans/T/'],
      ['GET', 'scanschedules/T/'],
    ] as const) {
      const foreign = await h.send(method, `/rest/v2/${path.replace('T', tokens['profile']!)}`, {
        key: other,
        ...(method === 'PUT' ? { body: {} } : {}),
      });
      assert.equal(foreign.statusCode, 404, `${method} ${path}`);
      assert.deepEqual(foreign.json(), v2Error(2604, 'Scan profile does not exist', ['scanProfileToken']));
      const malformed = await h.send(method, `/rest/v2/${path.replace('T', 'zz')}`, {
        key,
        ...(method === 'PUT' ? { body: {} } : {}),
      });
      assert.equal(malformed.json().code, 2601, `${method} ${path}`);
    }
  });

  it('answers 2618 at the plan limit (starter: 3)', async () => {
    const a = await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.2' } });
    await h.admin('asset', 'verify', '127.0.0.2', '--team', 'scanners');
    const extra = await startHttpServer({ '/': 'ok' });
    try {
      // The site listens on 127.0.0.1 only; 127.0.0.2 answers through the scheme fallbacks only when bound, so use the first asset.
      assert.equal(
        (await create({ asset_token: tokens['127.0.0.1'], endpoint: `http://127.0.0.1:${extra.port}` })).statusCode,
        200,
      );
      assert.equal(
        (await create({ asset_token: tokens['127.0.0.1'], endpoint: `127.0.0.1:${extra.port}` })).statusCode,
        200,
      );
      const over = await create({ asset_token: tokens['127.0.0.1'], endpoint: `https://127.0.0.1:${extra.port}` });
      assert.equal(over.statusCode, 403);
      assert.deepEqual(
        over.json(),
        v2Error(2618, 'Scan profile limit of the subscription reached: the starter plan allows 3 profiles'),
      );
    } finally {
      await extra.stop();
    }
    assert.equal(a.statusCode, 200);
  });

  it('refuses to delete an asset with profiles (2026), deletes a profile, then the asset', async () => {
    const blocked = await h.send('DELETE', `/rest/v2/assets/${tokens['127.0.0.1']}/`, { key });
    assert.equal(blocked.statusCode, 409);
    assert.deepEqual(
      blocked.json(),
      v2Error(2026, 'Asset still has Application scan profiles: delete its 3 scan profiles first', ['token']),
    );
    for (const profile of (await h.send('GET', '/rest/v2/profiles/', { key })).json()) {
      const res = await h.send('DELETE', `/rest/v2/profiles/${profile.token}/`, {
        key,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {});
    }
    assert.equal((await h.send('DELETE', `/rest/v2/profiles/${tokens['profile']}/`, { key })).json().code, 2604);
    assert.equal((await h.send('DELETE', `/rest/v2/assets/${tokens['127.0.0.1']}/`, { key })).statusCode, 200);
  });

  it('needs the profiles permission', async () => {
    const limited = (await h.key('scanners', '--permission', 'assets')).key;
    const res = await h.send('GET', '/rest/v2/profiles/', { key: limited });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 1009);
    assert.equal((await h.send('GET', '/rest/v2/profiles/')).json().code, 1001);
  });
});
