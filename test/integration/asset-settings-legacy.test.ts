import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { olderSettingsBody } from '../support/asset-settings-bodies.ts';
import { createHarness, v2Error, type Harness } from '../support/harness.ts';

const legacy = { ...olderSettingsBody };
const defaultPorts = {
  enable_port_scanning: true,
  port_scanning_avoid_list: [],
  port_scanning_force_list: [],
  port_scanning_include_recommended_ports: true,
};
const customPorts = {
  enable_port_scanning: false,
  port_scanning_avoid_list: [22, 3389],
  port_scanning_force_list: [8443],
  port_scanning_include_recommended_ports: false,
};

describe('v2 asset settings: bodies without the port-scanning fields', () => {
  let h: Harness;
  let key: string;
  const tokens: Record<string, string> = {};

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('legacy-settings')).key;
    for (const name of ['fresh.example', 'ported.example', 'partial.example', 'edges.example', 'missing.example']) {
      tokens[name] = (await h.send('POST', '/rest/v2/assets/', { key, body: { name } })).json().token;
      await h.admin('asset', 'verify', name);
    }
  });
  after(async () => h.close());

  const put = (name: string, body: unknown) =>
    h.send('PUT', `/rest/v2/domains/${tokens[name]}/settings/`, { key, body });
  const read = async (name: string) =>
    (await h.send('GET', `/rest/v2/assets/${tokens[name]}/settings/`, { key })).json();
  /** Updates, then asserts both the answer and a later read give `expected`. */
  async function putAndRead(name: string, body: unknown, expected: unknown): Promise<void> {
    const res = await put(name, body);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), expected);
    assert.deepEqual(await read(name), expected);
  }

  it('accepts the 14 older fields; the port-scanning fields keep their defaults on an asset never updated', async () => {
    const body = { ...legacy, fingerprinting: false, monitoring: true, requests_per_second: 25 };
    await putAndRead('fresh.example', body, { ...body, ...defaultPorts });
  });

  it('keeps the port-scanning values of an earlier full update', async () => {
    assert.equal((await put('ported.example', { ...legacy, ...customPorts })).statusCode, 200);
    const body = { ...legacy, custom_headers: { 'X-Team': 'blue' }, stateless_tests: false };
    await putAndRead('ported.example', body, { ...body, ...customPorts });
  });

  it('applies the port-scanning fields a body carries and keeps the ones it leaves out', async () => {
    assert.equal((await put('partial.example', { ...legacy, ...customPorts })).statusCode, 200);
    const body = { ...legacy, port_scanning_force_list: '9000, 9001', enable_port_scanning: true };
    await putAndRead('partial.example', body, {
      ...legacy,
      ...customPorts,
      port_scanning_force_list: [9000, 9001],
      enable_port_scanning: true,
    });
  });

  it('answers 2422 naming a missing one of the 14, and changes nothing', async () => {
    const before = await read('missing.example');
    const { subdomain_takeover_tests: _s, ...withoutOne } = legacy;
    let res = await put('missing.example', withoutOne);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(
      res.json(),
      v2Error(
        2422,
        'Asset settings malformed: all settings fields must be provided; missing: subdomain_takeover_tests',
        ['subdomain_takeover_tests'],
      ),
    );
    const { requests_per_second: _r, custom_headers: _c, ...withoutTwo } = legacy;
    res = await put('missing.example', { ...withoutTwo, ...customPorts });
    assert.deepEqual(
      res.json(),
      v2Error(
        2422,
        'Asset settings malformed: all settings fields must be provided; missing: custom_headers, requests_per_second',
        ['custom_headers', 'requests_per_second'],
      ),
    );
    assert.deepEqual(await read('missing.example'), before);
  });

  describe('edge values older scripts send', () => {
    it('accepts requests_per_second 0 (no limit) and reads it back as 0', async () => {
      await putAndRead(
        'edges.example',
        { ...legacy, requests_per_second: 0 },
        { ...legacy, requests_per_second: 0, ...defaultPorts },
      );
    });

    it('refuses requests_per_second below 0, above 1000 or not an integer (2422)', async () => {
      for (const value of [-1, 1001, 2.5, '10', null]) {
        const res = await put('edges.example', { ...legacy, requests_per_second: value });
        assert.deepEqual(
          res.json(),
          v2Error(
            2422,
            'Asset settings malformed: requests_per_second must be 0 (no limit) or an integer from 1 to 1000',
            ['requests_per_second'],
          ),
          JSON.stringify(value),
        );
      }
    });

    it('reads custom_headers {} and null as no headers, and keeps an empty header value', async () => {
      await put('edges.example', { ...legacy, custom_headers: { 'X-Old': 'v' } });
      let res = await put('edges.example', { ...legacy, custom_headers: null });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().custom_headers, {});
      res = await put('edges.example', { ...legacy, custom_headers: { 'x-empty': '' } });
      assert.deepEqual(res.json().custom_headers, { 'x-empty': '' });
      res = await put('edges.example', { ...legacy, custom_headers: {} });
      assert.deepEqual((await read('edges.example')).custom_headers, {});
      res = await put('edges.example', { ...legacy, custom_headers: [] });
      assert.deepEqual(
        res.json(),
        v2Error(2422, 'Asset settings malformed: custom_headers must be an object mapping header names to values', [
          'custom_headers',
        ]),
      );
    });

    it('accepts every switch off and the deprecated ssl_audit on; 2426 still guards brute_force without scrape', async () => {
      const allOff = Object.fromEntries(
        Object.entries(legacy).map(([k, v]) => [k, typeof v === 'boolean' ? false : v]),
      );
      let res = await put('edges.example', { ...allOff, ssl_audit: true });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { ...allOff, ssl_audit: true, ...defaultPorts });
      res = await put('edges.example', { ...legacy, brute_force: true, scrape: false });
      assert.deepEqual(
        res.json(),
        v2Error(2426, 'brute_force can be true only when scrape is true; disable brute_force before disabling scrape', [
          'brute_force',
          'scrape',
        ]),
      );
    });
  });

  it('accepts the 14 fields on a name discovered by DNS: it becomes an asset with the default port settings', async () => {
    await h.send('POST', '/rest/v2/zone/file/?origin=fresh.example', {
      key,
      body: '$ORIGIN fresh.example.\n$TTL 300\nwww IN A 192.0.2.1\n',
    });
    const subs = (await h.send('GET', `/rest/v2/assets/${tokens['fresh.example']}/subdomains/`, { key })).json()
      .assets as Array<{ token: string; name: string }>;
    const www = subs.find((s) => s.name === 'www.fresh.example')!;
    const res = await h.send('PUT', `/rest/v2/domains/${www.token}/settings/`, {
      key,
      body: { ...legacy, requests_per_second: 0 },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { ...legacy, requests_per_second: 0, ...defaultPorts });
  });

  it("refuses another team's token with 2014", async () => {
    const other = await h.team('legacy-settings-other');
    const res = await h.send('PUT', `/rest/v2/domains/${tokens['ported.example']}/settings/`, {
      key: other.key,
      body: legacy,
    });
    assert.deepEqual(res.json(), v2Error(2014, 'Asset does not exist', ['token']));
    assert.deepEqual(await read('ported.example'), {
      ...legacy,
      custom_headers: { 'X-Team': 'blue' },
      stateless_tests: false,
      ...customPorts,
    });
  });
});
