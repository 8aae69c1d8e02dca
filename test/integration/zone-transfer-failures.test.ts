import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startBind, type BindServer } from '../support/bind-server.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// A transfer that fails because of the name server or its address is the caller's problem:
// 2412 (HTTP 400) naming nameServer and saying which failure, counted apart from server faults.
describe(`zone transfers that fail on the remote side (${testStore})`, () => {
  let h: Harness;
  let bind: BindServer;
  let dns: TestDnsServer;
  let key: string;

  before(async () => {
    bind = await startBind([
      {
        name: 'closed.test',
        text: '$TTL 300\n@ IN SOA ns1 hm 1 2 3 4 5\n@ IN NS ns1\nns1 IN A 192.0.2.1\n',
        allowTransfer: [],
      },
    ]);
    dns = new TestDnsServer();
    await dns.start();
    dns.set('silent.test', { isSilent: true });
    dns.set('empty.test', { a: ['192.0.2.1'] });
    h = await createHarness({ egressAllow: ['127.0.0.0/8'] });
    key = (await h.team('transfers')).key;
  });
  after(async () => {
    await h.close();
    await dns.stop();
    await bind.stop();
  });

  const transfer = (nameServer: string, zone: string) =>
    h.send('POST', '/rest/v2/zone/transfer/', { key, body: { nameServer, zone } });

  /** Asserts the whole answer to a remote failure, and that the zone added nothing. */
  async function assertRemoteFailure(nameServer: string, zone: string, expected: RegExp): Promise<void> {
    const res = await transfer(nameServer, zone);
    assert.equal(res.statusCode, 400, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['code', 'message', 'parameters', 'error']);
    assert.equal(body.code, 2412);
    assert.deepEqual(body.parameters, ['nameServer']);
    assert.deepEqual(body.error, {
      code: 2412,
      message: body.message,
      parameters: ['nameServer'],
      more_info: '/docs#error-2412',
    });
    assert.match(body.message, expected);
    assert.deepEqual((await h.send('GET', '/rest/v2/assets/', { key })).json(), {}, 'no apex asset was added');
  }

  it('refused by the name server', async () => {
    await assertRemoteFailure(
      bind.address,
      'closed.test',
      /^Zone transfer of closed\.test from 127\.0\.0\.1:\d+ failed: the name server refused the transfer \(127\.0\.0\.1:\d+ refused the transfer of closed\.test \(REFUSED\)\)$/,
    );
  });

  it('a name server that is not authoritative for the zone', async () => {
    await assertRemoteFailure(
      dns.address,
      'elsewhere.test',
      /^Zone transfer of elsewhere\.test from 127\.0\.0\.1:\d+ failed: the name server is not authoritative for the zone \(127\.0\.0\.1:\d+ is not authoritative for elsewhere\.test \(NXDOMAIN\)\)$/,
    );
  });

  it('a name server that answers nothing usable', async () => {
    await assertRemoteFailure(
      dns.address,
      'empty.test',
      /^Zone transfer of empty\.test from 127\.0\.0\.1:\d+ failed: the name server sent a malformed answer \(malformed answer from 127\.0\.0\.1:\d+: empty answer to the transfer of empty\.test\)$/,
    );
  });

  it('a name server nothing listens on', async () => {
    const port = await closedPort();
    await assertRemoteFailure(
      `127.0.0.1:${port}`,
      'gone.test',
      new RegExp(
        `^Zone transfer of gone\\.test from 127\\.0\\.0\\.1:${port} failed: the name server could not be reached \\(.*refused the connection\\)$`,
      ),
    );
  });

  it('an address the egress guard denies (no connection is made)', async () => {
    await assertRemoteFailure(
      '10.20.30.40',
      'private.test',
      /^Zone transfer of private\.test from 10\.20\.30\.40:53 failed: the egress guard denies the name server's address \(.+\)$/,
    );
  });

  it('a name server that does not answer in time (10 s)', { timeout: 30_000 }, async () => {
    await assertRemoteFailure(
      dns.address,
      'silent.test',
      /^Zone transfer of silent\.test from 127\.0\.0\.1:\d+ failed: the name server did not answer in time \(127\.0\.0\.1:\d+ sent nothing for 10000 ms\)$/,
    );
  });

  it('counts them in /metrics by reason, apart from server faults (which an injected failure shows)', async () => {
    const original = h.runtime.store.transaction;
    h.runtime.store.transaction = async () => {
      throw new Error('injected store failure');
    };
    try {
      const res = await transfer(dns.address, 'empty.test');
      assert.equal(res.statusCode, 500);
      assert.equal(res.json().code, 1910);
    } finally {
      h.runtime.store.transaction = original;
    }
    const metrics = (await h.send('GET', '/metrics')).body;
    for (const reason of ['refused', 'notauth', 'malformed', 'connection', 'denied', 'timeout']) {
      assert.match(
        metrics,
        new RegExp(`^perimeter_remote_failures_total\\{operation="zone-transfer",reason="${reason}"\\} 1$`, 'm'),
        reason,
      );
    }
    assert.match(
      metrics,
      /^perimeter_http_requests_total\{method="POST",route="\/rest\/v2\/zone\/transfer\/",status="400"\} 6$/m,
    );
    assert.match(
      metrics,
      /^perimeter_http_server_faults_total\{method="POST",route="\/rest\/v2\/zone\/transfer\/",status="500"\} 1$/m,
    );
  });
});
