import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { digitalOceanAdapter } from '../../src/engine/connectors/digitalocean.adapter.ts';
import { adapterContext, closedPort, deniedContext, failureOf } from '../support/connector-context.ts';
import {
  startFakeDigitalOcean,
  type FakeDigitalOcean,
  type FakeDigitalOceanState,
} from '../support/fake-providers/digitalocean.ts';

const token = 'dop_v1_s3cr3tT0KEN0123456789abcdef0123456789abcdef';

function seedState(): FakeDigitalOceanState {
  return {
    domains: [
      {
        name: 'example.com',
        ttl: 1800,
        records: [
          { type: 'SOA', name: '@', data: '1800', ttl: 1800 },
          { type: 'NS', name: '@', data: 'ns1.digitalocean.com', ttl: 1800 },
          { type: 'A', name: '@', data: '192.0.2.1', ttl: 3600 },
          { type: 'A', name: 'www', data: '192.0.2.2', ttl: 1800 },
          { type: 'AAAA', name: 'V6', data: '2001:DB8::1', ttl: 1800 },
          { type: 'CNAME', name: 'blog', data: '@', ttl: 43200 },
          { type: 'CNAME', name: 'docs', data: 'hosting.example.net', ttl: 300 },
          { type: 'CNAME', name: 'old', data: 'legacy.example.org.', ttl: 300 },
          { type: 'CNAME', name: 'intra', data: 'www', ttl: 300 },
          { type: 'MX', name: '@', data: 'mail.example.com', priority: 10, ttl: 14400 },
          { type: 'MX', name: '@', data: '@', priority: 20, ttl: 14400 },
          { type: 'TXT', name: '@', data: 'v=spf1 include:_spf.example.net ~all', ttl: 3600 },
          { type: 'SRV', name: '_sip._tcp', data: 'sip', priority: 10, weight: 5, port: 5060, ttl: 1800 },
          { type: 'CAA', name: '@', data: 'letsencrypt.org.', flags: 0, tag: 'issue', ttl: 3600 },
        ],
      },
      { name: 'example.net', ttl: 1800, records: [{ type: 'A', name: '@', data: '198.51.100.9', ttl: 600 }] },
    ],
    droplets: [
      {
        id: 1,
        name: 'web-1',
        region: { slug: 'nyc3', name: 'New York 3' },
        networks: {
          v4: [
            { ip_address: '10.116.0.2', netmask: '255.255.240.0', gateway: '', type: 'private' },
            { ip_address: '203.0.113.10', netmask: '255.255.240.0', gateway: '203.0.113.1', type: 'public' },
          ],
          v6: [{ ip_address: '2604:a880:800:10::1', netmask: 64, gateway: '2604:a880:800:10::1', type: 'public' }],
        },
      },
      {
        id: 2,
        name: 'db-1',
        region: { slug: 'ams3', name: 'Amsterdam 3' },
        networks: {
          v4: [
            { ip_address: '10.110.0.3', type: 'private' },
            { ip_address: '203.0.113.11', type: 'public' },
          ],
          v6: [],
        },
      },
    ],
    reservedIps: [
      { ip: '203.0.113.50', region: { slug: 'nyc3' }, droplet: { id: 1, name: 'web-1' }, locked: false },
      { ip: '203.0.113.51', region: { slug: 'fra1' }, droplet: null, locked: false },
    ],
    loadBalancers: [
      { id: '4de7ac8b-495b-4884-9a69-1050c6793cd6', name: 'lb-web', ip: '203.0.113.60', region: { slug: 'nyc3' } },
      { id: '5de7ac8b-495b-4884-9a69-1050c6793cd6', name: 'lb-new', ip: '', region: { slug: 'nyc3' } },
    ],
  };
}

describe('DigitalOcean connector (CLOUD_E)', () => {
  let fake: FakeDigitalOcean;
  const run = (options: Record<string, string> = { token }) =>
    digitalOceanAdapter.collect(adapterContext(options, fake.baseUrl));

  before(async () => {
    fake = await startFakeDigitalOcean(seedState(), token);
  });
  after(() => fake.stop());
  afterEach(() => {
    fake.state = seedState();
    fake.pageSize = 200;
    fake.linkOrigin = fake.baseUrl;
    fake.throttle = { remaining: 0, retryAfter: '0' };
    fake.serverErrors = 0;
    fake.forbidden = [];
    fake.delayMs = 0;
    fake.requests.length = 0;
  });

  it('collects domains with records in presentation form, droplets, reserved IPs and load balancers', async () => {
    const inventory = await run();
    assert.deepEqual(inventory, {
      zones: [
        {
          name: 'example.com',
          records: [
            { name: 'example.com', type: 'NS', ttl: 1800, data: 'ns1.digitalocean.com.' },
            { name: 'example.com', type: 'A', ttl: 3600, data: '192.0.2.1' },
            { name: 'www.example.com', type: 'A', ttl: 1800, data: '192.0.2.2' },
            { name: 'v6.example.com', type: 'AAAA', ttl: 1800, data: '2001:db8::1' },
            { name: 'blog.example.com', type: 'CNAME', ttl: 43200, data: 'example.com.' },
            { name: 'docs.example.com', type: 'CNAME', ttl: 300, data: 'hosting.example.net.' },
            { name: 'old.example.com', type: 'CNAME', ttl: 300, data: 'legacy.example.org.' },
            { name: 'intra.example.com', type: 'CNAME', ttl: 300, data: 'www.example.com.' },
            { name: 'example.com', type: 'MX', ttl: 14400, data: '10 mail.example.com.' },
            { name: 'example.com', type: 'MX', ttl: 14400, data: '20 example.com.' },
            { name: 'example.com', type: 'TXT', ttl: 3600, data: '"v=spf1 include:_spf.example.net ~all"' },
            { name: '_sip._tcp.example.com', type: 'SRV', ttl: 1800, data: '10 5 5060 sip.example.com.' },
            { name: 'example.com', type: 'CAA', ttl: 3600, data: '0 issue "letsencrypt.org"' },
          ],
        },
        { name: 'example.net', records: [{ name: 'example.net', type: 'A', ttl: 600, data: '198.51.100.9' }] },
      ],
      addresses: [
        { address: '203.0.113.10', source: 'droplet web-1 (nyc3)' },
        { address: '2604:a880:800:10::1', source: 'droplet web-1 (nyc3)' },
        { address: '203.0.113.11', source: 'droplet db-1 (ams3)' },
        { address: '203.0.113.50', source: 'reserved ip of droplet web-1 (nyc3)' },
        { address: '203.0.113.51', source: 'reserved ip (fra1)' },
        { address: '203.0.113.60', source: 'load balancer lb-web' },
      ],
      hostnames: [],
    });
    assert.deepEqual(
      fake.requests.map((r) => r.path),
      [
        '/v2/domains',
        '/v2/domains/example.com/records',
        '/v2/domains/example.net/records',
        '/v2/droplets',
        '/v2/reserved_ips',
        '/v2/load_balancers',
      ],
    );
    for (const r of fake.requests) {
      assert.equal(r.headers.authorization, `Bearer ${token}`);
      // Sent by DigitalOcean's official SDK (@digitalocean/dots), which the adapter reads through.
      assert.match(String(r.headers['user-agent']), /^DigitalOcean-Dots\/\d+\.\d+\.\d+$/);
    }
    assert.equal(fake.requests[0]?.query.get('per_page'), '200');
  });

  it('follows links.pages.next over every page, keeping requests on the configured endpoint', async () => {
    const five = <T>(make: (i: number) => T) => Array.from({ length: 5 }, (_, i) => make(i));
    fake.state = {
      domains: five((i) => ({
        name: `zone${i}.example`,
        ttl: 1800,
        records: Array.from({ length: i === 2 ? 7 : 1 }, (_, j) => ({
          type: 'A',
          name: `h${j}`,
          data: `192.0.2.${j + 1}`,
          ttl: 60,
        })),
      })),
      droplets: five((i) => ({
        name: `d${i}`,
        region: { slug: 'nyc1' },
        networks: { v4: [{ ip_address: `203.0.113.${i + 1}`, type: 'public' }] },
      })),
      reservedIps: five((i) => ({ ip: `198.51.100.${i + 1}`, region: { slug: 'sfo3' }, droplet: null })),
      loadBalancers: five((i) => ({ name: `lb${i}`, ip: `192.0.2.${100 + i}` })),
    };
    fake.pageSize = 2;
    // DigitalOcean writes its own host in the links: the adapter must keep using the endpoint.
    fake.linkOrigin = 'https://api.digitalocean.com';
    const inventory = await run();
    assert.deepEqual(
      inventory.zones.map((z) => `${z.name}:${z.records.length}`),
      ['zone0.example:1', 'zone1.example:1', 'zone2.example:7', 'zone3.example:1', 'zone4.example:1'],
    );
    assert.equal(inventory.zones[2]?.records[6]?.name, 'h6.zone2.example');
    assert.equal(inventory.addresses.length, 15);
    const pagesOf = (path: string) => fake.requests.filter((r) => r.path === path).map((r) => r.query.get('page'));
    assert.deepEqual(pagesOf('/v2/domains'), ['1', '2', '3']);
    assert.deepEqual(pagesOf('/v2/domains/zone2.example/records'), ['1', '2', '3', '4']);
    assert.deepEqual(pagesOf('/v2/droplets'), ['1', '2', '3']);
    assert.deepEqual(pagesOf('/v2/reserved_ips'), ['1', '2', '3']);
    assert.deepEqual(pagesOf('/v2/load_balancers'), ['1', '2', '3']);
  });

  it('collects a domain of 10,000 records whole', async () => {
    const records = Array.from({ length: 10_000 }, (_, i) =>
      i % 2 === 0
        ? { type: 'A', name: `host${i}`, data: `10.${(i >> 8) & 255}.${i & 255}.1`, ttl: 300 }
        : { type: 'CNAME', name: `alias${i}`, data: `host${i - 1}`, ttl: 300 },
    );
    fake.state = {
      domains: [{ name: 'big.example', ttl: 1800, records }],
      droplets: [],
      reservedIps: [],
      loadBalancers: [],
    };
    const inventory = await run();
    const zone = inventory.zones[0];
    assert.equal(zone?.records.length, 10_000);
    assert.deepEqual(zone.records[0], { name: 'host0.big.example', type: 'A', ttl: 300, data: '10.0.0.1' });
    assert.deepEqual(zone.records[9_999], {
      name: 'alias9999.big.example',
      type: 'CNAME',
      ttl: 300,
      data: 'host9998.big.example.',
    });
    assert.equal(fake.requests.filter((r) => r.path.endsWith('/records')).length, 50);
  });

  it('retries a throttled answer (429 too_many_requests) and succeeds', async () => {
    fake.throttle = { remaining: 2, retryAfter: '0' };
    const inventory = await run();
    assert.equal(inventory.zones.length, 2);
    assert.equal(fake.requests.length, 6 + 2);
  });

  it('waits as long as Retry-After asks before retrying', async () => {
    fake.throttle = { remaining: 1, retryAfter: '1' };
    const started = Date.now();
    await run();
    assert.ok(Date.now() - started >= 950, `waited ${Date.now() - started} ms`);
  });

  it('waits until ratelimit-reset when a 429 carries no Retry-After', async () => {
    // Two seconds ahead: later than the 0.5 s the client waits when an answer names no time.
    fake.throttle = { remaining: 1, retryAfter: '', resetIn: 2 };
    await run();
    const [first, second] = fake.requests;
    assert.ok(first !== undefined && second !== undefined);
    const reset = (Math.floor(first.at / 1000) + 2) * 1000;
    assert.ok(second.at >= reset - 15, `retried at ${second.at}, reset at ${reset}`);
  });

  it('reports throttled when the throttling never stops, after a few retries', async () => {
    fake.throttle = { remaining: 1000, retryAfter: '0' };
    const err = await failureOf(run());
    assert.equal(err.kind, 'throttled');
    assert.match(err.message, /too_many_requests/);
    assert.equal(fake.requests.length, 4);
  });

  it('reports throttled at once when asked to wait longer than the run may sleep', async () => {
    fake.throttle = { remaining: 1000, retryAfter: '3600' };
    const err = await failureOf(run());
    assert.equal(err.kind, 'throttled');
    assert.equal(fake.requests.length, 1);
  });

  it('reports a refused token (401 unauthorized) as credentials, without the token', async () => {
    const wrong = 'dop_v1_wrongwrongwrong';
    const err = await failureOf(run({ token: wrong }));
    assert.equal(err.kind, 'credentials');
    assert.equal(
      err.message,
      'DigitalOcean refused the credentials (HTTP 401 unauthorized: Unable to authenticate you)',
    );
    assert.ok(!err.message.includes(wrong) && !err.message.includes(token));
    assert.equal(fake.requests.length, 1);
  });

  it('reports a token whose scopes do not cover droplets (403 forbidden) as permission', async () => {
    fake.forbidden = ['/v2/droplets'];
    const err = await failureOf(run());
    assert.equal(err.kind, 'permission');
    assert.match(err.message, /does not allow GET \/v2\/droplets \(HTTP 403 forbidden/);
    assert.ok(!err.message.includes(token));
  });

  it('reports a server error (500 server_error) as a provider failure, without retrying it', async () => {
    fake.serverErrors = 1;
    const err = await failureOf(run());
    assert.equal(err.kind, 'provider');
    assert.equal(
      err.message,
      'DigitalOcean answered GET /v2/domains with an error (HTTP 500 server_error: Unexpected server-side error)',
    );
    assert.equal(fake.requests.length, 1);
  });

  it('reports a closed port as unreachable', async () => {
    const context = adapterContext({ token }, `http://127.0.0.1:${await closedPort()}`);
    const err = await failureOf(digitalOceanAdapter.collect(context));
    assert.equal(err.kind, 'unreachable');
    assert.equal(err.message, 'DigitalOcean could not be reached (connection refused)');
  });

  it('reports a provider that does not answer in time as unreachable', async () => {
    fake.delayMs = 2000;
    const context = adapterContext({ token }, fake.baseUrl, { requestTimeoutMs: 200 });
    const err = await failureOf(digitalOceanAdapter.collect(context));
    assert.equal(err.kind, 'unreachable');
    assert.equal(err.message, 'DigitalOcean could not be reached (timed out)');
  });

  it('reports an address the egress guard refuses as unreachable, sending nothing', async () => {
    const connectionsBefore = fake.connections;
    const err = await failureOf(digitalOceanAdapter.collect(deniedContext({ token }, fake.baseUrl)));
    assert.equal(err.kind, 'unreachable');
    assert.match(err.message, /denied by egress guard/);
    assert.equal(fake.requests.length, 0);
    assert.equal(fake.connections, connectionsBefore, 'not even a connection');
  });

  it('rejects promptly when the run is aborted during a request', async () => {
    fake.delayMs = 3000;
    const controller = new AbortController();
    const pending = digitalOceanAdapter.collect(adapterContext({ token }, fake.baseUrl, { signal: controller.signal }));
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    controller.abort(new Error('stopped by the test'));
    await assert.rejects(pending, /stopped by the test/);
    assert.ok(Date.now() - started < 300);
  });

  it('rejects promptly when the run is aborted while waiting to retry', async () => {
    fake.throttle = { remaining: 1, retryAfter: '20' };
    const controller = new AbortController();
    const pending = digitalOceanAdapter.collect(adapterContext({ token }, fake.baseUrl, { signal: controller.signal }));
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    controller.abort(new Error('stopped by the test'));
    await assert.rejects(pending, /stopped by the test/);
    assert.ok(Date.now() - started < 300);
  });
});
