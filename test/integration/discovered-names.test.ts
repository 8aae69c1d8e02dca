import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { presentAsset } from '../../src/http/v2/asset.presenter.ts';
import { discoveredNameAsAsset, renderDiscoveredName } from '../../src/http/v2/subdomain.render.ts';
import { createHarness, v2Error, type Harness, type TestKey } from '../support/harness.ts';

interface WireAsset {
  token: string;
  name: string;
  status: string;
  added_by: string[];
  monitored: boolean;
  created: string;
  updated: string;
  discovered: string;
  last_seen: string;
}

const zone = (names: string[]) =>
  `$ORIGIN names.test.\n$TTL 300\n${names.map((n, i) => `${n} IN A 192.0.2.${(i % 250) + 1}\n`).join('')}`;

describe('names discovered by DNS, listed as subdomains', () => {
  let h: Harness;
  let owner: TestKey;
  let stranger: TestKey;
  let rootToken = '';

  before(async () => {
    h = await createHarness();
    owner = await h.team('names');
    stranger = await h.team('names-stranger');
    rootToken = (await h.send('POST', '/rest/v2/assets/', { key: owner.key, body: { name: 'names.test' } })).json()
      .token;
    await h.admin('asset', 'verify', 'names.test');
    const manual = await h.send('POST', '/rest/v2/assets/', { key: owner.key, body: { name: 'manual.names.test' } });
    assert.equal(manual.json().code, 2019);
    const res = await h.send('POST', '/rest/v2/zone/file/?origin=names.test', {
      key: owner.key,
      body: zone(['manual', 'a', 'b', 'c', 'd.deep']),
    });
    assert.deepEqual(res.json(), { indexed: 5 });
  });
  after(() => h.close());

  /** Every page of a listing, following next_marker. */
  async function pages(path: string, key = owner.key): Promise<WireAsset[][]> {
    const out: WireAsset[][] = [];
    let marker = '';
    for (;;) {
      const res = await h.send(
        'GET',
        `${path}${path.includes('?') ? '&' : '?'}pageSize=2${marker === '' ? '' : `&marker=${encodeURIComponent(marker)}`}`,
        { key },
      );
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      out.push(body.assets);
      if (!body.has_more) return out;
      marker = body.next_marker;
    }
  }

  it('lists asset rows first, then discovered names in hierarchy order, across markers', async () => {
    const listed = (await pages(`/rest/v2/assets/${rootToken}/subdomains/`)).flat();
    assert.deepEqual(
      listed.map((a) => a.name),
      ['manual.names.test', 'a.names.test', 'b.names.test', 'c.names.test', 'd.deep.names.test'],
    );
    const manual = listed[0]!;
    assert.deepEqual(manual.added_by, ['manual', 'zone-file'], 'a name that is an asset is listed once, as the asset');
    for (const found of listed.slice(1)) {
      assert.deepEqual(Object.keys(found), [
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
      assert.match(found.token, /^[0-9a-f]{32}$/);
      assert.deepEqual([found.status, found.added_by, found.monitored], ['verified', ['zone-file'], false]);
    }
    const all = (await pages('/rest/v2/assets/?include_subdomains=true')).flat().map((a) => a.name);
    assert.deepEqual(all, [
      'names.test',
      'manual.names.test',
      'a.names.test',
      'b.names.test',
      'c.names.test',
      'd.deep.names.test',
    ]);
    const roots = (await pages('/rest/v2/assets/')).flat().map((a) => a.name);
    assert.deepEqual(roots, ['names.test']);
  });

  it("lists each discovered name byte for byte as the asset shape renders the store's record of it", async () => {
    // The entry is subdomain.render.ts's, from asset.render.ts's declaration, like an asset's.
    const team = (await h.runtime.store.teams.findByName('names'))!;
    for (const path of [
      `/rest/v2/assets/${rootToken}/subdomains/?pageSize=1000`,
      '/rest/v2/assets/?include_subdomains=true',
    ]) {
      const res = await h.send('GET', path, { key: owner.key });
      const found = (res.json().assets as WireAsset[]).filter((a) => a.added_by.join() === 'zone-file');
      assert.equal(found.length, 4, path);
      for (const entry of found) {
        const name = (await h.runtime.store.zones.findByToken(team.id, entry.token))!;
        const rendered = JSON.stringify(presentAsset(discoveredNameAsAsset(name)));
        assert.equal(rendered, renderDiscoveredName(name));
        assert.ok(res.body.includes(rendered), `${path}: ${rendered}`);
      }
    }
  });

  it('applies `from` to discovered names by their first sighting', async () => {
    const later = (await pages('/rest/v2/assets/?include_subdomains=true&from=2999-01-01T00:00:00Z')).flat();
    assert.deepEqual(later, []);
    const since = (await pages('/rest/v2/assets/?include_subdomains=true&from=2000-01-01T00:00:00Z'))
      .flat()
      .map((a) => a.name);
    assert.ok(since.includes('d.deep.names.test') && since.includes('names.test'));
  });

  it("keeps a discovered name's token across refreshes and sources", async () => {
    const before = (await pages(`/rest/v2/assets/${rootToken}/subdomains/`))
      .flat()
      .find((a) => a.name === 'a.names.test')!;
    await h.send('POST', '/rest/v2/zone/file/?origin=names.test', { key: owner.key, body: zone(['a']) });
    const after = (await pages(`/rest/v2/assets/${rootToken}/subdomains/`))
      .flat()
      .find((a) => a.name === 'a.names.test')!;
    assert.equal(after.token, before.token);
    assert.equal(after.created, before.created);
  });

  it("answers a discovered name's token like an asset's: settings, subdomains, delete", async () => {
    const listed = (await pages(`/rest/v2/assets/${rootToken}/subdomains/`)).flat();
    const b = listed.find((a) => a.name === 'b.names.test')!;
    const settings = await h.send('GET', `/rest/v2/assets/${b.token}/settings/`, { key: owner.key });
    assert.equal(settings.statusCode, 200, settings.body);
    assert.equal(settings.json().monitoring, false);
    const subs = await h.send('GET', `/rest/v2/assets/${b.token}/subdomains/`, { key: owner.key });
    assert.deepEqual(subs.json().assets, []);

    const c = listed.find((a) => a.name === 'c.names.test')!;
    const deleted = await h.send('DELETE', `/rest/v2/assets/${c.token}/`, { key: owner.key });
    assert.ok(deleted.statusCode < 300, deleted.body);
    const again = await h.send('DELETE', `/rest/v2/assets/${c.token}/`, { key: owner.key });
    assert.deepEqual(again.json(), v2Error(2014, 'Asset does not exist', ['token']));
    assert.equal(
      (await pages(`/rest/v2/assets/${rootToken}/subdomains/`)).flat().some((a) => a.name === 'c.names.test'),
      false,
    );
  });

  it('makes an asset of a discovered name when its settings change, under the same token', async () => {
    const b = (await pages(`/rest/v2/assets/${rootToken}/subdomains/`)).flat().find((a) => a.name === 'b.names.test')!;
    const current = (await h.send('GET', `/rest/v2/assets/${b.token}/settings/`, { key: owner.key })).json();
    const res = await h.send('PUT', `/rest/v2/assets/${b.token}/settings/`, {
      key: owner.key,
      body: { ...current, monitoring: true },
    });
    assert.equal(res.statusCode, 200, res.body);
    const listed = (await pages(`/rest/v2/assets/${rootToken}/subdomains/`)).flat();
    const now = listed.filter((a) => a.name === 'b.names.test');
    assert.equal(now.length, 1, 'listed once');
    assert.deepEqual([now[0]!.token, now[0]!.monitored, now[0]!.added_by], [b.token, true, ['zone-file']]);
    assert.equal(
      (await h.send('GET', `/rest/v2/assets/${b.token}/settings/`, { key: owner.key })).json().monitoring,
      true,
    );
  });

  it('refuses 2012 to change the settings of a wildcard or service owner of the zone data: neither can be an asset', async () => {
    const root = (await h.send('POST', '/rest/v2/assets/', { key: owner.key, body: { name: 'wild.test' } })).json()
      .token as string;
    const upload = await h.send('POST', '/rest/v2/zone/file/?origin=wild.test', {
      key: owner.key,
      body: '$TTL 300\n*.dev IN A 192.0.2.1\n_sip._tcp IN SRV 0 5 5060 sip.wild.test.\nok IN A 192.0.2.2\n',
    });
    assert.deepEqual(upload.json(), { indexed: 3 });
    const names = (await pages(`/rest/v2/assets/${root}/subdomains/`)).flat();
    for (const name of ['*.dev.wild.test', '_sip._tcp.wild.test']) {
      const found = names.find((a) => a.name === name);
      assert.ok(found !== undefined, `${name} is listed: ${JSON.stringify(names.map((a) => a.name))}`);
      const current = (await h.send('GET', `/rest/v2/assets/${found.token}/settings/`, { key: owner.key })).json();
      const res = await h.send('PUT', `/rest/v2/assets/${found.token}/settings/`, {
        key: owner.key,
        body: { ...current, stateless_tests: false },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 2012);
      assert.deepEqual(res.json().parameters, ['domainToken']);
      assert.match(
        res.json().message,
        new RegExp(`^${name.replace(/[*.]/g, '\\$&')} is a name of the zone data that cannot be an asset`),
      );
    }
    const ok = names.find((a) => a.name === 'ok.wild.test')!;
    const current = (await h.send('GET', `/rest/v2/assets/${ok.token}/settings/`, { key: owner.key })).json();
    assert.equal(
      (
        await h.send('PUT', `/rest/v2/assets/${ok.token}/settings/`, {
          key: owner.key,
          body: { ...current, stateless_tests: false },
        })
      ).statusCode,
      200,
    );
    const after = (await pages(`/rest/v2/assets/${root}/subdomains/`)).flat();
    assert.deepEqual(
      after
        .filter((a) => a.added_by.length > 0 && a.name !== 'ok.wild.test')
        .map((a) => a.name)
        .sort(),
      ['*.dev.wild.test', '_sip._tcp.wild.test'],
    );
    assert.equal((await h.send('DELETE', `/rest/v2/assets/${root}/`, { key: owner.key })).statusCode, 200);
  });

  it('hides discovered names from other teams: their tokens behave like unknown ones', async () => {
    const a = (await pages(`/rest/v2/assets/${rootToken}/subdomains/`)).flat().find((x) => x.name === 'a.names.test')!;
    for (const [method, path] of [
      ['GET', `/rest/v2/assets/${a.token}/settings/`],
      ['GET', `/rest/v2/assets/${a.token}/subdomains/`],
      ['DELETE', `/rest/v2/assets/${a.token}/`],
    ] as const) {
      const res = await h.send(method, path, { key: stranger.key });
      assert.deepEqual(res.json(), v2Error(2014, 'Asset does not exist', ['token']), `${method} ${path}`);
    }
    assert.equal((await h.send('GET', '/rest/v2/assets/?include_subdomains=true', { key: stranger.key })).body, '{}');
  });

  it('merges the records of a name that comes back far apart in one file', async () => {
    const filler = Array.from({ length: 2500 }, (_, i) => `f${i}`);
    const text = `$ORIGIN names.test.\n$TTL 300\nsplit IN A 192.0.2.1\n${filler.map((n) => `${n} IN A 192.0.2.2\n`).join('')}split IN AAAA 2001:db8::1\n`;
    const res = await h.send('POST', '/rest/v2/zone/file/?origin=names.test', { key: owner.key, body: text });
    assert.deepEqual(res.json(), { indexed: 2501 });
    const row = await h.runtime.database.db
      .selectFrom('dns_names')
      .select('records_zone_file')
      .where('rname', '=', 'test.names.split')
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(row.records_zone_file!), [
      ['A', 300, '192.0.2.1'],
      ['AAAA', 300, '2001:db8::1'],
    ]);
  });

  it('indexes two uploads of one team at the same time, with the same names in opposite orders', async () => {
    const names = Array.from({ length: 3000 }, (_, i) => `c${i}`);
    const [one, two] = await Promise.all([
      h.send('POST', '/rest/v2/zone/file/?origin=names.test', { key: owner.key, body: zone(names) }),
      h.send('POST', '/rest/v2/zone/file/?origin=names.test', { key: owner.key, body: zone([...names].reverse()) }),
    ]);
    assert.deepEqual([one.json(), two.json()], [{ indexed: 3000 }, { indexed: 3000 }]);
    const teamId = (await h.runtime.store.teams.findByName('names'))!.id;
    const count = await h.runtime.database.db
      .selectFrom('dns_names')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .where('rname', 'like', 'test.names.c%')
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 3000);
  });

  it('removes the names under a root asset with it', async () => {
    const res = await h.send('DELETE', `/rest/v2/assets/${rootToken}/`, { key: owner.key });
    assert.ok(res.statusCode < 300, res.body);
    const left = await h.runtime.database.db
      .selectFrom('dns_names')
      .select('rname')
      .where('team_id', '=', (await h.runtime.store.teams.findByName('names'))!.id)
      .execute();
    assert.deepEqual(left, []);
  });
});
