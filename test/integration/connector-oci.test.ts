import assert from 'node:assert/strict';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createOciAdapter } from '../../src/engine/connectors/oci.adapter.ts';
import { adapterContext, closedPort, deniedContext, failureOf } from '../support/connector-context.ts';
import { startFakeOci, type FakeOci, type FakeOciRecord } from '../support/fake-providers/oci.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const fingerprint = (
  createHash('md5')
    .update(createPublicKey(publicKey).export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .match(/../g) ?? []
).join(':');
const tenancy = 'ocid1.tenancy.oc1..aaaaaaaatenancy7q';
const user = 'ocid1.user.oc1..aaaaaaaauser3k';
const compartment = 'ocid1.compartment.oc1..aaaaaaaacompartment9z';
const options = {
  tenancy_ocid: tenancy,
  user_ocid: user,
  fingerprint,
  private_key: privateKey,
  region: 'eu-frankfurt-1',
  compartment_ocid: compartment,
};
const fast = { retry: { maxAttempts: 3, baseDelaySeconds: 0.01, maxDelaySeconds: 0.02 } };
const adapter = createOciAdapter(fast);

const exampleRecords: FakeOciRecord[] = [
  {
    domain: 'example.com',
    rtype: 'SOA',
    rdata: 'ns1.p68.dns.oraclecloud.net. hostmaster.example.com. 12 3600 600 604800 1800',
    ttl: 300,
  },
  { domain: 'example.com', rtype: 'NS', rdata: 'ns1.p68.dns.oraclecloud.net.', ttl: 86400 },
  { domain: 'example.com', rtype: 'A', rdata: '203.0.113.10', ttl: 300 },
  { domain: 'www.example.com', rtype: 'CNAME', rdata: 'example.com.', ttl: 3600 },
  { domain: 'example.com', rtype: 'MX', rdata: '10 mail.example.com.', ttl: 3600 },
  { domain: 'example.com', rtype: 'TXT', rdata: '"v=spf1 include:_spf.example.net -all"', ttl: 3600 },
  { domain: 'V6.Example.com', rtype: 'AAAA', rdata: '2001:db8::10', ttl: 60 },
  { domain: '_sip._tcp.example.com', rtype: 'SRV', rdata: '10 5 5060 sip.example.com.', ttl: 3600 },
  { domain: 'example.com', rtype: 'CAA', rdata: '0 issue "letsencrypt.org"', ttl: 3600 },
  { domain: 'apex.example.com', rtype: 'ALIAS', rdata: 'lb.example.net.', ttl: 60 },
];

describe('Oracle Cloud connector (CLOUD_F)', () => {
  let oci: FakeOci;

  before(async () => {
    oci = await startFakeOci({
      keyId: `${tenancy}/${user}/${fingerprint}`,
      publicKey: createPublicKey(publicKey),
      compartmentId: compartment,
      zones: [
        { name: 'example.com', records: exampleRecords },
        { name: 'Example.ORG', records: [{ domain: 'api.example.org', rtype: 'A', rdata: '198.51.100.7', ttl: 120 }] },
      ],
      publicIps: [
        { displayName: 'web-1', ipAddress: '203.0.113.20', lifetime: 'EPHEMERAL' },
        { displayName: 'lb-reserved', ipAddress: '203.0.113.21', lifetime: 'RESERVED', lifecycleState: 'AVAILABLE' },
        { displayName: 'old', ipAddress: '203.0.113.22', lifetime: 'RESERVED', lifecycleState: 'TERMINATED' },
      ],
    });
  });
  after(() => oci.close());

  it('collects the zones, their records and the public IPs through signed SDK calls', async () => {
    oci.requests.length = 0;
    oci.verifiedSignatures = 0;
    const inventory = await adapter.collect(adapterContext(options, oci.url));
    assert.deepEqual(inventory, {
      zones: [
        {
          name: 'example.com',
          records: [
            {
              name: 'example.com',
              ttl: 300,
              type: 'SOA',
              data: 'ns1.p68.dns.oraclecloud.net. hostmaster.example.com. 12 3600 600 604800 1800',
            },
            { name: 'example.com', ttl: 86400, type: 'NS', data: 'ns1.p68.dns.oraclecloud.net.' },
            { name: 'example.com', ttl: 300, type: 'A', data: '203.0.113.10' },
            { name: 'www.example.com', ttl: 3600, type: 'CNAME', data: 'example.com.' },
            { name: 'example.com', ttl: 3600, type: 'MX', data: '10 mail.example.com.' },
            { name: 'example.com', ttl: 3600, type: 'TXT', data: '"v=spf1 include:_spf.example.net -all"' },
            { name: 'v6.example.com', ttl: 60, type: 'AAAA', data: '2001:db8::10' },
            { name: '_sip._tcp.example.com', ttl: 3600, type: 'SRV', data: '10 5 5060 sip.example.com.' },
            { name: 'example.com', ttl: 3600, type: 'CAA', data: '0 issue "letsencrypt.org"' },
          ],
        },
        { name: 'example.org', records: [{ name: 'api.example.org', ttl: 120, type: 'A', data: '198.51.100.7' }] },
      ],
      addresses: [
        { address: '203.0.113.20', source: 'public ip web-1' },
        { address: '203.0.113.21', source: 'public ip lb-reserved' },
      ],
      hostnames: [],
    });
    assert.equal(oci.verifiedSignatures, oci.requests.length);
    const zoneList = new URL(oci.requests[0]?.url ?? '', 'http://x');
    assert.equal(zoneList.pathname, '/20180115/zones');
    assert.equal(zoneList.searchParams.get('zoneType'), 'PRIMARY');
    assert.equal(zoneList.searchParams.get('scope'), 'GLOBAL');
    const ipLists = oci.requests.filter((r) => r.url.startsWith('/20160918/publicIps'));
    assert.deepEqual(
      ipLists.map((r) => new URL(r.url, 'http://x').searchParams.get('lifetime')),
      ['EPHEMERAL', 'RESERVED'],
    );
  });

  it('reads the tenancy (root compartment) when no compartment is given', async () => {
    const { compartment_ocid: _, ...rootOptions } = options;
    const err = await failureOf(adapter.collect(adapterContext(rootOptions, oci.url)));
    assert.equal(err.kind, 'permission');
    assert.equal(new URL(oci.requests.at(-1)?.url ?? '', 'http://x').searchParams.get('compartmentId'), tenancy);
  });

  it('signs with a passphrase-protected key', async () => {
    const encrypted = createPrivateKey(privateKey).export({
      type: 'pkcs1',
      format: 'pem',
      cipher: 'aes-256-cbc',
      passphrase: 'correct horse',
    });
    oci.verifiedSignatures = 0;
    const inventory = await adapter.collect(
      adapterContext({ ...options, private_key: String(encrypted), passphrase: 'correct horse' }, oci.url),
    );
    assert.equal(inventory.zones.length, 2);
    assert.ok(oci.verifiedSignatures > 0);
    const wrong = await failureOf(
      adapter.collect(adapterContext({ ...options, private_key: String(encrypted), passphrase: 'wrong' }, oci.url)),
    );
    assert.equal(wrong.kind, 'options');
    assert.ok(!wrong.message.includes('wrong'));
  });

  it('pages the zones, the records and the public IPs', async () => {
    const many = await startFakeOci({
      ...oci.account,
      zones: Array.from({ length: 7 }, (_, i) => ({
        name: `z${i}.example`,
        records: Array.from({ length: 7 }, (_, j) => ({
          domain: `h${j}.z${i}.example`,
          rtype: 'A',
          rdata: `192.0.2.${j + 1}`,
          ttl: 60,
        })),
      })),
      publicIps: Array.from({ length: 7 }, (_, i) => ({
        displayName: `vm-${i}`,
        ipAddress: `198.51.100.${i + 1}`,
        lifetime: 'EPHEMERAL' as const,
      })),
    });
    many.pageSize = 3;
    try {
      const inventory = await adapter.collect(adapterContext(options, many.url));
      assert.deepEqual(
        inventory.zones.map((z) => [z.name, z.records.length]),
        Array.from({ length: 7 }, (_, i) => [`z${i}.example`, 7]),
      );
      assert.deepEqual(inventory.zones[6]?.records[6], {
        name: 'h6.z6.example',
        ttl: 60,
        type: 'A',
        data: '192.0.2.7',
      });
      assert.deepEqual(
        inventory.addresses.map((a) => a.address),
        Array.from({ length: 7 }, (_, i) => `198.51.100.${i + 1}`),
      );
      const count = (prefix: string) => many.requests.filter((r) => r.url.startsWith(prefix)).length;
      assert.equal(count('/20180115/zones?'), 3);
      assert.equal(count('/20180115/zones/ocid1.dns-zone.oc1..aaaaaaaazone00000000/records'), 3);
      assert.equal(count('/20160918/publicIps?'), 3 + 1);
      assert.ok(many.requests.some((r) => /[?&]page=/.test(r.url)));
    } finally {
      await many.close();
    }
  });

  it("retries a throttled answer with the SDK's retrier and succeeds", async () => {
    oci.requests.length = 0;
    oci.throttleNext = 2;
    const inventory = await adapter.collect(adapterContext(options, oci.url));
    assert.equal(inventory.zones.length, 2);
    assert.equal(oci.requests.filter((r) => r.url.startsWith('/20180115/zones?')).length, 3);
  });

  it('fails as throttled when the throttling never stops', async () => {
    oci.throttleNext = 1000;
    try {
      const err = await failureOf(adapter.collect(adapterContext(options, oci.url)));
      assert.equal(err.kind, 'throttled');
      assert.match(err.message, /TooManyRequests/);
    } finally {
      oci.throttleNext = 0;
    }
  });

  it('maps refused credentials, a compartment it may not read, and a key that does not parse', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs1',
      format: 'pem',
    });
    const bad = await failureOf(adapter.collect(adapterContext({ ...options, private_key: String(other) }, oci.url)));
    assert.equal(bad.kind, 'credentials');
    assert.match(bad.message, /NotAuthenticated/);
    assert.ok(!bad.message.includes('PRIVATE KEY') && !bad.message.includes(fingerprint));
    oci.forbid = true;
    try {
      const forbidden = await failureOf(adapter.collect(adapterContext(options, oci.url)));
      assert.equal(forbidden.kind, 'permission');
      assert.match(forbidden.message, /NotAuthorizedOrNotFound/);
    } finally {
      oci.forbid = false;
    }
    const broken = '-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5\n-----END RSA PRIVATE KEY-----';
    const unusable = await failureOf(adapter.collect(adapterContext({ ...options, private_key: broken }, oci.url)));
    assert.equal(unusable.kind, 'options');
    assert.ok(!unusable.message.includes('bm90IGEga2V5'));
  });

  it('collects a zone of 10,000 records whole', async () => {
    const big = await startFakeOci({
      ...oci.account,
      zones: [
        {
          name: 'big.example',
          records: Array.from({ length: 10_000 }, (_, i) => ({
            domain: `n${i}.big.example`,
            rtype: i % 2 === 0 ? 'A' : 'TXT',
            rdata: i % 2 === 0 ? `10.0.${(i >> 8) & 255}.${i & 255}` : `"token-${i}"`,
            ttl: 300,
          })),
        },
      ],
      publicIps: [],
    });
    try {
      const inventory = await createOciAdapter({ ...fast, pageSize: 1000 }).collect(adapterContext(options, big.url));
      const records = inventory.zones[0]?.records ?? [];
      assert.equal(records.length, 10_000);
      assert.deepEqual(records[0], { name: 'n0.big.example', ttl: 300, type: 'A', data: '10.0.0.0' });
      assert.deepEqual(records[9_999], { name: 'n9999.big.example', ttl: 300, type: 'TXT', data: '"token-9999"' });
      assert.deepEqual(records[4_242], { name: 'n4242.big.example', ttl: 300, type: 'A', data: '10.0.16.146' });
      assert.equal(big.requests.filter((r) => r.url.includes('/records')).length, 10);
    } finally {
      await big.close();
    }
  });

  it('reports an unreachable API: a closed port, and an address the egress guard refuses', async () => {
    const closed = await failureOf(adapter.collect(adapterContext(options, `http://127.0.0.1:${await closedPort()}`)));
    assert.equal(closed.kind, 'unreachable');
    oci.requests.length = 0;
    const denied = await failureOf(adapter.collect(deniedContext(options, oci.url)));
    assert.equal(denied.kind, 'unreachable');
    assert.match(denied.message, /denied by egress guard/);
    assert.equal(oci.requests.length, 0);
  });

  it('stops promptly when the run is aborted, even while the SDK sleeps before a retry', async () => {
    oci.throttleNext = 1000;
    const controller = new AbortController();
    try {
      const started = Date.now();
      const run = createOciAdapter({
        retry: { maxAttempts: 5, baseDelaySeconds: 20, maxDelaySeconds: 20 }, // the SDK's sleep does not watch the signal
      }).collect(adapterContext(options, oci.url, { signal: controller.signal }));
      setTimeout(() => controller.abort(new Error('stopped by the test')), 300);
      await assert.rejects(run, /stopped by the test/);
      assert.ok(Date.now() - started < 2000);
    } finally {
      oci.throttleNext = 0;
    }
  });
});
