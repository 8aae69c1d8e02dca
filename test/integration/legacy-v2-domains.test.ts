// The older v2 domain reads and writes: the root assets listed and added as domains, their
// subdomains, a large domain past the cap of the bare findings array, and the older operations
// marked deprecated in the OpenAPI document. The shared setup is in test/support/legacy-v2-fixture.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addAsset } from '../../src/core/assets/asset.service.ts';
import type { Asset } from '../../src/core/assets/asset.types.ts';
import { legacyFindingCap } from '../../src/core/legacy/legacy-findings.service.ts';
import { finding, scan } from '../support/findings.ts';
import { testStore, v2Error, type Harness } from '../support/harness.ts';
import {
  ClientDomain,
  ClientError,
  ClientFinding,
  ClientFindingPage,
  ClientSubdomain,
  ClientUuid,
  decode,
  decodeArray,
} from '../support/legacy-client.ts';
import { LegacyV2Fixture, second, T1, T2, titles } from '../support/legacy-v2-fixture.ts';

describe(`older v2 endpoints: domains (${testStore})`, () => {
  const fx = new LegacyV2Fixture();
  const { send, get, error } = fx;
  let h: Harness;
  let key: string;
  let example: Asset;
  let sub: Asset;

  before(async () => {
    await fx.open();
    ({ h, key, example, sub } = fx);
  });
  after(() => fx.close());

  describe('domains', () => {
    it('lists the root assets as domains, bare and strictly typed', async () => {
      const domains = decodeArray(ClientDomain, await get('/rest/v2/domains/'));
      assert.deepEqual(
        domains.map((d) => d.name),
        ['127.0.0.1', 'example.com'],
      );
      const d = domains[1]!;
      assert.deepEqual(
        { ...d, created: '', updated: '' },
        {
          uuid: example.uuid,
          name: 'example.com',
          status: 'unverified',
          created: '',
          updated: '',
          token: example.token,
          monitored: false,
          owner: { name: 'legacy' },
        },
      );
      assert.equal(domains[0]!.status, 'verified');
    });

    it('adds a domain with the rules and errors of adding an asset', async () => {
      const res = await send('POST', '/rest/v2/domains/', { name: 'new.example.org' });
      assert.equal(res.statusCode, 200, res.body);
      const added = decode(ClientDomain, res.body);
      assert.equal(added.name, 'new.example.org');
      assert.equal(added.status, 'unverified');
      const again = await send('POST', '/rest/v2/domains/', { name: 'new.example.org' });
      assert.equal(again.statusCode, 409);
      assert.deepEqual(
        decode(ClientError, again.body),
        v2Error(2018, 'Asset already exists: the team has new.example.org already', ['name']),
      );
      const subdomain = await send('POST', '/rest/v2/domains/', { name: 'www.new.example.org' });
      assert.equal(subdomain.statusCode, 202);
      const { domain, ...rest } = subdomain.json();
      assert.deepEqual(
        rest,
        v2Error(
          2019,
          "Asset accepted as a subdomain of new.example.org, which is already a root asset; it appears in that domain's subdomains",
          ['name'],
        ),
      );
      assert.equal(decode(ClientDomain, JSON.stringify(domain)).name, 'www.new.example.org');
      const bad = await send('POST', '/rest/v2/domains/', { name: 'not a name' });
      assert.equal(bad.statusCode, 400);
      assert.equal(decode(ClientError, bad.body).code, 2012);
      const missing = await h.send('POST', '/rest/v2/domains/', {
        key,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(decode(ClientError, missing.body).code, 1050);
      assert.deepEqual(
        decodeArray(ClientDomain, await get('/rest/v2/domains/')).map((x) => x.name),
        ['127.0.0.1', 'example.com', 'new.example.org'],
      );
    });

    it('lists subdomains as a bare array', async () => {
      const subs = decodeArray(ClientSubdomain, await get(`/rest/v2/domains/${example.token}/subdomains/`));
      assert.deepEqual(
        subs.map((s) => [s.name, s.token]),
        [['app.example.com', sub.token]],
      );
      assert.deepEqual(decodeArray(ClientSubdomain, await get(`/rest/v2/domains/${sub.token}/subdomains/`)), []);
      await error(
        '/rest/v2/domains/xyz/subdomains/',
        400,
        v2Error(2011, 'Domain token malformed: a token is 32 lowercase hexadecimal characters', ['token']),
      );
      await error(
        `/rest/v2/domains/${'0'.repeat(32)}/subdomains/`,
        404,
        v2Error(2014, 'Asset does not exist', ['token']),
      );
    });
  });

  describe('a large domain: the caps and many subdomain assets', () => {
    let bulk: Asset;
    before(async () => {
      const team = (await h.runtime.store.teams.findByName('legacy'))!;
      bulk = (await addAsset(h.runtime.store, team, 'bulk.example')).asset;
      // More subdomain assets than the per-asset index branches: the tree is read as a subquery.
      const subs: Asset[] = [];
      for (let i = 0; i < 31; i++) subs.push((await addAsset(h.runtime.store, team, `s${i}.bulk.example`)).asset);
      const many = Array.from({ length: legacyFindingCap + 1 }, (_, i) =>
        finding(`bulk-${i}`, { host: 'bulk.example', location: `https://bulk.example/p${i}` }),
      );
      await scan(h, { team, asset: bulk }, many, { at: new Date(T1) });
      await scan(h, { team, asset: subs[30]! }, [finding('on-the-last-subdomain', { host: 's30.bulk.example' })], {
        at: new Date(T2),
      });
    });

    it('caps the bare array at 1000 findings and says so in x-perimeter-truncated', async () => {
      const res = await send('GET', `/rest/v2/domains/${bulk.token}/findings/`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-perimeter-truncated'], 'true');
      assert.equal(decodeArray(ClientFinding, res.body).length, legacyFindingCap);
      const later = await send('GET', `/rest/v2/domains/${bulk.token}/findings/?from=${second(T2)}`);
      assert.equal(later.headers['x-perimeter-truncated'], undefined);
      assert.deepEqual(titles(decodeArray(ClientFinding, later.body)), ['Title of on-the-last-subdomain']);
    });

    it('gives every finding through the paginated read and the UUID list', async () => {
      const uuids = await send('GET', `/rest/v2/domains/${bulk.token}/findinguuids/`);
      assert.equal(uuids.headers['x-perimeter-truncated'], undefined);
      const all = decodeArray(ClientUuid, uuids.body);
      assert.equal(all.length, legacyFindingCap + 2);
      const paged: string[] = [];
      let marker = '';
      do {
        const page = decode(
          ClientFindingPage,
          await get(
            `/rest/v2/domains/${bulk.token}/findings/paginated/?page_size=100&marker=${encodeURIComponent(marker)}`,
          ),
        );
        paged.push(...page.findings.map((f) => f.uuid));
        marker = page.nextMarker ?? '';
      } while (marker !== '');
      assert.deepEqual(paged, all);
      assert.equal(new Set(paged).size, paged.length);
    });
  });

  it('lists every older operation in the OpenAPI document as deprecated', async () => {
    const doc = JSON.parse(await get('/rest/v2/openapi.json')) as {
      paths: Record<string, Record<string, { deprecated?: boolean }>>;
    };
    const legacyPaths = [
      '/domains/',
      '/domains/{domainToken}/subdomains/',
      '/domains/{domainToken}/findings/',
      '/domains/{domainToken}/findings/paginated/',
      '/domains/{domainToken}/findings/{uuid}/',
      '/domains/{domainToken}/findinguuids/',
      '/fullreports/{scanProfileToken}/latest/',
      '/reports/{scanProfileToken}/latest/',
      '/reports/{scanProfileToken}/',
      '/findings/{scanProfileToken}/',
      '/findings/{scanProfileToken}/{reportToken}/{uuid}/',
    ];
    for (const path of legacyPaths) {
      const operations = Object.values(doc.paths[path] ?? {});
      assert.ok(operations.length > 0, path);
      for (const op of operations) assert.equal(op.deprecated, true, path);
    }
    assert.equal(doc.paths['/domains/']!['post']!.deprecated, true);
    assert.equal(doc.paths['/assets/']!['get']!.deprecated, undefined, 'current operations are not deprecated');
  });
});
