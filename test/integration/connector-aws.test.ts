import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import {
  awsCredentialsAdapter,
  awsRoleAdapter,
  createAwsRoleAdapter,
} from '../../src/engine/connectors/aws.adapter.ts';
import type { ConnectorRunError } from '../../src/core/connectors/connector-run.types.ts';
import { type ProviderInventory } from '../../src/core/connectors/connector-run.types.ts';
import { adapterContext, closedPort, deniedContext, failureOf } from '../support/connector-context.ts';
import { startFakeAws, type FakeAws, type FakeAwsAccount, type FakeAwsOptions } from '../support/fake-providers/aws.ts';

const accessKey = 'AKIAIOSFODNN7EXAMPLE';
const secretKey = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const serverKey = 'AKIAI44QH8DHBEXAMPLE';
const serverSecret = 'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY';
const roleArn = 'arn:aws:iam::123456789012:role/perimeter-reader';
const externalId = '0123456789abcdef0123456789abcdef';
const credOptions = { access_key: accessKey, secret_key: secretKey, regions: 'eu-west-1,us-east-1' };

/** An account with two public zones (one of every record type the adapter renders), a private zone and two regions. */
function seededAccount(): FakeAwsAccount {
  return {
    zones: [
      {
        id: 'Z1D633PJN98FT9',
        name: 'example.com.',
        recordSets: [
          {
            name: 'example.com.',
            type: 'SOA',
            ttl: 900,
            values: ['ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400'],
          },
          { name: 'example.com.', type: 'NS', ttl: 172800, values: ['ns-1.awsdns-01.org.', 'ns-2.awsdns-02.co.uk'] },
          { name: 'example.com.', type: 'A', ttl: 300, values: ['198.51.100.7'] },
          { name: 'example.com.', type: 'MX', ttl: 300, values: ['10 mail.example.com.', '20 backup.example.net'] },
          {
            name: 'example.com.',
            type: 'TXT',
            ttl: 300,
            values: ['"v=spf1 include:amazonses.com -all"', '"part one" "part two"'],
          },
          { name: 'example.com.', type: 'CAA', ttl: 300, values: ['0 issue "amazon.com"'] },
          { name: 'WWW.Example.com.', type: 'AAAA', ttl: 60, values: ['2001:db8::10'] },
          { name: 'blog.example.com.', type: 'CNAME', ttl: 300, values: ['example.github.io'] },
          { name: '_sip._tcp.example.com.', type: 'SRV', ttl: 300, values: ['10 5 5060 sip.example.com'] },
          { name: '\\052.example.com.', type: 'A', ttl: 120, values: ['198.51.100.8'] },
          { name: 'app.example.com.', type: 'A', alias: 'dualstack.web-1234.eu-west-1.elb.amazonaws.com.' },
          { name: 'w.example.com.', type: 'A', ttl: 60, values: ['198.51.100.9'], setIdentifier: 'blue', weight: 1 },
          { name: 'w.example.com.', type: 'A', ttl: 60, values: ['198.51.100.10'], setIdentifier: 'green', weight: 1 },
        ],
      },
      {
        id: 'Z2PRIVATE0001',
        name: 'corp.internal.',
        isPrivate: true,
        recordSets: [{ name: 'db.corp.internal.', type: 'A', ttl: 60, values: ['10.0.0.5'] }],
      },
      {
        id: 'Z3EXAMPLEORG',
        name: 'example.org.',
        recordSets: [{ name: 'example.org.', type: 'PTR', ttl: 300, values: ['host.example.org'] }],
      },
    ],
    regions: {
      'eu-west-1': {
        elasticIps: [{ allocationId: 'eipalloc-0a1b2c3d', publicIp: '203.0.113.10' }],
        instances: [
          { id: 'i-0abc0001', publicIp: '203.0.113.20', privateIp: '10.0.1.20', ipv6: ['2001:db8:1::20'] },
          { id: 'i-0abc0002', privateIp: '10.0.1.21' },
          { id: 'i-0abc0003', publicIp: '203.0.113.10', privateIp: '10.0.1.22' },
        ],
        loadBalancers: [
          { name: 'web', dnsName: 'web-1234.eu-west-1.elb.amazonaws.com', scheme: 'internet-facing' },
          { name: 'backend', dnsName: 'internal-backend-99.eu-west-1.elb.amazonaws.com', scheme: 'internal' },
        ],
      },
      'us-east-1': {
        elasticIps: [],
        instances: [{ id: 'i-0def0001', publicIp: '192.0.2.44' }],
        loadBalancers: [{ name: 'API', dnsName: 'API-77.us-east-1.elb.amazonaws.com', scheme: 'internet-facing' }],
      },
    },
  };
}

const expectedInventory: ProviderInventory = {
  zones: [
    {
      name: 'example.com',
      records: [
        { name: 'example.com', ttl: 300, type: 'A', data: '198.51.100.7' },
        { name: 'example.com', ttl: 300, type: 'CAA', data: '0 issue "amazon.com"' },
        { name: 'example.com', ttl: 300, type: 'MX', data: '10 mail.example.com.' },
        { name: 'example.com', ttl: 300, type: 'MX', data: '20 backup.example.net.' },
        { name: 'example.com', ttl: 172800, type: 'NS', data: 'ns-1.awsdns-01.org.' },
        { name: 'example.com', ttl: 172800, type: 'NS', data: 'ns-2.awsdns-02.co.uk.' },
        {
          name: 'example.com',
          ttl: 900,
          type: 'SOA',
          data: 'ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400',
        },
        { name: 'example.com', ttl: 300, type: 'TXT', data: '"v=spf1 include:amazonses.com -all"' },
        { name: 'example.com', ttl: 300, type: 'TXT', data: '"part one" "part two"' },
        { name: '*.example.com', ttl: 120, type: 'A', data: '198.51.100.8' },
        { name: '_sip._tcp.example.com', ttl: 300, type: 'SRV', data: '10 5 5060 sip.example.com.' },
        { name: 'blog.example.com', ttl: 300, type: 'CNAME', data: 'example.github.io.' },
        { name: 'w.example.com', ttl: 60, type: 'A', data: '198.51.100.9' },
        { name: 'w.example.com', ttl: 60, type: 'A', data: '198.51.100.10' },
        { name: 'www.example.com', ttl: 60, type: 'AAAA', data: '2001:db8::10' },
      ],
    },
    { name: 'example.org', records: [{ name: 'example.org', ttl: 300, type: 'PTR', data: 'host.example.org.' }] },
  ],
  addresses: [
    { address: '203.0.113.10', source: 'elastic ip eipalloc-0a1b2c3d (eu-west-1)' },
    { address: '203.0.113.20', source: 'ec2 instance i-0abc0001 (eu-west-1)' },
    { address: '2001:db8:1::20', source: 'ec2 instance i-0abc0001 (eu-west-1)' },
    { address: '192.0.2.44', source: 'ec2 instance i-0def0001 (us-east-1)' },
  ],
  hostnames: [
    { name: 'dualstack.web-1234.eu-west-1.elb.amazonaws.com', source: 'route53 alias of app.example.com' },
    { name: 'web-1234.eu-west-1.elb.amazonaws.com', source: 'load balancer web (eu-west-1)' },
    { name: 'api-77.us-east-1.elb.amazonaws.com', source: 'load balancer API (us-east-1)' },
  ],
};

const started: FakeAws[] = [];
async function fakeAws(overrides: Partial<FakeAwsOptions> = {}): Promise<FakeAws> {
  const fake = await startFakeAws({
    account: seededAccount(),
    keys: { [accessKey]: secretKey, [serverKey]: serverSecret },
    role: { arn: roleArn, externalId },
    ...overrides,
  });
  started.push(fake);
  return fake;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((f) => f.close()));
});

/** The ConnectorRunError a collection fails with, its message checked for the secrets. */
async function failure(run: Promise<unknown>): Promise<ConnectorRunError> {
  const err = await failureOf(run);
  for (const secret of [secretKey, serverSecret]) assert.ok(!err.message.includes(secret), err.message);
  return err;
}

const count = (fake: FakeAws, operation: string) => fake.requests.filter((r) => r.operation === operation).length;

describe('AWS connector (CLOUD_A_CRED_BASED)', () => {
  it('collects public zones with every record rendered, addresses and host names', async () => {
    const fake = await fakeAws();
    const inventory = await awsCredentialsAdapter.collect(adapterContext(credOptions, fake.url));
    assert.deepEqual(inventory, expectedInventory);
    // Every call signed with the IAM user's key, for the right service and region; no DescribeRegions.
    assert.ok(fake.requests.every((r) => r.accessKeyId === accessKey));
    assert.equal(count(fake, 'DescribeRegions'), 0);
    assert.deepEqual(
      fake.requests.filter((r) => r.operation === 'ListResourceRecordSets').map((r) => `${r.region} ${r.path}`),
      ['us-east-1 /2013-04-01/hostedzone/Z1D633PJN98FT9/rrset', 'us-east-1 /2013-04-01/hostedzone/Z3EXAMPLEORG/rrset'],
      'two public zones read, the private one skipped, Route 53 signed for us-east-1',
    );
    assert.deepEqual(
      fake.requests.filter((r) => r.service === 'ec2').map((r) => `${r.region} ${r.operation}`),
      [
        'eu-west-1 DescribeAddresses',
        'eu-west-1 DescribeInstances',
        'us-east-1 DescribeAddresses',
        'us-east-1 DescribeInstances',
      ],
    );
  });

  it('reads every enabled region (DescribeRegions in us-east-1) when no region is configured', async () => {
    const fake = await fakeAws();
    const inventory = await awsCredentialsAdapter.collect(
      adapterContext({ access_key: accessKey, secret_key: secretKey }, fake.url),
    );
    const regions = fake.requests.find((r) => r.operation === 'DescribeRegions');
    assert.equal(regions?.region, 'us-east-1');
    assert.equal(regions?.params.get('AllRegions'), 'false');
    assert.deepEqual(
      [...new Set(fake.requests.filter((r) => r.operation === 'DescribeInstances').map((r) => r.region))],
      ['eu-west-1', 'us-east-1'],
    );
    assert.equal(inventory.addresses.length, 4);
  });

  it('reads every page of zones, record sets, instances and load balancers', async () => {
    const account = seededAccount();
    for (let z = 0; z < 7; z++)
      account.zones.push({
        id: `ZPAGE${z}`,
        name: `zone${z}.example.net.`,
        recordSets: Array.from({ length: 10 }, (_, i) => ({
          name: `h${i % 4}.zone${z}.example.net.`,
          type: 'TXT',
          ttl: 60,
          values: [`"z${z} r${i}"`],
          setIdentifier: `set-${i}`,
          weight: 1,
        })),
      });
    const eu = account.regions['eu-west-1'];
    assert.ok(eu !== undefined);
    for (let i = 0; i < 7; i++) eu.instances.push({ id: `i-0page${i}`, publicIp: `198.18.0.${i + 1}` });
    for (let i = 0; i < 5; i++)
      eu.loadBalancers.push({
        name: `lb${i}`,
        dnsName: `lb${i}-1.eu-west-1.elb.amazonaws.com`,
        scheme: 'internet-facing',
      });
    const fake = await fakeAws({ account, pageSizes: { zones: 2, recordSets: 3, instances: 2, loadBalancers: 2 } });
    const inventory = await awsCredentialsAdapter.collect(adapterContext(credOptions, fake.url));

    assert.equal(inventory.zones.length, 9);
    for (let z = 0; z < 7; z++) {
      const zone = inventory.zones.find((s) => s.name === `zone${z}.example.net`);
      assert.deepEqual(
        zone?.records.map((r) => r.data).sort(),
        Array.from({ length: 10 }, (_, i) => `"z${z} r${i}"`).sort(),
      );
    }
    assert.equal(count(fake, 'ListHostedZones'), 5);
    assert.ok(count(fake, 'ListResourceRecordSets') >= 7 * 4, 'each 10-set zone read in 4 pages of 3');
    const followUp = fake.requests.find((r) => r.operation === 'ListResourceRecordSets' && r.params.has('identifier'));
    assert.ok(followUp?.params.has('name') && followUp.params.has('type'), 'paging passes name, type and identifier');
    assert.equal(
      fake.requests.filter((r) => r.operation === 'DescribeInstances' && r.region === 'eu-west-1').length,
      5,
    );
    assert.equal(
      fake.requests.filter((r) => r.operation === 'DescribeLoadBalancers' && r.region === 'eu-west-1').length,
      4,
    );
    assert.equal(inventory.addresses.length, 4 + 7);
    assert.ok(inventory.hostnames.some((h) => h.name === 'lb4-1.eu-west-1.elb.amazonaws.com'));
  });

  it('collects a zone of 10,000 record sets whole', async () => {
    const account = seededAccount();
    account.zones = [
      {
        id: 'ZBIG',
        name: 'big.example.com.',
        recordSets: Array.from({ length: 10_000 }, (_, i) => ({
          name: `host-${String(i).padStart(5, '0')}.big.example.com.`,
          type: 'A',
          ttl: 300,
          values: [`10.${Math.floor(i / 256) % 256}.${i % 256}.1`],
        })),
      },
    ];
    const fake = await fakeAws({ account });
    const inventory = await awsCredentialsAdapter.collect(adapterContext(credOptions, fake.url));
    const records = inventory.zones[0]?.records ?? [];
    assert.equal(records.length, 10_000);
    assert.equal(count(fake, 'ListResourceRecordSets'), 34, '300 record sets a page');
    assert.deepEqual(records[0], { name: 'host-00000.big.example.com', ttl: 300, type: 'A', data: '10.0.0.1' });
    assert.ok(records.some((r) => r.name === 'host-04242.big.example.com' && r.data === '10.16.146.1'));
    assert.ok(records.some((r) => r.name === 'host-09999.big.example.com' && r.data === '10.39.15.1'));
    assert.equal(new Set(records.map((r) => r.name)).size, 10_000);
  });

  it('retries throttled calls (Route 53 Throttling 400, EC2 RequestLimitExceeded 503, ELBv2 Throttling) and succeeds', async () => {
    const fake = await fakeAws();
    fake.throttle(2, 'ListHostedZones');
    fake.throttle(3, 'DescribeInstances');
    fake.throttle(1, 'DescribeLoadBalancers');
    const inventory = await awsCredentialsAdapter.collect(adapterContext(credOptions, fake.url));
    assert.deepEqual(inventory, expectedInventory);
    assert.equal(count(fake, 'ListHostedZones'), 3);
    assert.equal(count(fake, 'DescribeInstances'), 2 + 3);
    assert.equal(count(fake, 'DescribeLoadBalancers'), 2 + 1);
  });

  it('fails as throttled when the throttling never stops, after 4 attempts', async () => {
    const fake = await fakeAws();
    fake.throttle(1000, 'DescribeInstances');
    const startedAt = Date.now();
    const err = await failure(awsCredentialsAdapter.collect(adapterContext(credOptions, fake.url)));
    assert.equal(err.kind, 'throttled');
    assert.match(err.message, /DescribeInstances.*\(RequestLimitExceeded\)/);
    assert.equal(count(fake, 'DescribeInstances'), 4);
    assert.ok(Date.now() - startedAt < 5000);
  });

  it('reports an unknown access key as refused credentials, without the secret', async () => {
    const fake = await fakeAws();
    const err = await failure(
      awsCredentialsAdapter.collect(adapterContext({ ...credOptions, access_key: 'AKIAUNKNOWNKEY000000' }, fake.url)),
    );
    assert.equal(err.kind, 'credentials');
    assert.equal(err.message, 'AWS refused the credentials for ListHostedZones (InvalidClientTokenId)');
    assert.equal(fake.requests.length, 1, 'a refusal is not retried');
    fake.refuseCredentials = true;
    const refused = await failure(awsCredentialsAdapter.collect(adapterContext(credOptions, fake.url)));
    assert.equal(refused.kind, 'credentials');
  });

  it('reports a wrong secret as refused credentials (SignatureDoesNotMatch)', async () => {
    const fake = await fakeAws();
    const wrong = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYWRONGSECRET';
    const err = await failure(
      awsCredentialsAdapter.collect(adapterContext({ ...credOptions, secret_key: wrong }, fake.url)),
    );
    assert.equal(err.kind, 'credentials');
    assert.match(err.message, /\(SignatureDoesNotMatch\)/);
    assert.ok(!err.message.includes(wrong));
    assert.ok(!err.message.includes(accessKey));
  });

  it('reports EC2 AuthFailure (a region the keys cannot use) as refused credentials', async () => {
    const fake = await fakeAws();
    const err = await failure(
      awsCredentialsAdapter.collect(adapterContext({ ...credOptions, regions: 'ap-south-2' }, fake.url)),
    );
    assert.equal(err.kind, 'credentials');
    assert.match(err.message, /DescribeAddresses \(AuthFailure\)/);
  });

  it('reports AccessDenied and UnauthorizedOperation as permission failures', async () => {
    const fake = await fakeAws();
    fake.denied.add('ListHostedZones');
    const r53 = await failure(awsCredentialsAdapter.collect(adapterContext(credOptions, fake.url)));
    assert.equal(r53.kind, 'permission');
    assert.match(r53.message, /ListHostedZones.*\(AccessDenied\)/);
    fake.denied.clear();
    fake.denied.add('DescribeInstances');
    const ec2 = await failure(awsCredentialsAdapter.collect(adapterContext(credOptions, fake.url)));
    assert.equal(ec2.kind, 'permission');
    assert.match(ec2.message, /DescribeInstances.*\(UnauthorizedOperation\)/);
  });

  it('reports a closed port as unreachable', async () => {
    const port = await closedPort();
    const err = await failure(awsCredentialsAdapter.collect(adapterContext(credOptions, `http://127.0.0.1:${port}`)));
    assert.equal(err.kind, 'unreachable');
    assert.match(err.message, /ListHostedZones \(ECONNREFUSED\)/);
  });

  it('reports a request that gets no answer within the time-out as unreachable', async () => {
    const fake = await fakeAws();
    fake.stalled.add('ListHostedZones');
    const err = await failure(
      awsCredentialsAdapter.collect(adapterContext(credOptions, fake.url, { requestTimeoutMs: 200 })),
    );
    assert.equal(err.kind, 'unreachable');
    assert.match(err.message, /^AWS could not be reached for ListHostedZones/);
  });

  it('reports a connection the egress guard refuses as unreachable, and sends nothing', async () => {
    const fake = await fakeAws();
    const err = await failure(awsCredentialsAdapter.collect(deniedContext(credOptions, fake.url)));
    assert.equal(err.kind, 'unreachable');
    assert.match(err.message, /EgressDeniedError/);
    assert.equal(fake.requests.length, 0);
  });

  it('stops promptly when the run is aborted during a call', async () => {
    const fake = await fakeAws();
    fake.stalled.add('ListResourceRecordSets');
    const controller = new AbortController();
    const run = awsCredentialsAdapter.collect(adapterContext(credOptions, fake.url, { signal: controller.signal }));
    while (count(fake, 'ListResourceRecordSets') === 0) await new Promise((r) => setTimeout(r, 10));
    const abortedAt = Date.now();
    controller.abort(new Error('run cancelled'));
    await assert.rejects(run, /run cancelled/);
    assert.ok(Date.now() - abortedAt < 1000);
    assert.equal(count(fake, 'ListResourceRecordSets'), 1, 'no retry after the abort');
  });
});

describe('AWS connector (CLOUD_A_ROLE_BASED)', () => {
  const serverCredentials = { accessKeyId: serverKey, secretAccessKey: serverSecret };
  const roleOptions = { role_arn: roleArn, regions: 'eu-west-1,us-east-1' };

  it('assumes the role with the external ID and reads with the temporary credentials', async () => {
    const fake = await fakeAws();
    const inventory = await createAwsRoleAdapter(serverCredentials).collect(adapterContext(roleOptions, fake.url));
    assert.deepEqual(inventory, expectedInventory);
    const [assume, ...rest] = fake.requests;
    assert.equal(assume?.operation, 'AssumeRole');
    assert.equal(assume?.service, 'sts');
    assert.equal(assume?.accessKeyId, serverKey);
    assert.equal(assume?.params.get('RoleArn'), roleArn);
    assert.equal(assume?.params.get('ExternalId'), externalId);
    assert.equal(assume?.params.get('RoleSessionName'), 'perimeter-connector');
    assert.equal(assume?.params.get('DurationSeconds'), '900');
    assert.equal(fake.issuedKeys.length, 1, 'one session for the whole run');
    const temporary = fake.issuedKeys[0];
    assert.ok(rest.length > 0 && rest.every((r) => r.accessKeyId === temporary));
    assert.ok(rest.every((r) => typeof r.headers['x-amz-security-token'] === 'string'));
    assert.ok(
      String(rest.find((r) => r.operation === 'ListHostedZones')?.headers.authorization).includes(
        `Credential=${temporary}/`,
      ),
    );
  });

  it('refuses a wrong external ID as a permission failure naming the trust policy, before any other call', async () => {
    const fake = await fakeAws();
    const err = await failure(
      createAwsRoleAdapter(serverCredentials).collect(
        adapterContext(roleOptions, fake.url, { externalId: 'ffffffffffffffffffffffffffffffff' }),
      ),
    );
    assert.equal(err.kind, 'permission');
    assert.match(err.message, /AssumeRole.*\(AccessDenied\)/);
    assert.match(err.message, /trust policy .*external ID/);
    assert.deepEqual(
      fake.requests.map((r) => r.operation),
      ['AssumeRole'],
    );
  });

  it("refuses the server's own unknown key as refused credentials", async () => {
    const fake = await fakeAws();
    const err = await failure(
      createAwsRoleAdapter({ accessKeyId: 'AKIAUNKNOWNSERVER000', secretAccessKey: serverSecret }).collect(
        adapterContext(roleOptions, fake.url),
      ),
    );
    assert.equal(err.kind, 'credentials');
    assert.equal(
      err.message,
      "AWS refused this server's own AWS credentials for AssumeRole (InvalidClientTokenId): the operator must fix them",
    );
  });

  it('retries a throttled AssumeRole', async () => {
    const fake = await fakeAws();
    fake.throttle(2, 'AssumeRole');
    const inventory = await createAwsRoleAdapter(serverCredentials).collect(adapterContext(roleOptions, fake.url));
    assert.equal(inventory.zones.length, 2);
    assert.equal(count(fake, 'AssumeRole'), 3);
  });

  describe('with the server credentials from the environment (default provider chain)', () => {
    const names = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'] as const;
    const saved = names.map((name) => process.env[name]);
    after(() => {
      names.forEach((name, i) => {
        const value = saved[i];
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      });
    });

    it('signs AssumeRole with AWS_ACCESS_KEY_ID', async () => {
      process.env.AWS_ACCESS_KEY_ID = serverKey;
      process.env.AWS_SECRET_ACCESS_KEY = serverSecret;
      delete process.env.AWS_SESSION_TOKEN;
      const fake = await fakeAws();
      const inventory = await awsRoleAdapter.collect(adapterContext(roleOptions, fake.url));
      assert.equal(inventory.zones.length, 2);
      assert.equal(fake.requests[0]?.accessKeyId, serverKey);
    });
  });
});
