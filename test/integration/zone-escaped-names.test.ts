import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { startBind, type BindServer } from '../support/bind-server.ts';
import { createHarness, type Harness, type TestKey } from '../support/harness.ts';
import { waitUntil } from '../support/test-jobs.ts';

/**
 * A label may hold a dot byte: `a\.b.example.test.` is the label `a.b` under example.test, not
 * `a` under b.example.test. Zone files, transfers and lookups must match such names to the
 * team's roots label by label. The team has two roots, example.test and b.example.test (added
 * first, so both are roots), so a dot taken for a separator shows as the wrong root.
 */

const zoneText = `$ORIGIN example.test.
$TTL 300
@         SOA   ns1 hostmaster 1 7200 3600 1209600 300
@         NS    ns1
ns1       A     192.0.2.53
a\\.b      A     192.0.2.1
www.b     A     192.0.2.2
alias     CNAME a\\.b
`;
// An absolute owner outside the zone: `evil.example` under test. Not under example.test.
const outside = 'evil\\.example.test. 300 A 192.0.2.9\n';
const underExample = ['a\\.b.example.test', 'alias.example.test', 'ns1.example.test'];

describe('names with escaped dots are matched to roots label by label', () => {
  let h: Harness;
  let bind: BindServer;
  let owner: TestKey;
  const tokens: Record<string, string> = {};

  before(async () => {
    bind = await startBind([{ name: 'example.test', text: zoneText }]);
    h = await createHarness({ dnsResolvers: [bind.address], egressAllow: ['127.0.0.0/8'] });
    owner = await h.team('escaped');
    for (const name of ['b.example.test', 'example.test']) {
      const res = await h.send('POST', '/rest/v2/assets/', { key: owner.key, body: { name } });
      assert.equal(res.statusCode, 200, res.body);
      tokens[name] = res.json().token;
    }
  });
  after(async () => {
    await h.close();
    await bind.stop();
  });

  const subdomains = async (root: string) => {
    const res = await h.send('GET', `/rest/v2/assets/${tokens[root]}/subdomains/?pageSize=1000`, { key: owner.key });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json().assets as Array<{ name: string; added_by: string[] }>).map((a) => [a.name, a.added_by] as const);
  };

  it('a zone file upload lists a\\.b under example.test, not under b.example.test, and skips evil\\.example.test', async () => {
    const res = await h.send('POST', '/rest/v2/zone/file/?origin=example.test', {
      key: owner.key,
      body: zoneText + outside,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { indexed: 5 });
    assert.deepEqual((await subdomains('example.test')).map(([name]) => name).sort(), underExample);
    assert.deepEqual(await subdomains('b.example.test'), [['www.b.example.test', ['zone-file']]]);
  });

  it('a zone transfer, whose names are wire labels, matches them the same way', async () => {
    const res = await h.send('POST', '/rest/v2/zone/transfer/', {
      key: owner.key,
      body: { nameServer: bind.address, zone: 'example.test' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { indexed: 5 });
    const names = await subdomains('example.test');
    assert.deepEqual(names.map(([name]) => name).sort(), underExample);
    assert.deepEqual(names.find(([name]) => name === 'a\\.b.example.test')?.[1], ['zone-file', 'zone-transfer']);
    assert.deepEqual(await subdomains('b.example.test'), [['www.b.example.test', ['zone-file', 'zone-transfer']]]);
  });

  it('a lookup whose answer leads to a\\.b.example.test (a CNAME) indexes it under example.test', async () => {
    const res = await h.send('POST', '/rest/v2/zone/lookup/file/', { key: owner.key, body: 'alias.example.test\n' });
    assert.equal(res.statusCode, 202, res.body);
    const uuid = res.json().lookup_job_uuid as string;
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 100 });
    await waitUntil('the lookup to finish', async () =>
      (await h.send('GET', `/rest/v2/zone/lookup/${uuid}/`, { key: owner.key })).json().status === 'done'
        ? true
        : undefined,
    );
    const names = await subdomains('example.test');
    assert.deepEqual(names.find(([name]) => name === 'a\\.b.example.test')?.[1], [
      'zone-file',
      'zone-transfer',
      'zone-lookup',
    ]);
    assert.deepEqual(
      (await subdomains('b.example.test')).map(([name]) => name),
      ['www.b.example.test'],
    );
  });
});
