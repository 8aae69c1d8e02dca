import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestDnsServer } from '../support/dns-server.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';

/** Ownership verification end to end: add through the API, the background check, the CLI check. */
describe('asset verification through the API', () => {
  const dns = new TestDnsServer();
  let web: TestHttpServer;
  let h: Harness;
  let key: string;
  let code: string;

  before(async () => {
    await dns.start();
    web = await startHttpServer({});
    h = await createHarness({ dnsResolvers: [dns.address], egressAllow: ['127.0.0.0/8'] });
    await h.admin('team', 'create', 'owners', '--json');
    code = JSON.parse(await h.admin('team', 'create', 'code-holder', '--json')).verification_code;
    key = (await h.key('code-holder')).key;
  });
  after(async () => {
    await h.close();
    await web.stop();
    await dns.stop();
  });

  async function statusOf(name: string): Promise<string> {
    const list = (await h.send('GET', '/rest/v2/assets/?include_subdomains=true&pageSize=1000', { key })).json();
    return list.assets.find((a: { name: string }) => a.name === name).status;
  }

  it('verifies an asset whose DNS TXT record holds the team code, right after it is added', async () => {
    dns.set('txt-proof.test', { txt: [`perimeter-verification=${code}`] });
    const res = await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'txt-proof.test' } });
    assert.equal(res.json().status, 'unverified');
    await h.runtime.verification.settle();
    assert.equal(await statusOf('txt-proof.test'), 'verified');
  });

  it('verifies through the HTTP file on the port given with the name', async () => {
    dns.set('web-proof.test', { a: ['127.0.0.1'] });
    web.routes.set('/.well-known/perimeter-verification.txt', `${code}\n`);
    await h.send('POST', '/rest/v2/assets/', { key, body: { name: `web-proof.test:${web.port}` } });
    await h.runtime.verification.settle();
    assert.equal(await statusOf('web-proof.test'), 'verified');
    assert.ok(web.requests.some((r) => r.startsWith('GET /.well-known/perimeter-verification.txt')));
  });

  it('leaves an asset without proof unverified, and verifies it on request once the proof appears', async () => {
    await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'late-proof.test' } });
    await h.runtime.verification.settle();
    assert.equal(await statusOf('late-proof.test'), 'unverified');
    dns.set('late-proof.test', { txt: [`perimeter-verification=${code}`] });
    const out = JSON.parse(await h.admin('asset', 'check', 'late-proof.test', '--json'));
    assert.equal(out.status, 'verified');
    assert.equal(out.verified_by, 'dns');
    assert.equal(await statusOf('late-proof.test'), 'verified');
  });

  it("does not accept another team's code", async () => {
    dns.set('wrong-code.test', { txt: ['perimeter-verification=0000000000000000deadbeef'] });
    await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'wrong-code.test' } });
    await h.runtime.verification.settle();
    assert.equal(await statusOf('wrong-code.test'), 'unverified');
  });
});

describe('asset verification behind the egress guard', () => {
  const dns = new TestDnsServer();
  let web: TestHttpServer;
  let h: Harness;

  before(async () => {
    await dns.start();
    web = await startHttpServer({});
    h = await createHarness({ dnsResolvers: [dns.address], egressAllow: [] });
  });
  after(async () => {
    await h.close();
    await web.stop();
    await dns.stop();
  });

  it('refuses to connect to a denied address and says so', async () => {
    const { key } = await h.team('guarded');
    dns.set('internal.test', { a: ['127.0.0.1'] });
    await h.send('POST', '/rest/v2/assets/', { key, body: { name: `internal.test:${web.port}` } });
    const out = JSON.parse(await h.admin('asset', 'check', 'internal.test', '--json'));
    assert.equal(out.status, 'unverified');
    assert.ok(
      out.observations.some((o: string) => /denied by egress guard: 127\.0\.0\.1 is in loopback range/.test(o)),
      out.observations.join('\n'),
    );
    assert.equal(web.connections, 0);
  });
});
