import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { presentAsset } from '../../src/http/v2/asset.presenter.ts';
import { createHarness, v2Error, type Harness } from '../support/harness.ts';

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const token = /^[0-9a-f]{32}$/;

describe('v2 assets', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;

  before(async () => {
    h = await createHarness({ egressAllow: [] });
    key = (await h.team('acme')).key;
    otherKey = (await h.team('other')).key;
  });
  after(async () => h.close());

  async function add(name: string, k = key) {
    const res = await h.send('POST', '/rest/v2/assets/', { key: k, body: { name } });
    return { status: res.statusCode, body: res.json() as Record<string, unknown> };
  }

  describe('list root assets', () => {
    it('answers {} for a team with no assets', async () => {
      const res = await h.send('GET', '/rest/v2/assets/', { key });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {});
    });

    it('pages with keyset markers that survive inserts, in both page-size spellings', async () => {
      const names = Array.from({ length: 5 }, (_, i) => `page${i}.example`);
      for (const n of names) assert.equal((await add(n, otherKey)).status, 200);
      const first = await h.send('GET', '/rest/v2/assets/?pageSize=2', { key: otherKey });
      const page1 = first.json();
      assert.deepEqual(
        page1.assets.map((a: { name: string }) => a.name),
        names.slice(0, 2),
      );
      assert.equal(page1.has_more, true);
      assert.equal(typeof page1.next_marker, 'string');
      assert.equal(typeof page1.current_marker, 'string');
      await add('page-late.example', otherKey);
      const page2 = (
        await h.send('GET', `/rest/v2/assets/?page_size=2&marker=${encodeURIComponent(page1.next_marker)}`, {
          key: otherKey,
        })
      ).json();
      assert.deepEqual(
        page2.assets.map((a: { name: string }) => a.name),
        names.slice(2, 4),
      );
      const page3 = (
        await h.send('GET', `/rest/v2/assets/?pageSize=2&marker=${encodeURIComponent(page2.next_marker)}`, {
          key: otherKey,
        })
      ).json();
      assert.deepEqual(
        page3.assets.map((a: { name: string }) => a.name),
        [names[4], 'page-late.example'],
      );
      assert.equal(page3.has_more, false);
      assert.equal('next_marker' in page3, false);
      const again = (
        await h.send('GET', `/rest/v2/assets/?pageSize=2&marker=${encodeURIComponent(page1.current_marker)}`, {
          key: otherKey,
        })
      ).json();
      assert.deepEqual(again.assets, page1.assets);
    });

    it('writes each listed asset as compact JSON with the fields in wire order, on either store', async () => {
      const res = await h.send('GET', '/rest/v2/assets/?pageSize=3', { key: otherKey });
      const body = res.json();
      assert.equal(res.body, JSON.stringify(body), 'no whitespace anywhere in the page');
      assert.deepEqual(Object.keys(body.assets[0]), [
        'token',
        'name',
        'status',
        'added_by',
        'monitored',
        'created',
        'updated',
        'discovered',
        'last_seen',
      ]);
      assert.deepEqual([typeof body.assets[0].monitored, Array.isArray(body.assets[0].added_by)], ['boolean', true]);
    });

    it('an empty marker starts from the beginning', async () => {
      const res = await h.send('GET', '/rest/v2/assets/?marker=&pageSize=1', { key: otherKey });
      assert.equal(res.json().assets[0].name, 'page0.example');
    });

    it('filters by creation time with from', async () => {
      const future = Math.floor(Date.now() / 1000) + 3600;
      const res = await h.send('GET', `/rest/v2/assets/?from=${future}`, { key: otherKey });
      assert.deepEqual(res.json(), { assets: [], has_more: false, current_marker: res.json().current_marker });
      const past = await h.send('GET', '/rest/v2/assets/?from=2000-01-01T00:00:00Z', { key: otherKey });
      assert.equal(past.json().assets.length, 6);
    });

    it('refuses a malformed from with 1085, and a bad page size or marker with 4150', async () => {
      let res = await h.send('GET', '/rest/v2/assets/?from=yesterday', { key });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        res.json(),
        v2Error(
          1085,
          'from must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "yesterday"',
          ['from'],
        ),
      );
      res = await h.send('GET', '/rest/v2/assets/?pageSize=0', { key });
      assert.deepEqual(res.json(), v2Error(4150, 'pageSize must be an integer from 1 to 1000', ['pageSize']));
      res = await h.send('GET', '/rest/v2/assets/?page_size=abc', { key });
      assert.deepEqual(res.json(), v2Error(4150, 'page_size must be an integer from 1 to 1000', ['page_size']));
      res = await h.send('GET', '/rest/v2/assets/?marker=garbage', { key });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), v2Error(4150, 'marker is not a marker of this listing', ['marker']));
      res = await h.send('GET', '/rest/v2/assets/?include_subdomains=maybe', { key });
      assert.deepEqual(res.json(), v2Error(4150, 'include_subdomains must be true or false', ['include_subdomains']));
    });

    it("refuses another team's marker like a malformed one", async () => {
      const page = (await h.send('GET', '/rest/v2/assets/?pageSize=1', { key: otherKey })).json();
      await add('marker-owner.example');
      const res = await h.send('GET', `/rest/v2/assets/?marker=${encodeURIComponent(page.next_marker)}`, { key });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), v2Error(4150, 'marker is not a marker of this listing', ['marker']));
    });
  });

  describe('add asset', () => {
    it('adds a domain, unverified, with every field', async () => {
      const { status, body } = await add('Example.COM');
      assert.equal(status, 200);
      assert.match(String(body['token']), token);
      assert.deepEqual(
        { ...body, token: '', created: '', updated: '', discovered: '', last_seen: '' },
        {
          token: '',
          name: 'example.com',
          status: 'unverified',
          added_by: ['manual'],
          monitored: false,
          created: '',
          updated: '',
          discovered: '',
          last_seen: '',
        },
      );
      for (const f of ['created', 'updated', 'discovered', 'last_seen']) assert.match(String(body[f]), iso);
      // Listings render assets in the database; they must match the presenter field for field.
      const listed = (await h.send('GET', '/rest/v2/assets/?pageSize=1000', { key }))
        .json()
        .assets.find((a: { token: string }) => a.token === body['token']);
      assert.deepEqual(listed, body);
    });

    it("lists each asset byte for byte as the presenter renders it, from the store's rows and from the id lookup", async () => {
      // Both come from asset.render.ts's declaration: the presenter in JS, the list in SQL.
      const added = await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'bytes.example' } });
      assert.equal((await add('sub.bytes.example')).status, 202);
      assert.equal((await add('198.51.100.7:8080')).status, 200);
      const page = await h.send('GET', '/rest/v2/assets/?pageSize=1000', { key });
      assert.ok(page.body.includes(`,${added.body},`), `the answer to the add is the list entry: ${page.body}`);
      const team = (await h.runtime.store.teams.findByName('acme'))!;
      const list = await h.send('GET', '/rest/v2/assets/?include_subdomains=true&pageSize=1000', { key });
      const summaries = await h.runtime.store.assets.listPage({
        teamId: team.id,
        scope: { kind: 'all' },
        afterId: undefined,
        createdAfter: undefined,
        limit: 1000,
      });
      assert.ok(summaries.length >= 4, `${summaries.length} assets`);
      const presented = summaries.map((asset) => JSON.stringify(presentAsset(asset)));
      assert.ok(list.body.startsWith(`{"assets":[${presented.join(',')}]`), list.body);
      const byId = await h.runtime.store.assets.documentsByIds(
        team.id,
        summaries.map((asset) => asset.id),
      );
      assert.deepEqual(
        byId.map((d) => d.document),
        presented,
      );
    });

    it('adds IP addresses with and without a port', async () => {
      assert.equal((await add('192.0.2.10')).body['name'], '192.0.2.10');
      assert.equal((await add('[2001:db8::5]:8443')).body['name'], '2001:db8::5');
    });

    it('answers 2018 for a name the team has already, but another team may add it', async () => {
      const res = await add('example.com');
      assert.equal(res.status, 409);
      assert.deepEqual(res.body, v2Error(2018, 'Asset already exists: the team has example.com already', ['name']));
      assert.equal((await add('example.com', otherKey)).status, 200);
    });

    it('accepts a subdomain of a root apex as its subdomain with 2019 (202)', async () => {
      const res = await add('shop.example.com');
      assert.equal(res.status, 202);
      const { asset, ...error } = res.body as { asset: Record<string, unknown> };
      assert.deepEqual(
        error,
        v2Error(
          2019,
          "Asset accepted as a subdomain of example.com, which is already a root asset; it appears in that asset's subdomains",
          ['name'],
        ),
      );
      assert.equal(asset['name'], 'shop.example.com');
      const roots = (await h.send('GET', '/rest/v2/assets/?pageSize=1000', { key })).json();
      assert.equal(
        roots.assets.some((a: { name: string }) => a.name === 'shop.example.com'),
        false,
      );
      const all = (await h.send('GET', '/rest/v2/assets/?include_subdomains=true&pageSize=1000', { key })).json();
      assert.equal(
        all.assets.some((a: { name: string }) => a.name === 'shop.example.com'),
        true,
      );
    });

    it('adds a subdomain without its apex as a root asset', async () => {
      const res = await add('api.lonely.example');
      assert.equal(res.status, 200);
      assert.equal(res.body['name'], 'api.lonely.example');
    });

    it('refuses malformed and non-ASCII names with 2012', async () => {
      const res = await add('bücher.example');
      assert.equal(res.status, 400);
      assert.deepEqual(
        res.body,
        v2Error(
          2012,
          'Domain name malformed: "bücher.example" contains characters outside ASCII (send international names in punycode) (expected a second-level domain, a subdomain or an IP address, with an optional port)',
          ['name'],
        ),
      );
      for (const bad of ['com', 'not a domain', 'example.com:99999']) assert.equal((await add(bad)).body['code'], 2012);
      const missing = await h.send('POST', '/rest/v2/assets/', { key, body: {} });
      assert.deepEqual(missing.json(), v2Error(2012, 'Domain name malformed: name must be a string', ['name']));
    });

    it('answers 1050 without a body and 1051 for a body that is not a JSON object', async () => {
      let res = await h.send('POST', '/rest/v2/assets/', { key });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), v2Error(1050, 'Request body missing: this operation needs a JSON body'));
      res = await h.send('POST', '/rest/v2/assets/', {
        key,
        body: '{"name":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.json().code, 1051);
      res = await h.send('POST', '/rest/v2/assets/', { key, body: '["example.org"]' });
      assert.deepEqual(res.json(), v2Error(1051, 'Request body malformed: expected a JSON object'));
    });
  });

  describe('subdomains and delete', () => {
    it('lists the subdomains of a root asset', async () => {
      const root = (await h.send('GET', '/rest/v2/assets/?pageSize=1000', { key }))
        .json()
        .assets.find((a: { name: string }) => a.name === 'example.com');
      await add('a.b.example.com');
      const res = await h.send('GET', `/rest/v2/assets/${root.token}/subdomains/`, { key });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(
        body.assets.map((a: { name: string }) => a.name),
        ['shop.example.com', 'a.b.example.com'],
      );
      assert.equal(body.has_more, false);
    });

    it("treats another team's asset token as unknown (2014) and a malformed token as 2011", async () => {
      const theirs = (await add('theirs.example', otherKey)).body['token'];
      for (const [method, path] of [
        ['GET', `/rest/v2/assets/${theirs}/subdomains/`],
        ['DELETE', `/rest/v2/assets/${theirs}/`],
        ['GET', `/rest/v2/domains/${theirs}/settings/`],
      ] as const) {
        const res = await h.send(method, path, { key });
        assert.equal(res.statusCode, 404, path);
        assert.deepEqual(res.json(), v2Error(2014, 'Asset does not exist', ['token']));
      }
      const res = await h.send('DELETE', '/rest/v2/assets/not-a-token/', { key });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        res.json(),
        v2Error(2011, 'Domain token malformed: a token is 32 lowercase hexadecimal characters', ['token']),
      );
    });

    it('deletes an asset with its subdomains, accepting an empty JSON body', async () => {
      const { body } = await add('gone.example');
      await add('www.gone.example');
      const res = await h.send('DELETE', `/rest/v2/assets/${body['token']}/`, {
        key,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {});
      const all = (await h.send('GET', '/rest/v2/assets/?include_subdomains=true&pageSize=1000', { key })).json();
      assert.equal(
        all.assets.some((a: { name: string }) => a.name.endsWith('gone.example')),
        false,
      );
      const again = await h.send('DELETE', `/rest/v2/assets/${body['token']}/`, { key });
      assert.deepEqual(again.json(), v2Error(2014, 'Asset does not exist', ['token']));
    });
  });
});
