import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TlsAssessmentOptions, TlsReport, TlsTarget } from '../../src/core/surface/exposure-engines.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { createTlsAssessor } from '../../src/engine/tls/tls-assessor.ts';
import { listenTracked, type TrackedServer } from '../support/http-server.ts';
import { startTlsServer, TestPki, type IssuedCertificate, type TlsServer } from '../support/tls-server.ts';

const DAY = 86_400_000;
const loopback = new EgressGuard(['127.0.0.0/8', '::1/128']);
const all: TlsAssessmentOptions = {
  certificates: true,
  passive: true,
  active: true,
  customHeaders: [],
  timeoutMs: 3000,
};
const STRONG = ['-no_ssl3', '-no_tls1', '-no_tls1_1', '-cipher', 'ECDHE+AESGCM:ECDHE+CHACHA20'];

let dir: string;
let pki: TestPki;
const servers: Array<{ stop(): Promise<void> }> = [];

function target(port: number, name: string, isHttp = false): TlsTarget {
  return { address: '127.0.0.1', port, names: [name], isHttp };
}

/** The checkIds of a report, sorted. */
function kinds(report: TlsReport): string[] {
  return report.findings.map((f) => f.checkId).sort();
}

async function serve(cert: IssuedCertificate, options: string[]): Promise<TlsServer> {
  const server = await startTlsServer(cert, options);
  servers.push(server);
  return server;
}

async function assess(
  t: TlsTarget,
  options: Partial<TlsAssessmentOptions> = {},
  trustTestCa = true,
): Promise<TlsReport> {
  const assessor = createTlsAssessor({ guard: loopback, ...(trustTestCa ? { extraRootsPem: [pki.caPem] } : {}) });
  return assessor.assess([t], { ...all, ...options }, AbortSignal.timeout(30_000));
}

/** A TCP server that accepts and then does what `onSocket` says (nothing: a silent port). */
async function rawServer(
  onSocket: (socket: net.Socket) => void,
): Promise<{ port: number; connections: () => number; stop(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const handle = {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(handle);
  return handle;
}

/** client_version and suites of the ClientHello at the start of `data`, or undefined while incomplete. */
function offered(data: Buffer): { version: number; suites: number[] } | undefined {
  if (data.length < 5 || data.length < 5 + data.readUInt16BE(3)) return undefined;
  const body = data.subarray(9);
  let at = 34;
  at += 1 + (body[at] as number);
  const suites: number[] = [];
  for (let i = 0; i < body.readUInt16BE(at); i += 2) suites.push(body.readUInt16BE(at + 2 + i));
  return { version: body.readUInt16BE(0), suites };
}

/** A ServerHello record choosing `suite` at `version` (no extensions). */
function serverHello(version: number, suite: number): Buffer {
  const body = Buffer.concat([
    Buffer.from([version >> 8, version & 0xff]),
    Buffer.alloc(32, 1),
    Buffer.from([0, suite >> 8, suite & 0xff, 0]),
  ]);
  const handshake = Buffer.concat([Buffer.from([2, 0, 0, body.length]), body]);
  return Buffer.concat([Buffer.from([22, version >> 8, version & 0xff, 0, handshake.length]), handshake]);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'perimeter-tls-'));
  pki = await TestPki.create(dir);
});

after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

describe('TLS engine against openssl s_server', () => {
  it('finds nothing on a good server (TLS 1.2 and 1.3, ECDHE AEAD suites, valid certificate from a trusted CA)', async () => {
    const server = await serve(await pki.issue({ label: 'good', names: ['good.test'] }), STRONG);
    const report = await assess(target(server.port, 'good.test'));
    assert.deepEqual(kinds(report), []);
    assert.deepEqual(report.warnings, []);
    const endpoint = report.endpoints[0];
    assert.equal(endpoint?.isTls, true);
    assert.equal(endpoint?.protocol, 'TLSv1.3');
    assert.match(endpoint?.cipher ?? '', /^TLS_(AES|CHACHA20)/);
    assert.deepEqual(endpoint?.acceptedProtocols, ['TLSv1.2', 'TLSv1.3']);
    assert.deepEqual(endpoint?.certificate?.sans, ['good.test']);
    assert.match(endpoint?.certificate?.issuer ?? '', /Perimeter Test CA/);
  });

  it('reports an untrusted chain when the issuing CA is not a trusted root', async () => {
    const server = await serve(await pki.issue({ label: 'untrusted', names: ['untrusted.test'] }), STRONG);
    const report = await assess(target(server.port, 'untrusted.test'), {}, false);
    assert.deepEqual(kinds(report), ['tls-certificate-untrusted-chain']);
    assert.match(
      report.findings[0]?.details?.text?.[0]?.value ?? '',
      /no trusted issuer for CN=untrusted\.test \(issuer CN=Perimeter Test CA/,
    );
  });

  it('reports legacy protocols, weak suites and missing forward secrecy on a legacy server', async () => {
    // Debian's OpenSSL 3 builds no RC4, DES or 3DES suite and no SSLv3: NULL and anonymous suites are the weak ones it can serve.
    const server = await serve(await pki.issue({ label: 'legacy', names: ['legacy.test'] }), [
      '-no_tls1_2',
      '-no_tls1_3',
      '-cipher',
      'AES128-SHA:NULL-SHA:ADH-AES128-SHA:@SECLEVEL=0',
    ]);
    const report = await assess(target(server.port, 'legacy.test'));
    assert.deepEqual(kinds(report), [
      'tls-no-forward-secrecy',
      'tls-no-forward-secrecy-negotiated',
      'tls-protocol-tls1.0',
      'tls-protocol-tls1.1',
      'tls-protocol-tls1.3-missing',
      'tls-weak-cipher-suites-accepted',
    ]);
    const endpoint = report.endpoints[0];
    assert.equal(endpoint?.protocol, 'TLSv1.1');
    assert.equal(endpoint?.cipher, 'TLS_RSA_WITH_AES_128_CBC_SHA');
    assert.deepEqual(endpoint?.acceptedProtocols, ['TLSv1', 'TLSv1.1']);
    const weak = report.findings.find((f) => f.checkId === 'tls-weak-cipher-suites-accepted');
    const evidence = weak?.details?.text?.[1]?.value ?? '';
    assert.match(evidence, /TLSv1: .*TLS_RSA_WITH_NULL_SHA \(NULL encryption\)/);
    assert.match(evidence, /TLSv1\.1: .*TLS_DH_anon_WITH_AES_128_CBC_SHA \(anonymous key exchange\)/);
    assert.equal(weak?.location, 'legacy.test:' + server.port);
    assert.equal(weak?.host, 'legacy.test');
    const tls10 = report.findings.find((f) => f.checkId === 'tls-protocol-tls1.0');
    assert.match(
      tls10?.details?.text?.[1]?.value ?? '',
      /offered TLSv1 ClientHello \(SNI legacy\.test\) offering \d+ suites; answered ServerHello TLSv1 /,
    );

    // Passive only: what the ordinary handshake shows, without the extra ClientHellos.
    const passive = await assess(target(server.port, 'legacy.test'), { active: false, certificates: false });
    assert.deepEqual(kinds(passive), [
      'tls-no-forward-secrecy-negotiated',
      'tls-protocol-tls1.1',
      'tls-protocol-tls1.3-missing',
    ]);
    assert.equal(passive.endpoints[0]?.acceptedProtocols, undefined);
  });

  it('reports an expired certificate, and one that expires within 30 days', async () => {
    const expired = await serve(
      await pki.issue({
        label: 'expired',
        names: ['expired.test'],
        notBefore: new Date(Date.now() - 400 * DAY),
        notAfter: new Date(Date.now() - 10 * DAY),
      }),
      STRONG,
    );
    const report = await assess(target(expired.port, 'expired.test'));
    assert.deepEqual(kinds(report), ['tls-certificate-expired']);
    assert.match(report.findings[0]?.details?.text?.[0]?.value ?? '', /expired on .* \(10 days ago\)/);
    const expiring = await serve(
      await pki.issue({ label: 'expiring', names: ['expiring.test'], notAfter: new Date(Date.now() + 10 * DAY) }),
      STRONG,
    );
    assert.deepEqual(kinds(await assess(target(expiring.port, 'expiring.test'))), ['tls-certificate-expiring']);
    const future = await serve(
      await pki.issue({
        label: 'future',
        names: ['future.test'],
        notBefore: new Date(Date.now() + 5 * DAY),
        notAfter: new Date(Date.now() + 300 * DAY),
      }),
      STRONG,
    );
    assert.deepEqual(kinds(await assess(target(future.port, 'future.test'))), ['tls-certificate-not-yet-valid']);
  });

  it('reports a self-signed certificate (and not also an untrusted chain)', async () => {
    const server = await serve(await pki.issue({ label: 'self', names: ['self.test'], isSelfSigned: true }), STRONG);
    const report = await assess(target(server.port, 'self.test'));
    assert.deepEqual(kinds(report), ['tls-certificate-self-signed']);
  });

  it('reports a host name mismatch per SNI name, and a wildcard covering one label only', async () => {
    const server = await serve(await pki.issue({ label: 'wild', names: ['*.wild.test', 'other.test'] }), STRONG);
    const assessor = createTlsAssessor({ guard: loopback, extraRootsPem: [pki.caPem] });
    const report = await assessor.assess(
      [
        {
          address: '127.0.0.1',
          port: server.port,
          names: ['www.wild.test', 'a.b.wild.test', 'mismatch.test'],
          isHttp: false,
        },
      ],
      all,
      AbortSignal.timeout(30_000),
    );
    assert.deepEqual(report.findings.map((f) => `${f.checkId} ${f.host}`).sort(), [
      'tls-certificate-hostname-mismatch a.b.wild.test',
      'tls-certificate-hostname-mismatch mismatch.test',
    ]);
    assert.deepEqual(
      report.endpoints.map((e) => e.name),
      ['a.b.wild.test', 'mismatch.test', 'www.wild.test'],
    );
    assert.match(
      report.findings[1]?.details?.text?.[0]?.value ?? '',
      /does not cover mismatch\.test: it presents subject alternative names DNS:\*\.wild\.test, DNS:other\.test/,
    );
  });

  it('reports a weak key (RSA 1024) and a weak signature (SHA-1)', async () => {
    const weakKey = await serve(await pki.issue({ label: 'weakkey', names: ['weakkey.test'], rsaBits: 1024 }), [
      '-no_tls1',
      '-no_tls1_1',
      '-cipher',
      'ECDHE+AESGCM:@SECLEVEL=0',
    ]);
    const report = await assess(target(weakKey.port, 'weakkey.test'));
    assert.deepEqual(kinds(report), ['tls-certificate-weak-key']);
    assert.match(report.findings[0]?.details?.text?.[0]?.value ?? '', /leaf CN=weakkey\.test has RSA 1024/);
    const sha1 = await serve(await pki.issue({ label: 'sha1', names: ['sha1.test'], hash: 'SHA-1' }), [
      '-no_tls1',
      '-no_tls1_1',
      '-cipher',
      'ECDHE+AESGCM:@SECLEVEL=0',
    ]);
    const signed = await assess(target(sha1.port, 'sha1.test'));
    assert.deepEqual(kinds(signed), ['tls-certificate-weak-signature']);
    assert.match(signed.findings[0]?.details?.text?.[0]?.value ?? '', /signed with RSASSA-PKCS1-v1_5 with SHA-1/);
  });
});

describe('TLS engine: HSTS on HTTPS origins', () => {
  async function httpsServer(
    cert: IssuedCertificate,
    headers: Record<string, string>,
  ): Promise<TrackedServer & { seen: Array<Record<string, unknown>> }> {
    const seen: Array<Record<string, unknown>> = [];
    const server = https.createServer({ cert: cert.certPem, key: readFileSync(cert.keyPath, 'utf8') }, (req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/html', ...headers });
      res.end('<html></html>');
    });
    const tracked = await listenTracked(server);
    servers.push(tracked);
    return Object.assign(tracked, { seen });
  }

  it('reports a missing Strict-Transport-Security header, sending the custom headers, and not on the twin that sends it', async () => {
    const cert = await pki.issue({ label: 'web', names: ['web.test'] });
    const without = await httpsServer(cert, {});
    const report = await assess(target(without.port, 'web.test', true), {
      customHeaders: [{ name: 'X-Scan', value: 'perimeter' }],
    });
    assert.deepEqual(kinds(report), ['tls-hsts-missing']);
    assert.equal(without.seen[0]?.['x-scan'], 'perimeter');
    assert.equal(without.seen[0]?.['host'], `web.test:${without.port}`);
    const finding = report.findings[0];
    assert.equal(finding?.response?.status_code, 200);
    assert.equal(finding?.request?.url, `https://web.test:${without.port}/`);

    const twin = await httpsServer(cert, { 'strict-transport-security': 'max-age=31536000; includeSubDomains' });
    assert.deepEqual(kinds(await assess(target(twin.port, 'web.test', true))), []);
  });
});

describe('TLS engine: what openssl s_server cannot serve', () => {
  it('reports SSLv3, RC4 and 3DES from a scripted server that answers the first flight as an old server would', async () => {
    // Answers SSLv3 and TLS 1.0 ClientHellos that offer RC4-SHA or DES-CBC3-SHA with a ServerHello, everything else with handshake_failure.
    const server = await rawServer((socket) => {
      let data = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        const hello = offered(data);
        if (hello === undefined) return;
        const suite = [0x0005, 0x000a].find((s) => hello.suites.includes(s));
        if ((hello.version === 0x0300 || hello.version === 0x0301) && suite !== undefined)
          socket.end(serverHello(hello.version, suite));
        else socket.end(Buffer.from([21, 3, 1, 0, 2, 2, 40]));
      });
    });
    const report = await assess(target(server.port, 'old.test'));
    assert.deepEqual(kinds(report), [
      'tls-no-forward-secrecy',
      'tls-protocol-sslv3',
      'tls-protocol-tls1.0',
      'tls-protocol-tls1.3-missing',
      'tls-weak-cipher-suites-accepted',
    ]);
    assert.deepEqual(report.endpoints[0]?.acceptedProtocols, ['SSLv3', 'TLSv1']);
    const weak =
      report.findings.find((f) => f.checkId === 'tls-weak-cipher-suites-accepted')?.details?.text?.[1]?.value ?? '';
    assert.match(
      weak,
      /SSLv3: TLS_RSA_WITH_RC4_128_SHA \(RC4\), TLS_RSA_WITH_3DES_EDE_CBC_SHA \(3DES \(64-bit block\)\)/,
    );
    assert.match(weak, /TLSv1: TLS_RSA_WITH_RC4_128_SHA \(RC4\), TLS_RSA_WITH_3DES_EDE_CBC_SHA/);
    assert.match(report.warnings.join('\n'), /old\.test at 127\.0\.0\.1:\d+: ordinary handshake failed/);
  });
});

describe('TLS engine: connections', () => {
  it('opens no connection to an address the egress guard refuses', async () => {
    const server = await rawServer(() => undefined);
    const assessor = createTlsAssessor({ guard: new EgressGuard([]) });
    const report = await assessor.assess([target(server.port, 'denied.test')], all, AbortSignal.timeout(10_000));
    assert.equal(server.connections(), 0);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(
      report.endpoints.map((e) => e.isTls),
      [false],
    );
    assert.match(report.warnings[0] ?? '', /refused by the egress guard \(127\.0\.0\.1 is in loopback range/);
  });

  it('reports a silent port as not TLS after the handshake time-out', async () => {
    const server = await rawServer(() => undefined);
    const startedAt = performance.now();
    const report = await assess(target(server.port, 'silent.test'), { timeoutMs: 300 });
    assert.ok(performance.now() - startedAt < 2000, 'the time-out bounds the probe');
    assert.deepEqual(
      report.endpoints.map((e) => e.isTls),
      [false],
    );
    assert.match(report.warnings[0] ?? '', /does not speak TLS \(no answer in time\)/);
  });

  it('reports a port that speaks another protocol as not TLS', async () => {
    const server = await rawServer((socket) =>
      socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n')),
    );
    const report = await assess(target(server.port, 'plain.test'));
    assert.deepEqual(
      report.endpoints.map((e) => e.isTls),
      [false],
    );
    assert.deepEqual(report.findings, []);
    assert.match(report.warnings[0] ?? '', /does not speak TLS \(not TLS: answered "HTTP\/1\.1 400 Bad Request/);
  });

  it('stops at once when the run is aborted', async () => {
    const server = await rawServer(() => undefined);
    const controller = new AbortController();
    const assessor = createTlsAssessor({ guard: loopback });
    const startedAt = performance.now();
    setTimeout(() => controller.abort(new Error('stopped by test')), 100);
    await assert.rejects(
      assessor.assess([target(server.port, 'abort.test')], { ...all, timeoutMs: 20_000 }, controller.signal),
      /stopped by test/,
    );
    assert.ok(performance.now() - startedAt < 1000, 'the abort ends the silent probe');
  });
});
