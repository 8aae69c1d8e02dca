import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultSettingsBody } from '../support/asset-settings-bodies.ts';
import { createHarness, v2Error, type Harness } from '../support/harness.ts';

const defaults = defaultSettingsBody;

describe('v2 asset settings', () => {
  let h: Harness;
  let key: string;
  const tokens: Record<string, string> = {};

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('small', { plan: 'starter' })).key;
    for (const name of [
      'one.example',
      'two.example',
      'three.example',
      'four.example',
      'unverified.example',
      '192.0.2.1',
    ]) {
      tokens[name] = (await h.send('POST', '/rest/v2/assets/', { key, body: { name } })).json().token;
      if (name !== 'unverified.example') await h.admin('asset', 'verify', name);
    }
  });
  after(async () => h.close());

  const put = (name: string, body: unknown, path = 'domains') =>
    h.send('PUT', `/rest/v2/${path}/${tokens[name]}/settings/`, { key, body });

  it('reads the defaults of every field, on both paths', async () => {
    for (const path of ['domains', 'assets']) {
      const res = await h.send('GET', `/rest/v2/${path}/${tokens['one.example']}/settings/`, { key });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), defaults);
    }
  });

  it('replaces the settings and reads them back; port lists accept the comma-separated form', async () => {
    const body = {
      ...defaults,
      custom_headers: { 'X-Scanner': 'perimeter' },
      port_scanning_avoid_list: '22, 3389',
      port_scanning_force_list: [8443, 8080],
      requests_per_second: 50,
    };
    const res = await put('one.example', body, 'assets');
    assert.equal(res.statusCode, 200);
    const expected = { ...body, port_scanning_avoid_list: [22, 3389] };
    assert.deepEqual(res.json(), expected);
    assert.deepEqual(
      (await h.send('GET', `/rest/v2/domains/${tokens['one.example']}/settings/`, { key })).json(),
      expected,
    );
  });

  it('answers 2422 naming every missing field', async () => {
    const { monitoring: _m, scrape: _s, ...partial } = defaults;
    const res = await put('one.example', partial);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(
      res.json(),
      v2Error(2422, 'Asset settings malformed: all settings fields must be provided; missing: monitoring, scrape', [
        'monitoring',
        'scrape',
      ]),
    );
  });

  it('answers 2422 for mistyped fields, bad ports and bad header names', async () => {
    const res = await put('one.example', {
      ...defaults,
      monitoring: 'yes',
      port_scanning_force_list: [0, 80],
      custom_headers: { Authorization: 'x' },
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(
      res.json(),
      v2Error(
        2422,
        'Asset settings malformed: custom_headers name "Authorization" must start with x- or X- and be a valid header name; monitoring must be a boolean; port_scanning_force_list holds 0, not a port from 1 to 65535',
        ['custom_headers', 'monitoring', 'port_scanning_force_list'],
      ),
    );
    assert.equal((await put('one.example', [])).json().code, 2422);
  });

  it('answers 2426 for brute force without scraping', async () => {
    const res = await put('one.example', { ...defaults, brute_force: true, scrape: false });
    assert.deepEqual(
      res.json(),
      v2Error(2426, 'brute_force can be true only when scrape is true; disable brute_force before disabling scrape', [
        'brute_force',
        'scrape',
      ]),
    );
  });

  it('answers 2423 for monitoring an IP address and 2425 for an unverified domain', async () => {
    let res = await put('192.0.2.1', { ...defaults, monitoring: true });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), v2Error(2423, 'Surface monitoring is not available for IP addresses', ['monitoring']));
    res = await put('unverified.example', { ...defaults, monitoring: true });
    assert.deepEqual(
      res.json(),
      v2Error(2425, 'Surface monitoring needs a verified domain; unverified.example is not verified', ['monitoring']),
    );
  });

  it('answers 2424 (403) past the capacity of the plan, and frees a slot when monitoring stops', async () => {
    for (const name of ['one.example', 'two.example', 'three.example']) {
      const res = await put(name, { ...defaults, monitoring: true });
      assert.equal(res.statusCode, 200, name);
    }
    const listed = (await h.send('GET', '/rest/v2/assets/?pageSize=10', { key })).json();
    assert.equal(listed.assets.filter((a: { monitored: boolean }) => a.monitored).length, 3);
    let res = await put('four.example', { ...defaults, monitoring: true });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(
      res.json(),
      v2Error(2424, 'Monitored-domain capacity reached: the starter plan monitors at most 3 domains', ['monitoring']),
    );
    assert.equal(
      (await put('one.example', { ...defaults, monitoring: true })).statusCode,
      200,
      'a monitored domain keeps its slot',
    );
    assert.equal((await put('two.example', defaults)).statusCode, 200);
    res = await put('four.example', { ...defaults, monitoring: true });
    assert.equal(res.statusCode, 200);
  });

  it('answers 1050 without a body and 1051 for invalid JSON', async () => {
    let res = await h.send('PUT', `/rest/v2/domains/${tokens['one.example']}/settings/`, { key });
    assert.deepEqual(res.json(), v2Error(1050, 'Request body missing: this operation needs a JSON body'));
    res = await h.send('PUT', `/rest/v2/domains/${tokens['one.example']}/settings/`, { key, body: '{oops' });
    assert.equal(res.json().code, 1051);
  });
});
