import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Static } from '@sinclair/typebox';
import type { Asset } from '../../src/http/v2/assets.routes.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { startBind, type BindServer } from '../support/bind-server.ts';
import { createHarness, v2Error, type Harness } from '../support/harness.ts';
import { waitUntil } from '../support/test-jobs.ts';

type WireAsset = Static<typeof Asset>;

/** A small zone of `apex` (SOA, NS, apex A and three names below it). */
const zoneOf = (apex: string) => `$ORIGIN ${apex}.
$TTL 300
@     IN SOA ns1 hostmaster 2026010101 7200 3600 1209600 300
      IN NS  ns1
      IN A   192.0.2.1
ns1   IN A   192.0.2.53
www   IN A   192.0.2.10
api   IN CNAME www
`;
const namesBelow = (apex: string) => ['api', 'ns1', 'www'].map((label) => `${label}.${apex}`);

describe('a zone file or transfer adds its apex', () => {
  let h: Harness;
  let bind: BindServer;

  before(async () => {
    bind = await startBind([
      { name: 'axfr.test', text: zoneOf('axfr.test') },
      { name: 'closed-axfr.test', text: zoneOf('closed-axfr.test'), allowTransfer: [] },
    ]);
    h = await createHarness({ dnsResolvers: [bind.address], egressAllow: ['127.0.0.0/8'] });
  });
  after(async () => {
    await h.runtime.verification.settle();
    await h.close();
    await bind.stop();
  });

  const upload = (key: string, origin: string, text: string) =>
    h.send('POST', `/rest/v2/zone/file/?origin=${origin}`, { key, body: text });
  const transfer = (key: string, zone: string) =>
    h.send('POST', '/rest/v2/zone/transfer/', { key, body: { nameServer: bind.address, zone } });

  /** The team's root assets ([] for a team with none: the listing answers `{}`). */
  async function roots(key: string): Promise<WireAsset[]> {
    const res = await h.send('GET', '/rest/v2/assets/?pageSize=1000', { key });
    assert.equal(res.statusCode, 200);
    return (res.json().assets ?? []) as WireAsset[];
  }
  async function subdomainsOf(key: string, token: string): Promise<WireAsset[]> {
    const res = await h.send('GET', `/rest/v2/assets/${token}/subdomains/?pageSize=1000`, { key });
    assert.equal(res.statusCode, 200);
    return res.json().assets as WireAsset[];
  }
  /** Asserts the team's only root asset is the zone's apex, added by `source`, with the zone's names under it; returns it. */
  async function assertApexAdded(key: string, apex: string, source: string): Promise<WireAsset> {
    const [asset, ...others] = await roots(key);
    assert.deepEqual(others, []);
    assert.deepEqual(
      [asset?.name, asset?.status, asset?.added_by, asset?.monitored],
      [apex, 'unverified', [source], false],
    );
    const subs = await subdomainsOf(key, asset!.token);
    assert.deepEqual(subs.map((s) => s.name).sort(), namesBelow(apex));
    for (const s of subs) assert.deepEqual([s.status, s.added_by, s.monitored], ['unverified', [source], false]);
    return asset!;
  }
  /** Every name of the team: asset rows and discovered names. */
  async function allNames(key: string): Promise<string[]> {
    const res = await h.send('GET', '/rest/v2/assets/?include_subdomains=true&pageSize=1000', { key });
    return ((res.json().assets ?? []) as WireAsset[]).map((a) => a.name).sort();
  }

  describe('zone file upload', () => {
    it('adds the origin as an unverified root asset added by zone-file, and indexes the zone under it', async () => {
      const { key } = await h.team('upload-adds');
      const res = await upload(key, 'fresh.test', zoneOf('fresh.test'));
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { indexed: 4 });
      await assertApexAdded(key, 'fresh.test', 'zone-file');
    });

    it('adds the apex once: a second upload of the zone refreshes it', async () => {
      const { key } = await h.team('upload-twice');
      assert.deepEqual((await upload(key, 'twice.test', zoneOf('twice.test'))).json(), { indexed: 4 });
      const first = await roots(key);
      assert.deepEqual((await upload(key, 'twice.test.', zoneOf('twice.test'))).json(), { indexed: 4 });
      const second = await roots(key);
      assert.deepEqual(
        second.map((a) => [a.token, a.name, a.added_by]),
        first.map((a) => [a.token, a.name, a.added_by]),
      );
      assert.equal((await subdomainsOf(key, second[0]!.token)).length, 3);
    });

    it('adds the apex once when two uploads of a new zone run at the same time', async () => {
      const { key } = await h.team('upload-race');
      const answers = await Promise.all([
        upload(key, 'race.test', zoneOf('race.test')),
        upload(key, 'race.test', zoneOf('race.test')),
      ]);
      for (const res of answers) assert.deepEqual([res.statusCode, res.json()], [200, { indexed: 4 }]);
      assert.deepEqual(
        (await roots(key)).map((a) => a.name),
        ['race.test'],
      );
    });

    it('adds nothing when the origin lies under a root asset of the team: it indexes under that root as before', async () => {
      const { key } = await h.team('upload-under-root');
      const root = (
        await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'parent.test' } })
      ).json() as WireAsset;
      const res = await upload(key, 'sub.parent.test', zoneOf('sub.parent.test'));
      assert.deepEqual(res.json(), { indexed: 4 });
      assert.deepEqual(
        (await roots(key)).map((a) => [a.name, a.added_by]),
        [['parent.test', ['manual']]],
      );
      const subs = (await subdomainsOf(key, root.token)).map((s) => s.name).sort();
      assert.deepEqual(subs, ['sub.parent.test', ...namesBelow('sub.parent.test')].sort());
    });

    it("adds no asset without an origin when the file names no zone (no $ORIGIN, no SOA): read from the root, names outside the team's assets dropped", async () => {
      const { key } = await h.team('upload-rootless');
      const res = await h.send('POST', '/rest/v2/zone/file/', { key, body: 'www.rootless.test. 300 IN A 192.0.2.9\n' });
      assert.deepEqual(res.json(), { indexed: 0 });
      assert.deepEqual(await roots(key), []);
      // A root apex names no zone either: `$ORIGIN .` and an SOA at the root.
      const rooted = await h.send('POST', '/rest/v2/zone/file/?origin=', {
        key,
        body: '$ORIGIN .\n$TTL 300\n@ SOA ns1.rootless.test. hm.rootless.test. 1 2 3 4 5\nwww.rootless.test. A 192.0.2.9\n',
      });
      assert.deepEqual(rooted.json(), { indexed: 0 });
      assert.deepEqual(await roots(key), []);
      // A team with a root asset: indexed under it, as before.
      await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'rootless.test' } });
      assert.deepEqual(
        (
          await h.send('POST', '/rest/v2/zone/file/', {
            key,
            body: 'www.rootless.test. 300 IN A 192.0.2.9\nelsewhere.test. 300 IN A 192.0.2.9\n',
          })
        ).json(),
        { indexed: 1 },
      );
      assert.deepEqual(
        (await roots(key)).map((a) => [a.name, a.added_by]),
        [['rootless.test', ['manual']]],
      );
    });

    it("without an origin, takes the file's first $ORIGIN as the zone: adds it and indexes the zone under it", async () => {
      const { key } = await h.team('upload-names-origin');
      const res = await h.send('POST', '/rest/v2/zone/file/', {
        key,
        body: zoneOf('origin-named.test'),
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { indexed: 4 });
      await assertApexAdded(key, 'origin-named.test', 'zone-file');
    });

    it("without an origin, takes the owner of the file's SOA record when no $ORIGIN comes before it (a dig AXFR or BIND dump)", async () => {
      const { key } = await h.team('upload-names-soa');
      const dig = [
        'soa-named.test.\t300\tIN\tSOA\tns1.soa-named.test. hostmaster.soa-named.test. 2026010101 7200 3600 1209600 300',
        'soa-named.test.\t300\tIN\tNS\tns1.soa-named.test.',
        'soa-named.test.\t300\tIN\tA\t192.0.2.1',
        'api.soa-named.test.\t300\tIN\tCNAME\twww.soa-named.test.',
        'ns1.soa-named.test.\t300\tIN\tA\t192.0.2.53',
        'www.soa-named.test.\t300\tIN\tA\t192.0.2.10',
        'soa-named.test.\t300\tIN\tSOA\tns1.soa-named.test. hostmaster.soa-named.test. 2026010101 7200 3600 1209600 300',
      ].join('\n');
      assert.deepEqual((await h.send('POST', '/rest/v2/zone/file/', { key, body: `${dig}\n` })).json(), { indexed: 4 });
      await assertApexAdded(key, 'soa-named.test', 'zone-file');
      // BIND's relative dump starts with `$ORIGIN .` (the root names no zone), then the SOA.
      const other = await h.team('upload-names-dump');
      const dump =
        '$ORIGIN .\n$TTL 300\ndump-named.test\tIN SOA\tns1.dump-named.test. hm.dump-named.test. 1 2 3 4 5\n\t\t\tNS\tns1.dump-named.test.\n\t\t\tA\t192.0.2.1\n$ORIGIN dump-named.test.\napi\t\t\tCNAME\twww\nns1\t\t\tA\t192.0.2.53\nwww\t\t\tA\t192.0.2.10\n';
      assert.deepEqual((await h.send('POST', '/rest/v2/zone/file/', { key: other.key, body: dump })).json(), {
        indexed: 4,
      });
      await assertApexAdded(other.key, 'dump-named.test', 'zone-file');
    });

    it('treats a zone the file names like a given origin: its apex once, the asset errors, and none for a name the origin parameter refuses', async () => {
      const { key } = await h.team('upload-names-rules');
      assert.deepEqual(
        (await h.send('POST', '/rest/v2/zone/file/', { key, body: zoneOf('named-twice.test') })).json(),
        { indexed: 4 },
      );
      assert.deepEqual((await upload(key, 'named-twice.test', zoneOf('named-twice.test'))).json(), { indexed: 4 });
      assert.deepEqual(
        (await roots(key)).map((a) => a.name),
        ['named-twice.test'],
      );
      const suffix = await h.send('POST', '/rest/v2/zone/file/', {
        key,
        body: '$ORIGIN co.uk.\n$TTL 300\nexample IN A 192.0.2.1\n',
      });
      assert.deepEqual(
        suffix.json(),
        v2Error(
          2012,
          'Domain name malformed: "co.uk" is a public suffix, not a domain (expected a second-level domain, a subdomain or an IP address, with an optional port)',
          ['origin'],
        ),
      );
      // RFC 2317 classless reverse zone: `/` is no character of a zone name here (2411 as a parameter), so the file names none.
      const classless = await h.send('POST', '/rest/v2/zone/file/', {
        key,
        body: '$ORIGIN 0/26.2.0.192.in-addr.arpa.\n$TTL 300\n@ SOA ns1.named-twice.test. hm.named-twice.test. 1 2 3 4 5\n1 PTR www.named-twice.test.\n',
      });
      assert.deepEqual(classless.json(), { indexed: 0 });
      assert.deepEqual(
        (await roots(key)).map((a) => a.name),
        ['named-twice.test'],
      );
    });

    it('keeps no asset when the zone file fails to parse (2421)', async () => {
      const { key } = await h.team('upload-broken');
      const res = await upload(key, 'broken.test', `${zoneOf('broken.test')}late IN A 999.0.0.1\n`);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 2421);
      assert.deepEqual(await allNames(key), []);
    });

    it('answers the asset error for an origin that cannot be an asset, and indexes nothing', async () => {
      const { key } = await h.team('upload-suffix');
      let res = await upload(key, 'co.uk', '$ORIGIN co.uk.\n$TTL 300\nexample IN A 192.0.2.1\n');
      assert.equal(res.statusCode, 400);
      assert.deepEqual(
        res.json(),
        v2Error(
          2012,
          'Domain name malformed: "co.uk" is a public suffix, not a domain (expected a second-level domain, a subdomain or an IP address, with an optional port)',
          ['origin'],
        ),
      );
      res = await upload(key, 'test', '$ORIGIN test.\n$TTL 300\nsingle IN A 192.0.2.1\n');
      assert.deepEqual(
        res.json(),
        v2Error(
          2012,
          'Domain name malformed: "test" is not a valid domain name (expected a second-level domain, a subdomain or an IP address, with an optional port)',
          ['origin'],
        ),
      );
      assert.deepEqual(await allNames(key), []);
    });

    it('answers 1009 to a key limited to the zones endpoints when the zone would add an asset, and indexes nothing', async () => {
      const { key } = await h.team('upload-zones-only');
      const zonesOnly = await h.key('upload-zones-only', '--permission', 'zones');
      const res = await upload(zonesOnly.key, 'limited.test', zoneOf('limited.test'));
      assert.equal(res.statusCode, 403);
      assert.deepEqual(
        res.json(),
        v2Error(
          1009,
          'This API key cannot access the assets endpoints, and limited.test is not an asset of the team: adding it needs them',
        ),
      );
      assert.deepEqual(await allNames(key), []);
      // Once the apex is an asset, the same key indexes the zone as before.
      await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'limited.test' } });
      assert.deepEqual((await upload(zonesOnly.key, 'limited.test', zoneOf('limited.test'))).json(), { indexed: 4 });
    });

    it('keeps no asset when the signature over the streamed zone does not match (1003)', async () => {
      const { key } = await h.team('upload-signed');
      const signed = await h.key('upload-signed', '--signing');
      const res = await h.send('POST', '/rest/v2/zone/file/?origin=signed.test', {
        key: signed.key,
        body: zoneOf('signed.test'),
        headers: { 'x-service-timestamp': String(Math.floor(Date.now() / 1000)), 'x-service-signature': 'AAAA' },
      });
      assert.deepEqual(res.json(), v2Error(1003, 'Request signature invalid'));
      assert.deepEqual(await allNames(key), []);
      const good = await h.send('POST', '/rest/v2/zone/file/?origin=signed.test', {
        key: signed.key,
        secret: signed.secret!,
        body: zoneOf('signed.test'),
      });
      assert.deepEqual(good.json(), { indexed: 4 });
      assert.deepEqual(
        (await roots(key)).map((a) => a.name),
        ['signed.test'],
      );
    });
  });

  describe('zone transfer', () => {
    it('adds the zone as an unverified root asset added by zone-transfer, and indexes it under it', async () => {
      const { key } = await h.team('transfer-adds');
      const res = await transfer(key, 'axfr.test');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { indexed: 4 });
      const apex = await assertApexAdded(key, 'axfr.test', 'zone-transfer');
      // A later upload of the same zone adds no second asset; the apex gains the source.
      assert.deepEqual((await upload(key, 'axfr.test', zoneOf('axfr.test'))).json(), { indexed: 4 });
      assert.deepEqual(
        (await roots(key)).map((a) => [a.token, a.added_by]),
        [[apex.token, ['zone-transfer', 'zone-file']]],
      );
    });

    it('keeps no asset when the server refuses the transfer (2412)', async () => {
      const { key } = await h.team('transfer-refused');
      const res = await transfer(key, 'closed-axfr.test');
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 2412);
      assert.deepEqual(await allNames(key), []);
    });

    it('answers the asset error for a zone that cannot be an asset, naming zone', async () => {
      const { key } = await h.team('transfer-suffix');
      const res = await transfer(key, 'co.uk');
      assert.deepEqual(
        res.json(),
        v2Error(
          2012,
          'Domain name malformed: "co.uk" is a public suffix, not a domain (expected a second-level domain, a subdomain or an IP address, with an optional port)',
          ['zone'],
        ),
      );
      assert.deepEqual(await allNames(key), []);
    });
  });

  describe('tenancy', () => {
    it("adds the apex for the uploading team only, beside another team's asset of the same name", async () => {
      const other = await h.team('tenancy-owner');
      const owned = (
        await h.send('POST', '/rest/v2/assets/', { key: other.key, body: { name: 'shared.test' } })
      ).json() as WireAsset;
      await h.admin('asset', 'verify', 'shared.test', '--team', 'tenancy-owner');
      const { key } = await h.team('tenancy-uploader');
      assert.deepEqual((await upload(key, 'shared.test', zoneOf('shared.test'))).json(), { indexed: 4 });
      const [mine] = await roots(key);
      assert.notEqual(mine?.token, owned.token);
      assert.deepEqual([mine?.name, mine?.status, mine?.added_by], ['shared.test', 'unverified', ['zone-file']]);
      // The other team's asset and its (empty) subdomains are untouched; its verified status does not leak.
      assert.deepEqual(
        (await roots(other.key)).map((a) => [a.token, a.status, a.added_by]),
        [[owned.token, 'verified', ['manual']]],
      );
      assert.deepEqual(await subdomainsOf(other.key, owned.token), []);
      const peek = await h.send('GET', `/rest/v2/assets/${mine!.token}/subdomains/`, { key: other.key });
      assert.equal(peek.json().code, 2014);
    });
  });

  describe('zone lookup upload (unchanged)', () => {
    it("adds no asset: names outside the team's assets count as failed", async () => {
      const { key } = await h.team('lookup-unchanged');
      const res = await h.send('POST', '/rest/v2/zone/lookup/file/', { key, body: 'www.axfr.test\naxfr.test\n' });
      assert.equal(res.statusCode, 202);
      const uuid = res.json().lookup_job_uuid as string;
      await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 100 });
      const done = await waitUntil('the lookup to finish', async () => {
        const body = (await h.send('GET', `/rest/v2/zone/lookup/${uuid}/`, { key })).json();
        return body.status === 'done' ? body : undefined;
      });
      assert.deepEqual(done, { uuid, status: 'done', total: 2, succeeded: 0, failed: 2 });
      assert.deepEqual(await allNames(key), []);
    });
  });
});
