import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { azureAdapter } from '../../src/engine/connectors/azure.adapter.ts';
import type { AdapterContext } from '../../src/engine/connectors/connector-adapter.ts';
import { adapterContext, closedPort, deniedContext, failureOf, loopbackAgents } from '../support/connector-context.ts';
import { startFakeAzure, type AzureRecordSetSeed, type FakeAzure } from '../support/fake-providers/azure.ts';

let fake: FakeAzure;

function options(secret = fake.clientSecret): Record<string, string> {
  return {
    tenant_id: fake.tenantId,
    client_id: fake.clientId,
    client_secret: secret,
    subscription_id: fake.subscriptionId,
  };
}

/** The tests' context, its https agent trusting the local server's certificate (as an operator's CA would). */
function context(endpoint = fake.endpoint, overrides: Partial<AdapterContext> = {}, secret?: string): AdapterContext {
  return adapterContext(options(secret), endpoint, { agents: loopbackAgents({ ca: fake.ca }), ...overrides });
}

const exampleSets: AzureRecordSetSeed[] = [
  {
    name: '@',
    type: 'SOA',
    properties: {
      TTL: 3600,
      SOARecord: {
        host: 'ns1-01.azure-dns.com.',
        email: 'azuredns-hostmaster.microsoft.com',
        serialNumber: 1,
        refreshTime: 3600,
        retryTime: 300,
        expireTime: 2419200,
        minimumTTL: 300,
      },
    },
  },
  {
    name: '@',
    type: 'NS',
    properties: {
      TTL: 172800,
      NSRecords: [{ nsdname: 'ns1-01.azure-dns.com.' }, { nsdname: 'ns2-01.azure-dns.net.' }],
    },
  },
  { name: '@', type: 'MX', properties: { TTL: 3600, MXRecords: [{ preference: 10, exchange: 'Mail.Example.com' }] } },
  {
    name: '@',
    type: 'TXT',
    properties: {
      TTL: 300,
      TXTRecords: [{ value: ['v=spf1 include:spf.example.net -all'] }, { value: ['say "hi"', 'part2'] }],
    },
  },
  {
    name: '@',
    type: 'CAA',
    properties: { TTL: 300, caaRecords: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }] },
  },
  {
    name: 'www',
    type: 'A',
    properties: { TTL: 60, ARecords: [{ ipv4Address: '203.0.113.10' }, { ipv4Address: '203.0.113.11' }] },
  },
  { name: 'www', type: 'AAAA', properties: { TTL: 60, AAAARecords: [{ ipv6Address: '2001:db8::10' }] } },
  { name: 'blog', type: 'CNAME', properties: { TTL: 600, CNAMERecord: { cname: 'example.github.io' } } },
  {
    name: '_sip._tcp',
    type: 'SRV',
    properties: { TTL: 300, SRVRecords: [{ priority: 10, weight: 5, port: 5060, target: 'sip.example.com' }] },
  },
  { name: '10', type: 'PTR', properties: { TTL: 300, PTRRecords: [{ ptrdname: 'host10.example.com' }] } },
];

function seedExample(): void {
  fake.zones = [
    { name: 'example.com', resourceGroup: 'dns-rg', recordSets: exampleSets },
    { name: 'internal.example', resourceGroup: 'dns-rg', zoneType: 'Private', recordSets: [] },
  ];
  fake.publicIps = [
    {
      name: 'web-1',
      resourceGroup: 'web',
      location: 'westeurope',
      ipAddress: '20.50.1.2',
      fqdn: 'web-1.westeurope.cloudapp.azure.com',
    },
    { name: 'pending', resourceGroup: 'web', location: 'westeurope' },
  ];
}

before(async () => {
  fake = await startFakeAzure();
});

after(async () => {
  await fake.stop();
});

beforeEach(() => {
  fake.zones = [];
  fake.publicIps = [];
  fake.pageSize = { zones: 100, recordSets: 100, publicIps: 100 };
  fake.throttleCount = 0;
  fake.retryAfterSeconds = 1;
  fake.isForbidden = false;
  fake.delayMs = 0;
  fake.requests = [];
});

describe('Azure adapter (CLOUD_B)', () => {
  it('collects public zones with every record type in presentation form, public IPs and their DNS names', async () => {
    seedExample();
    const inventory = await azureAdapter.collect(context());
    assert.deepEqual(inventory, {
      zones: [
        {
          name: 'example.com',
          records: [
            {
              name: 'example.com',
              ttl: 3600,
              type: 'SOA',
              data: 'ns1-01.azure-dns.com. azuredns-hostmaster.microsoft.com. 1 3600 300 2419200 300',
            },
            { name: 'example.com', ttl: 172800, type: 'NS', data: 'ns1-01.azure-dns.com.' },
            { name: 'example.com', ttl: 172800, type: 'NS', data: 'ns2-01.azure-dns.net.' },
            { name: 'example.com', ttl: 3600, type: 'MX', data: '10 mail.example.com.' },
            { name: 'example.com', ttl: 300, type: 'TXT', data: '"v=spf1 include:spf.example.net -all"' },
            { name: 'example.com', ttl: 300, type: 'TXT', data: '"say \\"hi\\"" "part2"' },
            { name: 'example.com', ttl: 300, type: 'CAA', data: '0 issue "letsencrypt.org"' },
            { name: 'www.example.com', ttl: 60, type: 'A', data: '203.0.113.10' },
            { name: 'www.example.com', ttl: 60, type: 'A', data: '203.0.113.11' },
            { name: 'www.example.com', ttl: 60, type: 'AAAA', data: '2001:db8::10' },
            { name: 'blog.example.com', ttl: 600, type: 'CNAME', data: 'example.github.io.' },
            { name: '_sip._tcp.example.com', ttl: 300, type: 'SRV', data: '10 5 5060 sip.example.com.' },
            { name: '10.example.com', ttl: 300, type: 'PTR', data: 'host10.example.com.' },
          ],
        },
      ],
      addresses: [{ address: '20.50.1.2', source: 'public ip web-1 (westeurope)' }],
      hostnames: [{ name: 'web-1.westeurope.cloudapp.azure.com', source: 'public ip web-1 (westeurope)' }],
    });
    const token = fake.requests.find((r) => r.path.startsWith(`/${fake.tenantId}/oauth2/v2.0/token?`));
    assert.ok(token !== undefined, 'a token was requested from the tenant');
    const form = new URLSearchParams(token.body);
    assert.equal(form.get('grant_type'), 'client_credentials');
    assert.equal(form.get('client_id'), fake.clientId);
    const arm = fake.requests.filter((r) => r.path.startsWith('/subscriptions/'));
    assert.equal(arm.length, 3);
    for (const r of arm) assert.match(r.headers.authorization ?? '', /^Bearer fake-arm-[0-9a-f]{32}$/);
  });

  it('reads every page of zones, record sets and public IPs', async () => {
    fake.zones = Array.from({ length: 7 }, (_, z) => ({
      name: `zone${z}.example`,
      resourceGroup: 'rg',
      recordSets: Array.from({ length: 8 }, (_, i) => ({
        name: `h${i}`,
        type: 'A',
        properties: { TTL: 300, ARecords: [{ ipv4Address: `198.51.100.${i}` }] },
      })),
    }));
    fake.publicIps = Array.from({ length: 10 }, (_, i) => ({
      name: `ip${i}`,
      resourceGroup: 'rg',
      location: 'eastus',
      ipAddress: `20.0.0.${i}`,
    }));
    fake.pageSize = { zones: 2, recordSets: 3, publicIps: 3 };
    const inventory = await azureAdapter.collect(context());
    assert.deepEqual(
      inventory.zones.map((z) => z.name),
      Array.from({ length: 7 }, (_, z) => `zone${z}.example`),
    );
    for (const zone of inventory.zones) {
      assert.deepEqual(
        zone.records.map((r) => r.name),
        Array.from({ length: 8 }, (_, i) => `h${i}.${zone.name}`),
      );
    }
    assert.deepEqual(
      inventory.addresses.map((a) => a.address),
      Array.from({ length: 10 }, (_, i) => `20.0.0.${i}`),
    );
    const paths = fake.requests.map((r) => r.path);
    assert.equal(paths.filter((p) => /\/dnszones\?/i.test(p)).length, 4, 'zones: 4 pages of 2');
    assert.equal(paths.filter((p) => p.includes('/zone0.example/recordsets')).length, 3, 'record sets: 3 pages of 3');
    assert.equal(paths.filter((p) => /publicIPAddresses/i.test(p)).length, 4, 'public IPs: 4 pages of 3');
  });

  it('retries a 429 TooManyRequests after Retry-After and succeeds', async () => {
    seedExample();
    fake.throttleCount = 1;
    const started = Date.now();
    const inventory = await azureAdapter.collect(context());
    assert.equal(inventory.zones[0]?.records.length, 13);
    assert.ok(Date.now() - started >= 900, 'the retry waited for Retry-After');
    const throttledThenRetried = fake.requests.filter((r) => /\/dnszones\?/i.test(r.path));
    assert.equal(throttledThenRetried.length, 2);
  });

  it('fails as throttled when ARM keeps answering 429', async () => {
    seedExample();
    fake.throttleCount = 1000;
    fake.retryAfterSeconds = 0;
    const err = await failureOf(azureAdapter.collect(context()));
    assert.equal(err.kind, 'throttled');
    assert.match(err.message, /TooManyRequests/);
    assert.equal(fake.requests.filter((r) => r.path.startsWith('/subscriptions/')).length, 4, 'one try and 3 retries');
  });

  it('fails as throttled at once when ARM asks for a longer wait than a run holds a worker for', async () => {
    seedExample();
    fake.throttleCount = 1000;
    fake.retryAfterSeconds = 3600;
    const started = Date.now();
    const err = await failureOf(azureAdapter.collect(context()));
    assert.equal(err.kind, 'throttled');
    assert.match(err.message, /HTTP 429.*asked to wait 3600 s/);
    assert.ok(Date.now() - started < 20_000, 'no wait for the hour asked');
    assert.equal(fake.requests.filter((r) => r.path.startsWith('/subscriptions/')).length, 1, 'no retry');
  });

  it('reports refused credentials (AADSTS7000215) without the secret', async () => {
    seedExample();
    const secret = 'wrong~SECRET-value-1234567890';
    const err = await failureOf(azureAdapter.collect(context(fake.endpoint, {}, secret)));
    assert.equal(err.kind, 'credentials');
    assert.equal(err.message, 'Microsoft Entra ID refused the credentials (invalid_client, AADSTS7000215)');
    assert.ok(!err.message.includes(secret));
    assert.ok(!JSON.stringify(err).includes(secret));
    assert.equal(fake.requests.filter((r) => r.path.startsWith('/subscriptions/')).length, 0);
  });

  it('reports a 403 AuthorizationFailed as a permission failure', async () => {
    fake.isForbidden = true;
    const err = await failureOf(azureAdapter.collect(context()));
    assert.equal(err.kind, 'permission');
    assert.match(err.message, /\(AuthorizationFailed\)$/);
    assert.ok(!err.message.includes(fake.clientSecret));
  });

  it('collects a zone of 10,000 records whole', async () => {
    fake.pageSize.recordSets = 1000;
    const sets = Array.from({ length: 10_000 }, (_, i) => ({
      name: `host-${i}`,
      type: 'A',
      properties: { TTL: 60, ARecords: [{ ipv4Address: `10.${Math.floor(i / 256)}.${i % 256}.1` }] },
    }));
    fake.zones = [{ name: 'big.example', resourceGroup: 'rg', recordSets: sets }];
    const inventory = await azureAdapter.collect(context());
    const records = inventory.zones[0]?.records ?? [];
    assert.equal(records.length, 10_000);
    assert.deepEqual(records[0], { name: 'host-0.big.example', ttl: 60, type: 'A', data: '10.0.0.1' });
    assert.deepEqual(records[9999], { name: 'host-9999.big.example', ttl: 60, type: 'A', data: '10.39.15.1' });
    assert.equal(new Set(records.map((r) => r.name)).size, 10_000);
  });

  it('fails as unreachable on a closed port', async () => {
    const port = await closedPort();
    const err = await failureOf(azureAdapter.collect(context(`https://127.0.0.1:${port}`)));
    assert.equal(err.kind, 'unreachable');
    assert.ok(!err.message.includes(fake.clientSecret));
  });

  it('fails as unreachable when the egress guard refuses the endpoint, sending nothing', async () => {
    const err = await failureOf(azureAdapter.collect(deniedContext(options(), fake.endpoint)));
    assert.equal(err.kind, 'unreachable');
    assert.match(err.message, /egress guard/);
    assert.equal(fake.requests.length, 0);
  });

  it('stops promptly when the run is aborted', async () => {
    seedExample();
    fake.delayMs = 3000;
    const controller = new AbortController();
    const started = Date.now();
    const run = azureAdapter.collect(context(fake.endpoint, { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('run cancelled')), 200);
    await assert.rejects(run, /run cancelled/);
    assert.ok(Date.now() - started < 1500, 'rejected before the slow answer came');
  });
});
