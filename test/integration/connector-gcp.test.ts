import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { AdapterContext } from '../../src/engine/connectors/connector-adapter.ts';
import { gcpAdapter } from '../../src/engine/connectors/gcp.adapter.ts';
import { adapterContext, closedPort, deniedContext, failureOf } from '../support/connector-context.ts';
import { serviceAccountKey, startFakeGcp, type FakeGcp } from '../support/fake-providers/gcp.ts';

let fake: FakeGcp;

function context(
  endpoint = fake.endpoint,
  overrides: Partial<AdapterContext> = {},
  keyFile = fake.keyFile,
): AdapterContext {
  return adapterContext({ service_account_key: keyFile }, endpoint, overrides);
}

function privateKeyOf(keyFile: string): string {
  return (JSON.parse(keyFile) as { private_key: string }).private_key;
}

function seedExample(): void {
  fake.zones = [
    {
      name: 'example-com',
      dnsName: 'Example.com.',
      rrsets: [
        {
          name: 'example.com.',
          type: 'SOA',
          ttl: 21600,
          rrdatas: ['ns-cloud-a1.googledomains.com. cloud-dns-hostmaster.google.com. 1 21600 3600 259200 300'],
        },
        {
          name: 'example.com.',
          type: 'NS',
          ttl: 21600,
          rrdatas: ['ns-cloud-a1.googledomains.com.', 'ns-cloud-a2.googledomains.com.'],
        },
        { name: 'example.com.', type: 'MX', ttl: 3600, rrdatas: ['10 mail.example.com.', '20 mail2.example.com.'] },
        { name: 'example.com.', type: 'TXT', ttl: 300, rrdatas: ['"v=spf1 -all"', '"part one" "part two"'] },
        { name: 'example.com.', type: 'CAA', ttl: 300, rrdatas: ['0 issue "pki.goog"'] },
        { name: 'WWW.example.com.', type: 'A', ttl: 60, rrdatas: ['203.0.113.20'] },
        { name: 'www.example.com.', type: 'AAAA', ttl: 60, rrdatas: ['2001:db8::20'] },
        { name: 'shop.example.com.', type: 'CNAME', ttl: 300, rrdatas: ['shops.myshopify.com.'] },
        { name: '_xmpp._tcp.example.com.', type: 'SRV', ttl: 300, rrdatas: ['5 0 5222 xmpp.example.com.'] },
      ],
    },
    {
      name: 'corp-internal',
      dnsName: 'corp.internal.',
      visibility: 'private',
      rrsets: [{ name: 'db.corp.internal.', type: 'A', ttl: 60, rrdatas: ['10.0.0.5'] }],
    },
  ];
  fake.addresses = [
    { scope: 'regions/europe-west1', name: 'web-ip', address: '34.76.1.2', addressType: 'EXTERNAL', status: 'IN_USE' },
    { scope: 'global', name: 'lb-ip', address: '34.120.5.6', addressType: 'EXTERNAL', status: 'RESERVED' },
    {
      scope: 'regions/europe-west1',
      name: 'internal-ip',
      address: '10.1.2.3',
      addressType: 'INTERNAL',
      status: 'IN_USE',
    },
    { scope: 'regions/us-east1', name: 'coming', address: '35.1.1.1', addressType: 'EXTERNAL', status: 'RESERVING' },
  ];
  fake.forwardingRules = [
    { scope: 'global', name: 'https-rule', IPAddress: '34.120.5.6', loadBalancingScheme: 'EXTERNAL_MANAGED' },
    { scope: 'regions/us-central1', name: 'nlb-rule', IPAddress: '35.2.3.4', loadBalancingScheme: 'EXTERNAL' },
    { scope: 'regions/us-central1', name: 'ilb-rule', IPAddress: '10.9.9.9', loadBalancingScheme: 'INTERNAL' },
  ];
}

before(async () => {
  fake = await startFakeGcp();
});

after(async () => {
  await fake.stop();
});

beforeEach(() => {
  fake.zones = [];
  fake.addresses = [];
  fake.forwardingRules = [];
  fake.pageSize = { zones: 100, rrsets: 100, addresses: 100, forwardingRules: 100 };
  fake.throttleCount = 0;
  fake.retryAfterSeconds = undefined;
  fake.isForbidden = false;
  fake.delayMs = 0;
  fake.requests = [];
});

describe('Google Cloud adapter (CLOUD_C)', () => {
  it('collects public zones with their records, external addresses and external load balancer addresses', async () => {
    seedExample();
    const inventory = await gcpAdapter.collect(context());
    assert.deepEqual(inventory, {
      zones: [
        {
          name: 'example.com',
          records: [
            {
              name: 'example.com',
              ttl: 21600,
              type: 'SOA',
              data: 'ns-cloud-a1.googledomains.com. cloud-dns-hostmaster.google.com. 1 21600 3600 259200 300',
            },
            { name: 'example.com', ttl: 21600, type: 'NS', data: 'ns-cloud-a1.googledomains.com.' },
            { name: 'example.com', ttl: 21600, type: 'NS', data: 'ns-cloud-a2.googledomains.com.' },
            { name: 'example.com', ttl: 3600, type: 'MX', data: '10 mail.example.com.' },
            { name: 'example.com', ttl: 3600, type: 'MX', data: '20 mail2.example.com.' },
            { name: 'example.com', ttl: 300, type: 'TXT', data: '"v=spf1 -all"' },
            { name: 'example.com', ttl: 300, type: 'TXT', data: '"part one" "part two"' },
            { name: 'example.com', ttl: 300, type: 'CAA', data: '0 issue "pki.goog"' },
            { name: 'www.example.com', ttl: 60, type: 'A', data: '203.0.113.20' },
            { name: 'www.example.com', ttl: 60, type: 'AAAA', data: '2001:db8::20' },
            { name: 'shop.example.com', ttl: 300, type: 'CNAME', data: 'shops.myshopify.com.' },
            { name: '_xmpp._tcp.example.com', ttl: 300, type: 'SRV', data: '5 0 5222 xmpp.example.com.' },
          ],
        },
      ],
      addresses: [
        { address: '34.76.1.2', source: 'address web-ip (europe-west1)' },
        { address: '34.120.5.6', source: 'address lb-ip (global)' },
        { address: '35.2.3.4', source: 'forwarding rule nlb-rule (us-central1)' },
      ],
      hostnames: [],
    });
    const token = fake.requests.filter((r) => r.path === '/token');
    assert.equal(token.length, 1, 'one token for the run');
    const assertion = new URLSearchParams(token[0]!.body).get('assertion') ?? '';
    const claims = JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString()) as { scope?: string };
    assert.equal(claims.scope, 'https://www.googleapis.com/auth/cloud-platform.read-only');
    const api = fake.requests.filter((r) => r.path !== '/token');
    assert.deepEqual(
      api.map((r) => r.path),
      [
        `/dns/v1/projects/${fake.projectId}/managedZones`,
        `/dns/v1/projects/${fake.projectId}/managedZones/example-com/rrsets`,
        `/compute/v1/projects/${fake.projectId}/aggregated/addresses`,
        `/compute/v1/projects/${fake.projectId}/aggregated/forwardingRules`,
      ],
    );
    for (const r of api) assert.match(r.headers.authorization ?? '', /^Bearer ya29\.fake-[0-9a-f]{32}$/);
  });

  it('reads every page of zones, record sets, addresses and forwarding rules; project_id names the project when the key does not', async () => {
    fake.zones = Array.from({ length: 7 }, (_, z) => ({
      name: `zone-${z}`,
      dnsName: `zone${z}.example.`,
      rrsets: Array.from({ length: 8 }, (_, i) => ({
        name: `h${i}.zone${z}.example.`,
        type: 'A',
        ttl: 300,
        rrdatas: [`198.51.100.${i}`],
      })),
    }));
    fake.addresses = Array.from({ length: 10 }, (_, i) => ({
      scope: `regions/r${i % 3}`,
      name: `a${i}`,
      address: `34.0.0.${i}`,
      addressType: 'EXTERNAL' as const,
      status: 'IN_USE' as const,
    }));
    fake.forwardingRules = Array.from({ length: 7 }, (_, i) => ({
      scope: 'global',
      name: `f${i}`,
      IPAddress: `35.0.0.${i}`,
      loadBalancingScheme: 'EXTERNAL',
    }));
    fake.pageSize = { zones: 2, rrsets: 3, addresses: 3, forwardingRules: 2 };
    const { project_id: _, ...keyWithoutProject } = JSON.parse(fake.keyFile) as Record<string, string>;
    const keyFile = JSON.stringify(keyWithoutProject);
    const inventory = await gcpAdapter.collect(
      adapterContext({ service_account_key: keyFile, project_id: fake.projectId }, fake.endpoint),
    );
    assert.deepEqual(
      inventory.zones.map((z) => z.name),
      Array.from({ length: 7 }, (_, z) => `zone${z}.example`),
    );
    for (const zone of inventory.zones)
      assert.deepEqual(
        zone.records.map((r) => r.name),
        Array.from({ length: 8 }, (_, i) => `h${i}.${zone.name}`),
      );
    assert.deepEqual(
      inventory.addresses.map((a) => a.address),
      [...Array.from({ length: 10 }, (_, i) => `34.0.0.${i}`), ...Array.from({ length: 7 }, (_, i) => `35.0.0.${i}`)],
    );
    const paths = fake.requests.map((r) => r.path);
    assert.equal(paths.filter((p) => /\/managedZones(\?|$)/.test(p)).length, 4, 'zones: 4 pages of 2');
    assert.equal(paths.filter((p) => p.includes('/zone-0/rrsets')).length, 3, 'records: 3 pages of 3');
    assert.equal(paths.filter((p) => p.includes('/aggregated/addresses')).length, 4, 'addresses: 4 pages of 3');
    assert.equal(paths.filter((p) => p.includes('/aggregated/forwardingRules')).length, 4, 'rules: 4 pages of 2');
  });

  it('retries 429 RESOURCE_EXHAUSTED answers, honouring Retry-After, and succeeds', async () => {
    seedExample();
    fake.throttleCount = 2;
    fake.retryAfterSeconds = 1;
    const started = Date.now();
    const inventory = await gcpAdapter.collect(context());
    assert.equal(inventory.zones[0]?.records.length, 12);
    assert.ok(Date.now() - started >= 1900, 'both retries waited for Retry-After');
    assert.equal(fake.requests.filter((r) => /\/managedZones(\?|$)/.test(r.path)).length, 3);
  });

  it('fails as throttled when the API keeps answering 429', async () => {
    seedExample();
    fake.throttleCount = 1000;
    const err = await failureOf(gcpAdapter.collect(context()));
    assert.equal(err.kind, 'throttled');
    assert.match(err.message, /RESOURCE_EXHAUSTED/);
    assert.equal(fake.requests.filter((r) => r.path !== '/token').length, 4, 'one try and 3 retries');
  });

  it('reports a key the token endpoint refuses (invalid_grant) without the key', async () => {
    seedExample();
    const other = serviceAccountKey(fake.projectId, fake.clientEmail).keyFile;
    const err = await failureOf(gcpAdapter.collect(context(fake.endpoint, {}, other)));
    assert.equal(err.kind, 'credentials');
    assert.equal(err.message, 'Google refused the service account key (invalid_grant)');
    const secret = privateKeyOf(other);
    assert.ok(!err.message.includes(secret.slice(40, 80)));
    assert.equal(fake.requests.filter((r) => r.path !== '/token').length, 0);
  });

  it('reports a 403 PERMISSION_DENIED as a permission failure', async () => {
    fake.isForbidden = true;
    const err = await failureOf(gcpAdapter.collect(context()));
    assert.equal(err.kind, 'permission');
    assert.equal(err.message, 'Google Cloud denied listing DNS zones (PERMISSION_DENIED)');
  });

  it('refuses a key file that does not parse or lacks its fields, without echoing it', async () => {
    const cases = [
      '{"type": "service_account", "private_key": "-----BEGIN',
      JSON.stringify({ type: 'service_account', private_key: 'x' }),
      JSON.stringify({ type: 'service_account', client_email: 'a@b', private_key: 'not a pem' }),
    ];
    for (const keyFile of cases) {
      const err = await failureOf(gcpAdapter.collect(context(fake.endpoint, {}, keyFile)));
      assert.equal(err.kind, 'options');
      assert.ok(!err.message.includes('BEGIN') && !err.message.includes('not a pem'));
    }
    assert.equal(fake.requests.length, 0);
  });

  it('collects a zone of 10,000 records whole', async () => {
    fake.pageSize.rrsets = 1000;
    fake.zones = [
      {
        name: 'big',
        dnsName: 'big.example.',
        rrsets: Array.from({ length: 10_000 }, (_, i) => ({
          name: `host-${i}.big.example.`,
          type: 'A',
          ttl: 60,
          rrdatas: [`10.${Math.floor(i / 256)}.${i % 256}.1`],
        })),
      },
    ];
    const inventory = await gcpAdapter.collect(context());
    const records = inventory.zones[0]?.records ?? [];
    assert.equal(records.length, 10_000);
    assert.deepEqual(records[0], { name: 'host-0.big.example', ttl: 60, type: 'A', data: '10.0.0.1' });
    assert.deepEqual(records[9999], { name: 'host-9999.big.example', ttl: 60, type: 'A', data: '10.39.15.1' });
  });

  it('fails as unreachable on a closed port', async () => {
    const port = await closedPort();
    const err = await failureOf(gcpAdapter.collect(context(`http://127.0.0.1:${port}`)));
    assert.equal(err.kind, 'unreachable');
    assert.match(err.message, /ECONNREFUSED/);
  });

  it('fails as unreachable when the egress guard refuses the endpoint, sending nothing', async () => {
    const err = await failureOf(
      gcpAdapter.collect(deniedContext({ service_account_key: fake.keyFile }, fake.endpoint)),
    );
    assert.equal(err.kind, 'unreachable');
    assert.match(err.message, /egress guard/);
    assert.equal(fake.requests.length, 0);
  });

  it('stops promptly when the run is aborted', async () => {
    seedExample();
    fake.delayMs = 3000;
    const controller = new AbortController();
    const started = Date.now();
    const run = gcpAdapter.collect(context(fake.endpoint, { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('run cancelled')), 200);
    await assert.rejects(run, /run cancelled/);
    assert.ok(Date.now() - started < 1500, 'rejected before the slow answer came');
  });
});
