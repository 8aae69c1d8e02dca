import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultAssetSettings } from '../../src/core/assets/asset-settings.ts';
import { createHarness, testStore, v2Error, type Harness } from '../support/harness.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';

const NUL = '\u0000';

// PostgreSQL text cannot hold NUL and SQLite stores it: every field refuses it alike, with its
// own code and its own name, and nothing is stored. The suite runs on both stores.
describe(`NUL (U+0000) is refused by every field, alike on both stores (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let site: TestHttpServer;
  let assetToken = '';
  let groupToken = '';
  let profileToken = '';

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 1500 });
    key = (await h.team('nul')).key;
    site = await startHttpServer({ '/': 'hello' });
    assetToken = (await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } })).json().token;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'nul');
    groupToken = (
      await h.send('POST', '/rest/v2/groups/', { key, body: { name: 'reviewers', description: 'before' } })
    ).json().token;
    const profile = await h.send('POST', '/rest/v2/profiles/', {
      key,
      body: { asset_token: assetToken, endpoint: `127.0.0.1:${site.port}` },
    });
    assert.equal(profile.statusCode, 200, profile.body);
    profileToken = profile.json().token;
    await h.admin('seed', '--team', 'nul', '--vulnerabilities', '2');
  });
  after(async () => {
    await site.stop();
    await h.close();
  });

  const refuses = async (
    method: string,
    url: string,
    body: unknown,
    expected: Record<string, unknown>,
    status = 400,
  ) => {
    const res = await h.send(method, url, { key, body });
    assert.equal(res.statusCode, status, res.body);
    assert.deepEqual(res.json(), expected);
  };

  it('refuses it in a group description (9002, description), on create and update, storing nothing', async () => {
    const expected = v2Error(9002, 'Group description invalid: the description may not hold a NUL character (U+0000)', [
      'description',
    ]);
    await refuses('POST', '/rest/v2/groups/', { name: 'new group', description: `a${NUL}b` }, expected);
    await refuses('PUT', `/rest/v2/groups/${groupToken}/`, { description: `a${NUL}b` }, expected);
    const groups = (await h.send('GET', '/rest/v2/groups/', { key })).json() as Array<{
      name: string;
      description: string;
    }>;
    assert.deepEqual(
      groups.map((g) => [g.name, g.description]),
      [['reviewers', 'before']],
    );
  });

  it('refuses it in a group name (9002, name)', async () => {
    await refuses(
      'POST',
      '/rest/v2/groups/',
      { name: `a${NUL}b` },
      v2Error(9002, 'Group name invalid: the name may contain only letters, digits, underscore, dash and space', [
        'name',
      ]),
    );
  });

  it('refuses it in an asset name (2012), on v2 assets and the legacy domains', async () => {
    const message = `Domain name malformed: "a${NUL}.example.com" holds a control character (such as NUL) (expected a second-level domain, a subdomain or an IP address, with an optional port)`;
    await refuses('POST', '/rest/v2/assets/', { name: `a${NUL}.example.com` }, v2Error(2012, message, ['name']));
    await refuses('POST', '/rest/v2/domains/', { name: `a${NUL}.example.com` }, v2Error(2012, message, ['name']));
  });

  it('refuses it in an asset pattern (9012, pattern)', async () => {
    await refuses(
      'POST',
      `/rest/v2/groups/${groupToken}/assetpatterns/`,
      { pattern: `*.ex${NUL}ample.com` },
      v2Error(9012, 'Asset pattern invalid: a pattern may not hold a control character (such as NUL)', ['pattern']),
    );
  });

  it('refuses it in a scan profile name (2602, name)', async () => {
    await refuses(
      'POST',
      '/rest/v2/profiles/',
      { asset_token: assetToken, endpoint: `127.0.0.1:${site.port}`, name: `n${NUL}` },
      v2Error(2602, 'Scan profile name may not hold control characters', ['name']),
    );
  });

  it('refuses it in the free-text vulnerability filters (4150, the filter named)', async () => {
    for (const name of ['title', 'host']) {
      const res = await h.send('GET', `/rest/v2/vulnerabilities/?${name}[]=a%00b`, { key });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), v2Error(4150, `${name}[] may not hold a NUL character (U+0000)`, [`${name}[]`]));
    }
  });

  it('refuses it in the enumerated and token filters with their own codes', async () => {
    const cases: Array<[string, number]> = [
      ['severity[]', 4085],
      ['scan_source[]', 4110],
      ['status[]', 4115],
      ['tag[]', 4150],
      ['created_after', 1085],
    ];
    for (const [name, code] of cases) {
      const res = await h.send('GET', `/rest/v2/vulnerabilities/?${name}=a%00b`, { key });
      assert.equal(res.json().code, code, name);
      assert.deepEqual(res.json().parameters, [name]);
    }
  });

  it('refuses it in an asset settings header value (2422, custom_headers), keeping the settings', async () => {
    const body = { ...defaultAssetSettings, custom_headers: { 'x-team': `a${NUL}b` } };
    await refuses(
      'PUT',
      `/rest/v2/domains/${assetToken}/settings/`,
      body,
      v2Error(
        2422,
        'Asset settings malformed: custom_headers value of "x-team" may not hold a NUL character (U+0000)',
        ['custom_headers'],
      ),
    );
    assert.deepEqual(
      (await h.send('GET', `/rest/v2/domains/${assetToken}/settings/`, { key })).json().custom_headers,
      {},
    );
  });

  it('refuses it in scan profile header values and cookies with their codes', async () => {
    const url = `/rest/v2/profiles/${profileToken}/settings/`;
    await refuses(
      'PUT',
      url,
      { custom_headers: [{ name: 'X-Team', value: `a${NUL}b` }] },
      v2Error(
        1051,
        'custom_headers: the value of header X-Team must be a single line without leading or trailing white space',
        ['custom_headers'],
      ),
    );
    await refuses(
      'PUT',
      url,
      { custom_cookies: [{ name: 'session', value: `a${NUL}b` }] },
      v2Error(2654, 'Cookie value malformed in custom_cookies (cookie session): no comma, semicolon or white space', [
        'custom_cookies',
      ]),
    );
    await refuses(
      'PUT',
      url,
      { blacklisted_paths: [`/a${NUL}`] },
      v2Error(
        2642,
        `Path in settings malformed: blacklisted_paths holds "/a\\u0000"; a path is root-relative (starts with /) with RFC 3986 path characters only, no query or fragment`,
        ['blacklisted_paths'],
      ),
    );
    assert.deepEqual((await h.send('GET', url, { key })).json().custom_headers, []);
  });

  it('refuses it in an API key header (1002)', async () => {
    const res = await h.send('GET', '/rest/v2/assets/', { headers: { 'x-service-key': `${key}${NUL}` } });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 1002);
  });

  it('refuses a zone lookup file with a NUL line (1051 naming the line), creating no job', async () => {
    const list = `www.example.com\n\nx${NUL}.example.com\nmail.example.com\n`;
    await refuses(
      'POST',
      '/rest/v2/zone/lookup/file/',
      list,
      v2Error(
        1051,
        'Request body malformed: line 3 holds a NUL character (U+0000); the list is text, one domain name per line',
      ),
    );
    assert.deepEqual(await h.runtime.database.db.selectFrom('zone_lookup_jobs').select('uuid').execute(), []);
  });

  it('refuses it in zone origins, servers and names with their own codes', async () => {
    await refuses(
      'POST',
      '/rest/v2/zone/file/?origin=exa%00mple.com',
      '$TTL 300\n@ IN A 192.0.2.1\n',
      v2Error(2411, `Zone origin malformed: "exa${NUL}mple.com" is not a domain name`, ['origin']),
    );
    await refuses(
      'POST',
      '/rest/v2/zone/transfer/',
      { nameServer: `a${NUL}`, zone: 'example.com' },
      v2Error(2412, `Zone server malformed: "a${NUL}" is not a host name or IP address with an optional :port`, [
        'nameServer',
      ]),
    );
    await refuses(
      'POST',
      '/rest/v2/zone/transfer/',
      { nameServer: '127.0.0.1', zone: `ex${NUL}ample.com` },
      v2Error(2413, `Zone name malformed: "ex${NUL}ample.com" is not a domain name`, ['zone']),
    );
  });
});
