import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { cloudflareAdapter } from '../../src/engine/connectors/cloudflare.adapter.ts';
import { adapterContext, closedPort, deniedContext, failureOf } from '../support/connector-context.ts';
import {
  startFakeCloudflare,
  type FakeCloudflare,
  type FakeCloudflareZone,
} from '../support/fake-providers/cloudflare.ts';

const token = 'cfTOKEN-s3cr3t-9a8b7c6d5e4f3a2b1c0d';
const accountA = 'a'.repeat(32);
const accountB = 'b'.repeat(32);
const zoneId = (n: number) => n.toString(16).padStart(32, '0');

function seedZones(): FakeCloudflareZone[] {
  return [
    {
      id: zoneId(1),
      name: 'example.com',
      accountId: accountA,
      records: [
        { name: 'example.com', type: 'A', content: '192.0.2.10', proxied: true, ttl: 1 },
        { name: 'www.example.com', type: 'AAAA', content: '2001:db8::10', proxied: true },
        { name: 'API.Example.com', type: 'A', content: '192.0.2.20', proxied: true, ttl: 1 },
        { name: 'shop.example.com', type: 'CNAME', content: 'shops.myshopify.com', ttl: 3600 },
        { name: 'example.com', type: 'MX', content: 'mail.example.com', priority: 10, ttl: 300 },
        { name: 'example.com', type: 'TXT', content: '"v=spf1 include:_spf.example.net ~all"', ttl: 300 },
        { name: '_old.example.com', type: 'TXT', content: 'legacy "text"', ttl: 300 },
        { name: 'sub.example.com', type: 'NS', content: 'ns1.other.net', ttl: 86400 },
        {
          name: '_sip._tcp.example.com',
          type: 'SRV',
          content: '5 5060 sip.example.com',
          priority: 10,
          data: { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' },
          ttl: 600,
        },
        {
          name: 'example.com',
          type: 'CAA',
          content: '0 issue "letsencrypt.org"',
          data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
          ttl: 300,
        },
        { name: 'example.com', type: 'HTTPS', content: '1 . alpn="h2,h3"', ttl: 300 },
      ],
    },
    {
      id: zoneId(2),
      name: 'Example.ORG',
      accountId: accountB,
      records: [
        { name: 'example.org', type: 'A', content: '198.51.100.7', ttl: 120 },
        { name: 'www.example.org', type: 'CNAME', content: 'example.org', proxied: true, ttl: 1 },
      ],
    },
  ];
}

describe('Cloudflare connector (CDN_D)', () => {
  let cf: FakeCloudflare;
  const run = (options: Record<string, string> = { api_token: token }) =>
    cloudflareAdapter.collect(adapterContext(options, cf.baseUrl));

  before(async () => {
    cf = await startFakeCloudflare(seedZones(), token);
  });
  after(() => cf.stop());
  afterEach(() => {
    cf.zones = seedZones();
    cf.pageSize = { zones: 50, records: 5000 };
    cf.throttle = { remaining: 0, retryAfter: '0' };
    cf.refusal = 'none';
    cf.delayMs = 0;
    cf.requests.length = 0;
  });

  it('collects every zone with its records in presentation form, and proxied names as host names', async () => {
    const inventory = await run();
    assert.deepEqual(inventory, {
      zones: [
        {
          name: 'example.com',
          records: [
            { name: 'example.com', type: 'A', ttl: 300, data: '192.0.2.10' },
            { name: 'www.example.com', type: 'AAAA', ttl: 300, data: '2001:db8::10' },
            { name: 'api.example.com', type: 'A', ttl: 300, data: '192.0.2.20' },
            { name: 'shop.example.com', type: 'CNAME', ttl: 3600, data: 'shops.myshopify.com.' },
            { name: 'example.com', type: 'MX', ttl: 300, data: '10 mail.example.com.' },
            { name: 'example.com', type: 'TXT', ttl: 300, data: '"v=spf1 include:_spf.example.net ~all"' },
            { name: '_old.example.com', type: 'TXT', ttl: 300, data: '"legacy \\"text\\""' },
            { name: 'sub.example.com', type: 'NS', ttl: 86400, data: 'ns1.other.net.' },
            { name: '_sip._tcp.example.com', type: 'SRV', ttl: 600, data: '10 5 5060 sip.example.com.' },
            { name: 'example.com', type: 'CAA', ttl: 300, data: '0 issue "letsencrypt.org"' },
            { name: 'example.com', type: 'HTTPS', ttl: 300, data: '1 . alpn="h2,h3"' },
          ],
        },
        {
          name: 'example.org',
          records: [
            { name: 'example.org', type: 'A', ttl: 120, data: '198.51.100.7' },
            { name: 'www.example.org', type: 'CNAME', ttl: 300, data: 'example.org.' },
          ],
        },
      ],
      addresses: [],
      hostnames: [
        { name: 'example.com', source: 'cloudflare proxied record' },
        { name: 'www.example.com', source: 'cloudflare proxied record' },
        { name: 'api.example.com', source: 'cloudflare proxied record' },
        { name: 'www.example.org', source: 'cloudflare proxied record' },
      ],
    });
    assert.deepEqual(
      cf.requests.map((r) => `${r.method} ${r.path}`),
      [
        'GET /client/v4/zones',
        'GET /client/v4/zones/' + zoneId(1) + '/dns_records',
        'GET /client/v4/zones/' + zoneId(2) + '/dns_records',
      ],
    );
    for (const r of cf.requests) assert.equal(r.headers.authorization, `Bearer ${token}`);
    assert.equal(cf.requests[0]?.query.get('account.id'), null);
  });

  it('reads only the zones of account_id when it is set', async () => {
    const inventory = await run({ api_token: token, account_id: accountB });
    assert.deepEqual(
      inventory.zones.map((z) => z.name),
      ['example.org'],
    );
    assert.equal(cf.requests[0]?.query.get('account.id'), accountB);
  });

  it('reads every page of zones and of records, and stops at total_pages', async () => {
    cf.zones = Array.from({ length: 7 }, (_, i) => ({
      id: zoneId(100 + i),
      name: `zone${i}.example`,
      accountId: accountA,
      records: Array.from({ length: i === 3 ? 11 : 1 }, (_, j) => ({
        name: `h${j}.zone${i}.example`,
        type: 'A',
        content: `203.0.113.${j + 1}`,
        ttl: 60,
      })),
    }));
    cf.pageSize = { zones: 2, records: 3 };
    const inventory = await run();
    assert.deepEqual(
      inventory.zones.map((z) => `${z.name}:${z.records.length}`),
      [
        'zone0.example:1',
        'zone1.example:1',
        'zone2.example:1',
        'zone3.example:11',
        'zone4.example:1',
        'zone5.example:1',
        'zone6.example:1',
      ],
    );
    assert.equal(inventory.zones[3]?.records[10]?.data, '203.0.113.11');
    const zonePages = cf.requests.filter((r) => r.path === '/client/v4/zones').map((r) => r.query.get('page') ?? '1');
    assert.deepEqual(zonePages, ['1', '2', '3', '4']);
    const recordPages = cf.requests.filter((r) => r.path.includes(zoneId(103))).map((r) => r.query.get('page') ?? '1');
    assert.deepEqual(recordPages, ['1', '2', '3', '4']);
  });

  it('collects a zone of 10,000 records whole', async () => {
    const records = Array.from({ length: 10_000 }, (_, i) => ({
      name: `host${i}.big.example`,
      type: i % 2 === 0 ? 'A' : 'TXT',
      content: i % 2 === 0 ? `10.${(i >> 8) & 255}.${i & 255}.1` : `token-${i}`,
      ttl: 300,
    }));
    cf.zones = [{ id: zoneId(9), name: 'big.example', accountId: accountA, records }];
    const inventory = await run();
    const zone = inventory.zones[0];
    assert.equal(zone?.records.length, 10_000);
    assert.deepEqual(zone.records[0], { name: 'host0.big.example', type: 'A', ttl: 300, data: '10.0.0.1' });
    assert.deepEqual(zone.records[9_999], {
      name: 'host9999.big.example',
      type: 'TXT',
      ttl: 300,
      data: '"token-9999"',
    });
    assert.equal(new Set(zone.records.map((r) => r.name)).size, 10_000);
    assert.equal(cf.requests.filter((r) => r.path.endsWith('/dns_records')).length, 2);
  });

  it('retries a throttled answer (429, code 971) and succeeds', async () => {
    cf.throttle = { remaining: 2, retryAfter: '0' };
    const inventory = await run();
    assert.equal(inventory.zones.length, 2);
    assert.equal(cf.requests.length, 3 + 2);
    assert.deepEqual(
      cf.requests.slice(0, 3).map((r) => r.headers['x-stainless-retry-count']),
      ['0', '1', '2'],
    );
  });

  it('waits as long as Retry-After asks before retrying', async () => {
    cf.throttle = { remaining: 1, retryAfter: '1' };
    const started = Date.now();
    await run();
    assert.ok(Date.now() - started >= 950, `waited ${Date.now() - started} ms`);
  });

  it('reports throttled when the throttling never stops, after the SDK retries', async () => {
    cf.throttle = { remaining: 1000, retryAfter: '0' };
    const err = await failureOf(run());
    assert.equal(err.kind, 'throttled');
    assert.match(err.message, /code 971/);
    assert.equal(cf.requests.length, 4);
  });

  it('reports throttled at once when Cloudflare asks for a wait longer than the run may sleep', async () => {
    cf.throttle = { remaining: 1000, retryAfter: '300' };
    const started = Date.now();
    const err = await failureOf(run());
    assert.equal(err.kind, 'throttled');
    assert.equal(cf.requests.length, 1);
    assert.ok(Date.now() - started < 2000);
  });

  it('reports refused credentials (code 10000) without the token', async () => {
    const err = await failureOf(run({ api_token: 'not-the-token-0123456789' }));
    assert.equal(err.kind, 'credentials');
    assert.equal(err.message, 'Cloudflare refused the API token (HTTP 403, code 10000: Authentication error)');
    cf.refusal = 'refuse-token';
    const again = await failureOf(run());
    assert.equal(again.kind, 'credentials');
    assert.ok(!again.message.includes(token));
    assert.equal(cf.requests.length, 2, 'a refused token is not retried');
  });

  it('reports a token without DNS:Read (code 9109) as permission', async () => {
    cf.refusal = 'forbid-dns';
    const err = await failureOf(run());
    assert.equal(err.kind, 'permission');
    assert.match(err.message, /HTTP 403, code 9109: Unauthorized to access requested resource/);
    assert.ok(!err.message.includes(token));
  });

  it('reports a closed port as unreachable', async () => {
    const context = adapterContext({ api_token: token }, `http://127.0.0.1:${await closedPort()}/client/v4`);
    const err = await failureOf(cloudflareAdapter.collect(context));
    assert.equal(err.kind, 'unreachable');
    assert.match(err.message, /connection refused/);
  });

  it('reports a provider that does not answer in time as unreachable', async () => {
    cf.delayMs = 2000;
    const context = adapterContext({ api_token: token }, cf.baseUrl, { requestTimeoutMs: 200 });
    const err = await failureOf(cloudflareAdapter.collect(context));
    assert.equal(err.kind, 'unreachable');
    assert.equal(err.message, 'Cloudflare could not be reached (timed out)');
  });

  it('reports an address the egress guard refuses as unreachable, sending nothing and not retrying', async () => {
    const connectionsBefore = cf.connections;
    const started = Date.now();
    const err = await failureOf(cloudflareAdapter.collect(deniedContext({ api_token: token }, cf.baseUrl)));
    assert.equal(err.kind, 'unreachable');
    assert.match(err.message, /denied by egress guard/);
    assert.equal(cf.requests.length, 0);
    assert.equal(cf.connections, connectionsBefore, 'not even a connection');
    assert.ok(Date.now() - started < 400, 'no retry back-off');
  });

  it('rejects promptly when the run is aborted during a request', async () => {
    cf.delayMs = 3000;
    const controller = new AbortController();
    const pending = cloudflareAdapter.collect(
      adapterContext({ api_token: token }, cf.baseUrl, { signal: controller.signal }),
    );
    while (cf.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    controller.abort(new Error('stopped by the test'));
    await assert.rejects(pending, /stopped by the test/);
    assert.ok(Date.now() - started < 300);
  });

  it('rejects promptly when the run is aborted while the SDK waits to retry', async () => {
    cf.throttle = { remaining: 1, retryAfter: '20' };
    const controller = new AbortController();
    const pending = cloudflareAdapter.collect(
      adapterContext({ api_token: token }, cf.baseUrl, { signal: controller.signal }),
    );
    while (cf.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    controller.abort(new Error('stopped by the test'));
    await assert.rejects(pending, /stopped by the test/);
    assert.ok(Date.now() - started < 300);
  });
});
