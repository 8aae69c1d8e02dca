import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventRecord } from '../../src/core/events/event.types.ts';
import type { Team } from '../../src/core/teams/team.types.ts';
import { seedVulnerabilities } from '../../src/core/vulnerabilities/seed.service.ts';
import { runLookupJob } from '../../src/core/zones/zone-lookup.service.ts';
import type { NameResolver } from '../../src/core/zones/zone-lookup.types.ts';
import type { DnsRecordInput } from '../../src/core/zones/zone.types.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { assertCatalogued, eventsOf } from '../support/events.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';

/** Resolves names starting with `ok` to an address and fails the rest (no network). */
const scriptedResolver: NameResolver = {
  async resolveNames(names) {
    const out = new Map<string, DnsRecordInput[] | null>();
    for (const name of names)
      out.set(name, name.startsWith('ok') ? [{ name, ttl: 300, type: 'A', data: '192.0.2.1' }] : null);
    return out;
  },
};

/**
 * The team event log of assets and zone lookups (issue 34, item 1): `asset.added` by every add
 * path (v2, zone file, seeding), `asset.removed`, `asset.verified` (ownership proven, or an
 * operator's decision: once), `zone_lookup.finished` (once); each event with exactly its
 * catalogue fields, in the team's log only.
 */
describe(`the event log of assets and zone lookups (${testStore})`, () => {
  const dns = new TestDnsServer();
  let h: Harness;
  let key: string;
  let team: Team;
  let other: Team;
  let code: string;
  let seen = 0;

  before(async () => {
    await dns.start();
    h = await createHarness({ dnsResolvers: [dns.address], egressAllow: ['127.0.0.0/8'] });
    code = JSON.parse(await h.admin('team', 'create', 'assets-log', '--json')).verification_code;
    key = (await h.key('assets-log')).key;
    await h.team('bystander');
    team = (await h.runtime.store.teams.findByName('assets-log'))!;
    other = (await h.runtime.store.teams.findByName('bystander'))!;
  });
  after(async () => {
    await h.runtime.verification.settle();
    await h.close();
    await dns.stop();
  });

  /** The team's events written since the last call, each checked against the catalogue. */
  const fresh = async (): Promise<EventRecord[]> => {
    await h.runtime.verification.settle();
    const events = (await eventsOf(h.runtime.store, team.id)).filter((e) => e.id > seen);
    for (const e of events) assertCatalogued(e);
    seen = events.at(-1)?.id ?? seen;
    return events;
  };
  const summary = (events: EventRecord[]) =>
    events.map((e) => [e.kind, e.data['asset_name'], e.data['type'], e.assetId]);
  const add = async (name: string) => {
    const res = await h.send('POST', '/rest/v2/assets/', { key, body: { name } });
    assert.ok(res.statusCode < 500, res.body);
    return res;
  };
  const idOf = async (name: string) => (await h.runtime.store.assets.findByName(team.id, name))!.id;

  it('logs asset.added for an asset added through v2, its subdomain asset (under its root) and an IP address', async () => {
    const root = (await add('example.test')).json();
    await add('www.example.test');
    await add('192.0.2.44');
    const events = await fresh();
    const rootId = await idOf('example.test');
    assert.deepEqual(summary(events), [
      ['asset.added', 'example.test', 'domain', rootId],
      ['asset.added', 'www.example.test', 'domain', rootId],
      ['asset.added', '192.0.2.44', 'ip', await idOf('192.0.2.44')],
    ]);
    assert.equal(events[0]!.data['asset_token'], root.token);
    assert.equal((await add('example.test')).statusCode, 409, 'a duplicate is refused');
    assert.deepEqual(await fresh(), [], 'and logs nothing');
  });

  it('logs asset.verified once: by the ownership check after an add, then by an operator, never for an asset already verified', async () => {
    dns.set('proven.test', { txt: [`perimeter-verification=${code}`] });
    await add('proven.test');
    assert.deepEqual(summary(await fresh()), [
      ['asset.added', 'proven.test', 'domain', await idOf('proven.test')],
      ['asset.verified', 'proven.test', 'domain', await idOf('proven.test')],
    ]);
    await h.admin('asset', 'check', 'proven.test');
    await h.admin('asset', 'verify', 'proven.test');
    assert.deepEqual(await fresh(), [], 'already verified');
    await h.admin('asset', 'verify', 'example.test', '--team', 'assets-log');
    assert.deepEqual(summary(await fresh()), [
      ['asset.verified', 'example.test', 'domain', await idOf('example.test')],
    ]);
  });

  it('logs asset.removed for a deleted asset, nothing for a refused deletion', async () => {
    const token = (await h.runtime.store.assets.findByName(team.id, '192.0.2.44'))!.token;
    const id = await idOf('192.0.2.44');
    assert.equal((await h.send('DELETE', `/rest/v2/assets/${token}/`, { key })).statusCode, 200);
    assert.equal((await h.send('DELETE', `/rest/v2/assets/${token}/`, { key })).statusCode, 404);
    const events = await fresh();
    assert.deepEqual(summary(events), [['asset.removed', '192.0.2.44', 'ip', id]]);
    assert.equal(events[0]!.data['asset_token'], token);
  });

  it('logs asset.added for the apex a zone file upload adds, once', async () => {
    const zone =
      '$ORIGIN zoned.test.\n$TTL 300\n@ IN SOA ns1 hm 1 2 3 4 5\n@ IN NS ns1\nns1 IN A 192.0.2.53\nwww IN A 192.0.2.10\n';
    const upload = () => h.send('POST', '/rest/v2/zone/file/?origin=zoned.test', { key, body: zone });
    assert.equal((await upload()).statusCode, 200);
    assert.equal((await upload()).statusCode, 200);
    const events = await fresh();
    assert.deepEqual(summary(events), [['asset.added', 'zoned.test', 'domain', await idOf('zoned.test')]]);
  });

  it('logs zone_lookup.finished once a lookup job is done, once however often it runs', async () => {
    const list = ['ok1.example.test', 'ok2.example.test', 'missing.example.test', 'outside.org', 'ok1.example.test'];
    const res = await h.send('POST', '/rest/v2/zone/lookup/file/', {
      key,
      body: list.join('\n'),
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(res.statusCode, 202, res.body);
    const uuid = res.json().lookup_job_uuid as string;
    const done = await runLookupJob(h.runtime.store, scriptedResolver, uuid, new AbortController().signal);
    await runLookupJob(h.runtime.store, scriptedResolver, uuid, new AbortController().signal);
    const events = await fresh();
    assert.equal(events.length, 1, JSON.stringify(events));
    const [finished] = events;
    assert.equal(finished!.kind, 'zone_lookup.finished');
    assert.deepEqual(
      { ...finished!.data, finished_at: undefined },
      { lookup_token: uuid, names: 5, found: 2, finished_at: undefined },
    );
    assert.equal(finished!.data['finished_at'], done!.finished!.toISOString().slice(0, 19) + 'Z');
    assert.equal(finished!.assetId, null);
  });

  it('logs asset.added and asset.verified for the assets a seed adds, and the findings it records', async () => {
    await seedVulnerabilities(h.runtime, team, 30, { detailsPageBase: 'http://localhost:8080' });
    const events = await fresh();
    const added = events.filter((e) => e.kind === 'asset.added').map((e) => e.data['asset_name']);
    const verified = events.filter((e) => e.kind === 'asset.verified').map((e) => e.data['asset_name']);
    assert.ok(added.length >= 3, JSON.stringify(added));
    assert.deepEqual(verified, added);
    assert.ok(events.filter((e) => e.kind === 'vulnerability.new').length >= 30);
  });

  it("keeps every event in its own team's log: the other team's stays empty", async () => {
    assert.deepEqual(await eventsOf(h.runtime.store, other.id), []);
    for (const e of await eventsOf(h.runtime.store, team.id)) assert.equal(e.teamId, team.id);
  });
});
