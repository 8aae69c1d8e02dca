import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createNs1Adapter, ns1Adapter } from '../../src/engine/connectors/ns1.adapter.ts';
import { adapterContext, closedPort, deniedContext, failureOf } from '../support/connector-context.ts';
import { startFakeNs1, type FakeNs1, type FakeNs1Record } from '../support/fake-providers/ns1.ts';

const key = 'NS1-KEY-qL9vX2mT7pR4sW8z';
const options = { api_key: key };
const fast = { retries: 2, maxDelayMs: 20 };

const exampleRecords: FakeNs1Record[] = [
  { domain: 'example.com', type: 'A', ttl: 300, short_answers: ['203.0.113.10', '203.0.113.11'] },
  { domain: 'www.example.com', type: 'CNAME', ttl: 3600, short_answers: ['example.com'] },
  { domain: 'example.com', type: 'MX', ttl: 3600, short_answers: ['10 mail.example.com', '20 mx2.example.net.'] },
  { domain: 'example.com', type: 'TXT', ttl: 3600, short_answers: ['v=spf1 -all'] },
  { domain: 'Example.com', type: 'NS', ttl: 86400, short_answers: ['dns1.p01.nsone.net'] },
  { domain: '_sip._tcp.example.com', type: 'SRV', ttl: 3600, short_answers: ['10 5 5060 sip.example.com'] },
  { domain: 'example.com', type: 'CAA', ttl: 3600, short_answers: ['0 issue letsencrypt.org'] },
  { domain: 'v6.example.com', type: 'AAAA', ttl: 60, short_answers: ['2001:db8::1'] },
  { domain: 'apex-alias.example.com', type: 'ALIAS', ttl: 60, short_answers: ['lb.example.net'] },
  { domain: 'linked.example.com', type: 'A', ttl: 60, short_answers: [], link: 'example.com' },
];

describe('NS1 connector (DNS_H)', () => {
  let ns1: FakeNs1;

  before(async () => {
    ns1 = await startFakeNs1(key, {
      'example.com': exampleRecords,
      'example.org': [{ domain: 'api.example.org', type: 'A', ttl: 120, short_answers: ['198.51.100.7'] }],
    });
    ns1.recordPageSize = 100;
  });
  after(() => ns1.close());

  it('collects every zone with its records in presentation form', async () => {
    ns1.requests.length = 0;
    const inventory = await ns1Adapter.collect(adapterContext(options, ns1.url));
    assert.deepEqual(inventory, {
      zones: [
        {
          name: 'example.com',
          records: [
            { name: 'example.com', ttl: 300, type: 'A', data: '203.0.113.10' },
            { name: 'example.com', ttl: 300, type: 'A', data: '203.0.113.11' },
            { name: 'www.example.com', ttl: 3600, type: 'CNAME', data: 'example.com.' },
            { name: 'example.com', ttl: 3600, type: 'MX', data: '10 mail.example.com.' },
            { name: 'example.com', ttl: 3600, type: 'MX', data: '20 mx2.example.net.' },
            { name: 'example.com', ttl: 3600, type: 'TXT', data: '"v=spf1 -all"' },
            { name: 'example.com', ttl: 86400, type: 'NS', data: 'dns1.p01.nsone.net.' },
            { name: '_sip._tcp.example.com', ttl: 3600, type: 'SRV', data: '10 5 5060 sip.example.com.' },
            { name: 'example.com', ttl: 3600, type: 'CAA', data: '0 issue "letsencrypt.org"' },
            { name: 'v6.example.com', ttl: 60, type: 'AAAA', data: '2001:db8::1' },
          ],
        },
        { name: 'example.org', records: [{ name: 'api.example.org', ttl: 120, type: 'A', data: '198.51.100.7' }] },
      ],
      addresses: [],
      hostnames: [],
    });
    assert.ok(ns1.requests.every((r) => r.headers['x-nsone-key'] === key));
    assert.deepEqual(
      ns1.requests.map((r) => r.url),
      ['/v1/zones', '/v1/zones/example.com', '/v1/zones/example.org'],
    );
  });

  it("follows the Link pages of the zone list and of a zone's records", async () => {
    const zones: Record<string, FakeNs1Record[]> = {};
    for (let i = 0; i < 7; i += 1)
      zones[`z${i}.example`] = Array.from({ length: 8 }, (_, j) => ({
        domain: `h${j}.z${i}.example`,
        type: 'A',
        ttl: 60,
        short_answers: [`192.0.2.${j + 1}`],
      }));
    const many = await startFakeNs1(key, zones);
    try {
      const inventory = await createNs1Adapter(fast).collect(adapterContext(options, many.url));
      assert.deepEqual(
        inventory.zones.map((z) => z.name),
        Array.from({ length: 7 }, (_, i) => `z${i}.example`),
      );
      for (const zone of inventory.zones) assert.equal(zone.records.length, 8);
      assert.deepEqual(inventory.zones[3]?.records[7], {
        name: 'h7.z3.example',
        ttl: 60,
        type: 'A',
        data: '192.0.2.8',
      });
      assert.equal(many.requests.filter((r) => r.url.startsWith('/v1/zones?') || r.url === '/v1/zones').length, 4);
      assert.deepEqual(
        many.requests.filter((r) => r.url.startsWith('/v1/zones/z0.example')).map((r) => r.url),
        [
          '/v1/zones/z0.example',
          '/v1/zones/z0.example?records_offset=3&records_limit=3',
          '/v1/zones/z0.example?records_offset=6&records_limit=3',
        ],
      );
    } finally {
      await many.close();
    }
  });

  it('retries a throttled answer after the rate-limit period and succeeds', async () => {
    ns1.requests.length = 0;
    ns1.throttleNext = 2;
    const inventory = await createNs1Adapter(fast).collect(adapterContext(options, ns1.url));
    assert.equal(inventory.zones.length, 2);
    assert.equal(ns1.requests.filter((r) => r.url === '/v1/zones').length, 3);
  });

  it('waits the X-RateLimit-Period a throttled answer gives', async () => {
    ns1.throttleNext = 1;
    const started = Date.now();
    await createNs1Adapter({ retries: 2, maxDelayMs: 5000 }).collect(adapterContext(options, ns1.url));
    assert.ok(Date.now() - started >= 950, 'the retry came before the rate-limit period (1 s)');
  });

  it('fails as throttled when the throttling never stops', async () => {
    ns1.throttleNext = 1000;
    try {
      const err = await failureOf(createNs1Adapter(fast).collect(adapterContext(options, ns1.url)));
      assert.equal(err.kind, 'throttled');
      assert.match(err.message, /Rate limit exceeded/);
    } finally {
      ns1.throttleNext = 0;
    }
  });

  it('maps a refused key and forbidden access without showing the key', async () => {
    const bad = await failureOf(ns1Adapter.collect(adapterContext({ api_key: 'WRONG-ns1-key-55' }, ns1.url)));
    assert.equal(bad.kind, 'credentials');
    assert.match(bad.message, /Unauthorized/);
    assert.ok(!bad.message.includes('WRONG-ns1-key-55'));
    ns1.forbid = true;
    try {
      const forbidden = await failureOf(ns1Adapter.collect(adapterContext(options, ns1.url)));
      assert.equal(forbidden.kind, 'permission');
      assert.ok(!forbidden.message.includes(key));
    } finally {
      ns1.forbid = false;
    }
  });

  it('collects a zone of 10,000 records whole', async () => {
    const big = await startFakeNs1(key, {
      'big.example': Array.from({ length: 10_000 }, (_, i) => ({
        domain: `n${i}.big.example`,
        type: i % 2 === 0 ? 'A' : 'TXT',
        ttl: 300,
        short_answers: [i % 2 === 0 ? `10.0.${(i >> 8) & 255}.${i & 255}` : `token-${i}`],
      })),
    });
    big.recordPageSize = 1000;
    try {
      const inventory = await createNs1Adapter(fast).collect(adapterContext(options, big.url));
      const records = inventory.zones[0]?.records ?? [];
      assert.equal(records.length, 10_000);
      assert.deepEqual(records[0], { name: 'n0.big.example', ttl: 300, type: 'A', data: '10.0.0.0' });
      assert.deepEqual(records[9_999], { name: 'n9999.big.example', ttl: 300, type: 'TXT', data: '"token-9999"' });
      assert.deepEqual(records[4_242], { name: 'n4242.big.example', ttl: 300, type: 'A', data: '10.0.16.146' });
      assert.equal(big.requests.length, 1 + 10);
    } finally {
      await big.close();
    }
  });

  it('reports an unreachable API: a closed port, and an address the egress guard refuses', async () => {
    const closed = await failureOf(
      ns1Adapter.collect(adapterContext(options, `http://127.0.0.1:${await closedPort()}`)),
    );
    assert.equal(closed.kind, 'unreachable');
    ns1.requests.length = 0;
    const denied = await failureOf(ns1Adapter.collect(deniedContext(options, ns1.url)));
    assert.equal(denied.kind, 'unreachable');
    assert.match(denied.message, /denied by egress guard/);
    assert.equal(ns1.requests.length, 0);
  });

  it('stops promptly when the run is aborted', async () => {
    ns1.throttleNext = 1000;
    ns1.ratePeriod = 30;
    const controller = new AbortController();
    try {
      const started = Date.now();
      const run = createNs1Adapter({ retries: 9, maxDelayMs: 30_000 }).collect(
        adapterContext(options, ns1.url, { signal: controller.signal }),
      );
      setTimeout(() => controller.abort(new Error('stopped by the test')), 150);
      await assert.rejects(run, /stopped by the test/);
      assert.ok(Date.now() - started < 2000);
    } finally {
      ns1.throttleNext = 0;
      ns1.ratePeriod = 1;
    }
  });
});
