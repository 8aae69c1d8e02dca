import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { createDnsResolver, type DnsResolver } from '../../src/engine/dns/resolver.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { createOwnershipChecker } from '../../src/engine/verify/ownership-checker.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { startHttpServer, startHttpsServer, type TestHttpServer } from '../support/http-server.ts';

const CODE = 'c0ffee42verification';
const FILE = '/.well-known/perimeter-verification.txt';
const ATTEMPT_TIMEOUT_MS = 300;

let dns: TestDnsServer;
let resolver: DnsResolver;
let web: TestHttpServer;
let secure: TestHttpServer;
let misc: TestHttpServer;
let hang: TestHttpServer;
let untouched: TestHttpServer;

const never = (): AbortSignal => new AbortController().signal;
const localGuard = new EgressGuard(['127.0.0.0/8']);

/** A checker on the test DNS server that may reach 127.0.0.0/8 (or not, with another guard). */
function checker(guard: EgressGuard = localGuard): ReturnType<typeof createOwnershipChecker> {
  return createOwnershipChecker({ guard, resolver, attemptTimeoutMs: ATTEMPT_TIMEOUT_MS });
}

const domain = (name: string, port: number | null = null) => ({ name, kind: 'domain' as const, port });

before(async () => {
  dns = new TestDnsServer();
  await dns.start();
  resolver = createDnsResolver([dns.address], { timeoutMs: 1000, tries: 2 });
  web = await startHttpServer({ [FILE]: `${CODE}\n` });
  secure = await startHttpsServer({ [FILE]: `perimeter-verification=${CODE}\n` });
  misc = await startHttpServer({});
  hang = await startHttpServer({ [FILE]: { isHanging: true } });
  untouched = await startHttpServer({ [FILE]: CODE });
  dns.set('txt-ok.test', { txt: ['v=spf1 -all', ['perimeter-verification=', CODE]] });
  dns.set('txt-wrong.test', { txt: ['perimeter-verification=someone-else', CODE] });
  for (const name of ['web.test', 'secure.test', 'misc.test', 'hang.test']) dns.set(name, { a: ['127.0.0.1'] });
  dns.set('dual.test', { a: ['127.0.0.1'], aaaa: ['::1', '2001:db8::7'] });
  dns.set('nodata.test', { txt: ['only text'] });
  dns.set('broken.test', { isFailing: true });
  dns.set('silent.test', { isSilent: true });
  dns.set('big.test', { txt: ['a'.repeat(250), 'b'.repeat(250), `perimeter-verification=${CODE}`] });
});

after(async () => {
  await Promise.all([dns.stop(), web.stop(), secure.stop(), misc.stop(), hang.stop(), untouched.stop()]);
});

describe('dns resolver against the test server', () => {
  it('joins the character strings of each TXT record', async () => {
    assert.deepEqual(await resolver.resolveTxt('txt-ok.test', never()), [
      'v=spf1 -all',
      `perimeter-verification=${CODE}`,
    ]);
  });

  it('returns A then AAAA addresses', async () => {
    assert.deepEqual(await resolver.resolveAddresses('dual.test', never()), ['127.0.0.1', '::1', '2001:db8::7']);
  });

  it('answers [] for NXDOMAIN and for a name without the record type', async () => {
    assert.deepEqual(await resolver.resolveTxt('missing.test', never()), []);
    assert.deepEqual(await resolver.resolveAddresses('missing.test', never()), []);
    assert.deepEqual(await resolver.resolveAddresses('nodata.test', never()), []);
  });

  it('throws a clear error on a server failure', async () => {
    await assert.rejects(resolver.resolveTxt('broken.test', never()), {
      message: 'dns: TXT lookup of broken.test failed: server failure',
    });
  });

  it('fetches an answer too large for UDP over TCP', async () => {
    const records = await resolver.resolveTxt('big.test', never());
    assert.equal(records.length, 3);
    assert.ok(dns.queries.includes('TXT big.test tcp'), dns.queries.join(', '));
  });

  it('accepts a resolver given by host name and resolves it once', async (t) => {
    if ((await lookup('localhost')).address !== '127.0.0.1')
      return t.skip('localhost does not resolve to 127.0.0.1 here');
    const byName = createDnsResolver([`localhost:${dns.address.split(':')[1]}`]);
    assert.deepEqual(await byName.resolveAddresses('web.test', never()), ['127.0.0.1']);
  });

  it('ends promptly when the signal aborts a query that gets no answer', async () => {
    const started = Date.now();
    await assert.rejects(resolver.resolveTxt('silent.test', AbortSignal.timeout(100)), {
      message: 'dns: TXT lookup of silent.test aborted',
    });
    assert.ok(Date.now() - started < 800, `took ${Date.now() - started} ms`);
  });
});

describe('ownership check by DNS', () => {
  it('verifies when a TXT record holds perimeter-verification=<code>', async () => {
    const result = await checker().check(domain('txt-ok.test'), CODE, never());
    assert.deepEqual(result, { isVerified: true, via: 'dns', observations: ['dns: a TXT record holds the code'] });
  });

  it('does not verify another code nor the bare code in TXT', async () => {
    const result = await checker().check(domain('txt-wrong.test'), CODE, never());
    assert.deepEqual(result, {
      isVerified: false,
      observations: [
        'dns: no TXT record holds the code',
        'https://txt-wrong.test: txt-wrong.test has no address',
        'http://txt-wrong.test: txt-wrong.test has no address',
      ],
    });
  });

  it('reports NXDOMAIN as a clean non-verified result', async () => {
    const result = await checker().check(domain('missing.test'), CODE, never());
    assert.deepEqual(result, {
      isVerified: false,
      observations: [
        'dns: no TXT record at the name',
        'https://missing.test: missing.test has no address',
        'http://missing.test: missing.test has no address',
      ],
    });
  });
});

describe('ownership check by HTTP', () => {
  it('verifies the file over http on the asset port, keeping the Host header', async () => {
    const result = await checker().check(domain('web.test', web.port), CODE, never());
    assert.equal(result.isVerified, true);
    assert.equal(result.via, 'http');
    assert.equal(result.observations[0], 'dns: no TXT record at the name');
    assert.match(result.observations[1] ?? '', new RegExp(`^https://web\\.test:${web.port}: `));
    assert.equal(result.observations[2], `http://web.test:${web.port}: the file holds the code`);
    assert.ok(web.requests.includes(`GET ${FILE} web.test:${web.port}`), web.requests.join(', '));
  });

  it('verifies the file over https with a self-signed certificate, sending the name as SNI', async () => {
    const result = await checker().check(domain('secure.test', secure.port), CODE, never());
    assert.deepEqual(result, {
      isVerified: true,
      via: 'https',
      observations: ['dns: no TXT record at the name', `https://secure.test:${secure.port}: the file holds the code`],
    });
    assert.deepEqual(secure.serverNames, ['secure.test']);
  });

  it('verifies an IP asset with a port over http without asking DNS', async () => {
    const queriesBefore = dns.queries.length;
    const result = await checker().check({ name: '127.0.0.1', kind: 'ip', port: web.port }, CODE, never());
    assert.equal(result.isVerified, true);
    assert.equal(result.via, 'http');
    assert.equal(result.observations.at(-1), `http://127.0.0.1:${web.port}: the file holds the code`);
    assert.equal(dns.queries.length, queriesBefore);
  });

  it('does not verify a wrong file body', async () => {
    const result = await checker().check(domain('web.test', web.port), 'another-code', never());
    assert.equal(result.isVerified, false);
    assert.equal(result.observations.at(-1), `http://web.test:${web.port}: the file does not hold the code`);
  });

  it('does not follow redirects', async () => {
    misc.routes.set(FILE, { status: 302, headers: { location: '/code.txt' } });
    misc.routes.set('/code.txt', CODE);
    const result = await checker().check(domain('misc.test', misc.port), CODE, never());
    assert.equal(result.isVerified, false);
    assert.equal(
      result.observations.at(-1),
      `http://misc.test:${misc.port}: answered 302 (redirects are not followed)`,
    );
    assert.ok(!misc.requests.some((line) => line.startsWith('GET /code.txt')));
  });

  it('stops reading a body larger than 4 KB', async () => {
    misc.routes.set(FILE, `${CODE}${' '.repeat(5000)}`);
    const result = await checker().check(domain('misc.test', misc.port), CODE, never());
    assert.equal(result.isVerified, false);
    assert.equal(result.observations.at(-1), `http://misc.test:${misc.port}: body larger than 4096 bytes`);
  });
});

describe('ownership check through the egress guard', () => {
  it('makes no connection to a denied address and says why', async () => {
    const result = await checker(new EgressGuard([])).check(domain('web.test', untouched.port), CODE, never());
    const denied = 'denied by egress guard: 127.0.0.1 is in loopback range 127.0.0.0/8';
    assert.deepEqual(result, {
      isVerified: false,
      observations: [
        'dns: no TXT record at the name',
        `https://web.test:${untouched.port}: ${denied}`,
        `http://web.test:${untouched.port}: ${denied}`,
      ],
    });
    const ipResult = await checker(new EgressGuard([])).check(
      { name: '127.0.0.1', kind: 'ip', port: untouched.port },
      CODE,
      never(),
    );
    assert.equal(ipResult.isVerified, false);
    assert.equal(ipResult.observations.at(-1), `http://127.0.0.1:${untouched.port}: ${denied}`);
    assert.equal(untouched.connections, 0);
    assert.deepEqual(untouched.requests, []);
  });

  it('refuses a name when any of its addresses is denied', async () => {
    const result = await checker().check(domain('dual.test', untouched.port), CODE, never());
    assert.equal(
      result.observations.at(-1),
      `http://dual.test:${untouched.port}: denied by egress guard: ::1 is in loopback range ::1/128`,
    );
    assert.equal(untouched.connections, 0);
  });
});

describe('ownership check time limits', () => {
  it('ends an attempt that gets no answer after the per-attempt timeout', async () => {
    const started = Date.now();
    const result = await checker().check(domain('hang.test', hang.port), CODE, never());
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    assert.equal(result.isVerified, false);
    assert.equal(result.observations.at(-1), `http://hang.test:${hang.port}: timed out after ${ATTEMPT_TIMEOUT_MS} ms`);
  });

  it('ends promptly when the caller aborts during DNS', async () => {
    const started = Date.now();
    const result = await checker().check(domain('silent.test'), CODE, AbortSignal.timeout(150));
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    assert.deepEqual(result, {
      isVerified: false,
      observations: [
        'dns: TXT lookup of silent.test aborted',
        'https://silent.test: aborted',
        'http://silent.test: aborted',
      ],
    });
  });

  it('ends promptly when the caller aborts during HTTP', async () => {
    const started = Date.now();
    const slow = createOwnershipChecker({ guard: localGuard, resolver, attemptTimeoutMs: 10_000 });
    const result = await slow.check({ name: '127.0.0.1', kind: 'ip', port: hang.port }, CODE, AbortSignal.timeout(300));
    assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
    assert.equal(result.isVerified, false);
    assert.equal(result.observations.at(-1), `http://127.0.0.1:${hang.port}: aborted`);
  });
});
