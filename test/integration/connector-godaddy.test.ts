import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGoDaddyAdapter, goDaddyAdapter } from '../../src/engine/connectors/godaddy.adapter.ts';
import { adapterContext, closedPort, deniedContext, failureOf } from '../support/connector-context.ts';
import { startFakeGoDaddy, type FakeGoDaddy, type FakeGoDaddyRecord } from '../support/fake-providers/godaddy.ts';

const key = 'dLP4wKz5_GDkey0123456789';
const secret = 'SECRET-gd-5f4e3d2c1b0a';
const options = { api_key: key, api_secret: secret };
const fast = { retry: { retries: 2, maxDelayMs: 20 } };

const exampleRecords: FakeGoDaddyRecord[] = [
  { type: 'A', name: '@', data: '203.0.113.10', ttl: 600 },
  { type: 'AAAA', name: 'www', data: '2001:db8::10', ttl: 3600 },
  { type: 'CNAME', name: 'shop', data: 'shops.myshopify.com', ttl: 3600 },
  { type: 'CNAME', name: 'WWW2', data: '@', ttl: 3600 },
  { type: 'MX', name: '@', data: 'mail.example.com', ttl: 3600, priority: 10 },
  { type: 'TXT', name: '@', data: 'v=spf1 include:_spf.google.com ~all', ttl: 3600 },
  { type: 'NS', name: '@', data: 'ns01.domaincontrol.com', ttl: 3600 },
  {
    type: 'SRV',
    name: '@',
    data: 'sip.example.com',
    ttl: 3600,
    priority: 10,
    weight: 5,
    port: 5060,
    service: '_sip',
    protocol: '_tcp',
  },
  { type: 'CAA', name: '@', data: '0 issue "letsencrypt.org"', ttl: 3600 },
  { type: 'SOA', name: '@', data: 'Primary nameserver: ns01.domaincontrol.com.', ttl: 3600 },
];

describe('GoDaddy connector (REGISTRAR_G)', () => {
  let gd: FakeGoDaddy;

  before(async () => {
    gd = await startFakeGoDaddy(key, secret, [
      { domain: 'example.com', status: 'ACTIVE', records: exampleRecords },
      {
        domain: 'example.org',
        status: 'ACTIVE',
        records: [{ type: 'A', name: 'api', data: '198.51.100.7', ttl: 300 }],
      },
      { domain: 'parked.io', status: 'ACTIVE', records: [], isDnsHosted: false },
      { domain: 'gone.net', status: 'CANCELLED', records: [{ type: 'A', name: '@', data: '192.0.2.1', ttl: 300 }] },
    ]);
  });
  after(() => gd.close());

  it('collects every active domain with its records in presentation form', async () => {
    gd.requests.length = 0;
    const inventory = await goDaddyAdapter.collect(adapterContext(options, gd.url));
    assert.deepEqual(inventory, {
      zones: [
        {
          name: 'example.com',
          records: [
            { name: 'example.com', ttl: 600, type: 'A', data: '203.0.113.10' },
            { name: 'www.example.com', ttl: 3600, type: 'AAAA', data: '2001:db8::10' },
            { name: 'shop.example.com', ttl: 3600, type: 'CNAME', data: 'shops.myshopify.com.' },
            { name: 'www2.example.com', ttl: 3600, type: 'CNAME', data: 'example.com.' },
            { name: 'example.com', ttl: 3600, type: 'MX', data: '10 mail.example.com.' },
            { name: 'example.com', ttl: 3600, type: 'TXT', data: '"v=spf1 include:_spf.google.com ~all"' },
            { name: 'example.com', ttl: 3600, type: 'NS', data: 'ns01.domaincontrol.com.' },
            { name: '_sip._tcp.example.com', ttl: 3600, type: 'SRV', data: '10 5 5060 sip.example.com.' },
            { name: 'example.com', ttl: 3600, type: 'CAA', data: '0 issue "letsencrypt.org"' },
          ],
        },
        { name: 'example.org', records: [{ name: 'api.example.org', ttl: 300, type: 'A', data: '198.51.100.7' }] },
      ],
      addresses: [],
      hostnames: [],
    });
    assert.ok(gd.requests.every((r) => r.headers.authorization === `sso-key ${key}:${secret}`));
    assert.match(gd.requests[0]?.url ?? '', /^\/v1\/domains\?statuses=ACTIVE&limit=1000$/);
    assert.ok(!gd.requests.some((r) => r.url.includes('gone.net')));
    assert.ok(gd.requests.some((r) => r.url.startsWith('/v1/domains/parked.io/records')));
  });

  it('pages the domain list by marker and the records by offset', async () => {
    const many = await startFakeGoDaddy(
      key,
      secret,
      Array.from({ length: 7 }, (_, i) => ({
        domain: `d${i}.example`,
        status: 'ACTIVE' as const,
        records: Array.from({ length: 7 }, (_, j) => ({ type: 'A', name: `h${j}`, data: `192.0.2.${j + 1}`, ttl: 60 })),
      })),
    );
    try {
      const adapter = createGoDaddyAdapter({ domainPageSize: 2, recordPageSize: 3, ...fast });
      const inventory = await adapter.collect(adapterContext(options, many.url));
      assert.deepEqual(
        inventory.zones.map((z) => z.name),
        Array.from({ length: 7 }, (_, i) => `d${i}.example`),
      );
      for (const zone of inventory.zones) assert.equal(zone.records.length, 7);
      assert.equal(inventory.zones[6]?.records[6]?.name, 'h6.d6.example');
      const domainPages = many.requests.filter((r) => r.url.startsWith('/v1/domains?'));
      assert.equal(domainPages.length, 4);
      assert.match(domainPages[1]?.url ?? '', /marker=d1\.example/);
      const recordPages = many.requests.filter((r) => r.url.startsWith('/v1/domains/d0.example/records'));
      assert.deepEqual(
        recordPages.map((r) => new URL(r.url, 'http://x').searchParams.get('offset')),
        ['0', '3', '6'],
      );
    } finally {
      await many.close();
    }
  });

  it('retries throttled answers and succeeds', async () => {
    gd.requests.length = 0;
    gd.throttleNext = 2;
    const inventory = await createGoDaddyAdapter(fast).collect(adapterContext(options, gd.url));
    assert.equal(inventory.zones.length, 2);
    assert.equal(gd.requests.filter((r) => r.url.startsWith('/v1/domains?')).length, 3);
  });

  it('waits the retryAfterSec a throttled answer asks for', async () => {
    gd.throttleNext = 1;
    const started = Date.now();
    await createGoDaddyAdapter({ retry: { retries: 2, maxDelayMs: 5000 } }).collect(adapterContext(options, gd.url));
    assert.ok(Date.now() - started >= 950, 'the retry came before retryAfterSec (1 s)');
  });

  it('fails as throttled when the throttling never stops', async () => {
    gd.throttleNext = 1000;
    try {
      const err = await failureOf(createGoDaddyAdapter(fast).collect(adapterContext(options, gd.url)));
      assert.equal(err.kind, 'throttled');
      assert.match(err.message, /TOO_MANY_REQUESTS/);
    } finally {
      gd.throttleNext = 0;
    }
  });

  it('maps refused credentials and forbidden access without showing the secret', async () => {
    const bad = await failureOf(
      goDaddyAdapter.collect(adapterContext({ ...options, api_secret: 'WRONG-secret-77' }, gd.url)),
    );
    assert.equal(bad.kind, 'credentials');
    assert.match(bad.message, /UNABLE_TO_AUTHENTICATE/);
    assert.ok(!bad.message.includes('WRONG-secret-77') && !bad.message.includes(key));
    gd.forbid = true;
    try {
      const forbidden = await failureOf(goDaddyAdapter.collect(adapterContext(options, gd.url)));
      assert.equal(forbidden.kind, 'permission');
      assert.match(forbidden.message, /ACCESS_DENIED/);
      assert.ok(!forbidden.message.includes(secret));
    } finally {
      gd.forbid = false;
    }
  });

  it('collects a zone of 10,000 records whole', async () => {
    const big = await startFakeGoDaddy(key, secret, [
      {
        domain: 'big.example',
        status: 'ACTIVE',
        records: Array.from({ length: 10_000 }, (_, i) => ({
          type: i % 2 === 0 ? 'A' : 'TXT',
          name: `n${i}`,
          data: i % 2 === 0 ? `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` : `token-${i}`,
          ttl: 300,
        })),
      },
    ]);
    try {
      const inventory = await createGoDaddyAdapter({ recordPageSize: 1000, ...fast }).collect(
        adapterContext(options, big.url),
      );
      const records = inventory.zones[0]?.records ?? [];
      assert.equal(records.length, 10_000);
      assert.deepEqual(records[0], { name: 'n0.big.example', ttl: 300, type: 'A', data: '10.0.0.0' });
      assert.deepEqual(records[9_999], { name: 'n9999.big.example', ttl: 300, type: 'TXT', data: '"token-9999"' });
      assert.deepEqual(records[4_242], { name: 'n4242.big.example', ttl: 300, type: 'A', data: '10.0.16.146' });
      assert.equal(big.requests.length, 1 + 11);
    } finally {
      await big.close();
    }
  });

  it('reports an unreachable API: a closed port, and an address the egress guard refuses', async () => {
    const closed = await failureOf(
      goDaddyAdapter.collect(adapterContext(options, `http://127.0.0.1:${await closedPort()}`)),
    );
    assert.equal(closed.kind, 'unreachable');
    gd.requests.length = 0;
    const denied = await failureOf(goDaddyAdapter.collect(deniedContext(options, gd.url)));
    assert.equal(denied.kind, 'unreachable');
    assert.match(denied.message, /denied by egress guard/);
    assert.equal(gd.requests.length, 0);
  });

  it('stops promptly when the run is aborted', async () => {
    gd.throttleNext = 1000;
    gd.retryAfterSec = 30;
    const controller = new AbortController();
    try {
      const started = Date.now();
      const run = createGoDaddyAdapter({ retry: { retries: 9, maxDelayMs: 30_000 } }).collect(
        adapterContext(options, gd.url, { signal: controller.signal }),
      );
      setTimeout(() => controller.abort(new Error('stopped by the test')), 150);
      await assert.rejects(run, /stopped by the test/);
      assert.ok(Date.now() - started < 2000);
    } finally {
      gd.throttleNext = 0;
      gd.retryAfterSec = 1;
    }
  });
});
