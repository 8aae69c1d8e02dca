import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ScanLimits, ScanSink } from '../../src/core/scans/scan-engine.ts';
import { defaultScanProfileSettings, type ScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { defaultCredentials } from '../../src/engine/http-scan/checks/default-credentials.check.ts';
import { putCanaryPathPattern, tracePathPattern } from '../../src/engine/http-scan/checks/http-methods.check.ts';
import { createHttpScanEngine } from '../../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { startHttpServer } from '../support/http-server.ts';
import type { TargetServer } from '../support/target-site.ts';
import {
  adminSessionCookie,
  loginAttempts,
  loginDelayMs,
  type LoginAttempt,
} from '../support/vulnerable-site/authentication.ts';
import { startVulnerableSites, type VulnerableSites } from '../support/vulnerable-site/index.ts';
import type { Spot } from '../support/vulnerable-site/types.ts';

const engine = createHttpScanEngine({
  guard: new EgressGuard(['127.0.0.0/8']),
  resolver: createDnsResolver(['127.0.0.1:9']) /* no name leaves the machine: a closed loopback port */,
});
// The fixture's time-based injection spots sleep 4 s: the request time limit leaves room for them.
const limits: ScanLimits = { maxPages: 500, maxDepth: 10, maxDurationMs: 120_000, requestTimeoutMs: 10_000 };
const myChecks = new Set([
  'cookie-flags',
  'http-security-headers',
  'cors-misconfiguration',
  'mixed-content',
  'http-methods',
  'clickjacking',
  'version-disclosure',
  'login-over-http',
  'password-autocomplete',
  'default-credentials',
]);

interface ScanResult {
  status: string;
  findings: FindingInput[];
  warnings: string[];
}

async function scan(
  server: { scheme: 'http' | 'https'; port: number },
  settings: Partial<ScanProfileSettings> = {},
): Promise<ScanResult> {
  const findings: FindingInput[] = [];
  const warnings: string[] = [];
  const sink: ScanSink = {
    finding: async (f) => void findings.push(f),
    progress: () => undefined,
    warning: (w) => void warnings.push(w),
  };
  const target = { scheme: server.scheme, host: '127.0.0.1', port: server.port, scopeName: '127.0.0.1' };
  const outcome = await engine.scan(
    target,
    { ...defaultScanProfileSettings, ...settings },
    limits,
    sink,
    new AbortController().signal,
  );
  return { status: outcome.status, findings, warnings };
}

const pathOf = (location: string): string => location.replace(/^https?:\/\/[^/]+/, '');
const mine = (findings: FindingInput[]): FindingInput[] => findings.filter((f) => myChecks.has(f.checkId));
const summary = (findings: FindingInput[]): string[] =>
  mine(findings)
    .map((f) => `${f.checkId} ${pathOf(f.location)}`)
    .sort();
const spotsFor = (manifest: Spot[], scheme: 'http' | 'https'): Spot[] =>
  manifest.filter(
    (s) => (s.class === 'configuration' || s.class === 'authentication') && (s.scheme ?? scheme) === scheme,
  );
/** The default-credentials check's attempts: a random baseline or a pair of the list (the crawler and the injection checks post to login forms too). */
const isCheckAttempt = (a: LoginAttempt): boolean =>
  /^perimeter-[0-9a-f]{12}$/.test(a.user) || defaultCredentials.some(([u, p]) => u === a.user && p === a.password);
const findingAt = (result: ScanResult, checkId: string, path: string): FindingInput | undefined =>
  result.findings.find((f) => f.checkId === checkId && pathOf(f.location) === path);

/** Every spot of the scheme found once, with the house evidence; nothing else from these checks. */
function assertSpotsFound(result: ScanResult, spots: Spot[]): void {
  assert.equal(result.status, 'completed');
  for (const spot of spots) {
    const found = result.findings.filter((f) => f.checkId === spot.checkId && pathOf(f.location) === spot.location);
    assert.equal(
      found.length,
      1,
      `${spot.id}: ${spot.checkId} at ${spot.location} (found: ${summary(result.findings).join(', ')})`,
    );
    const finding = found[0]!;
    assert.ok(
      finding.cwe !== undefined && finding.cvss?.cvss_3_1 !== undefined && finding.owasp?.[0]?.year === 2021,
      spot.id,
    );
    assert.ok(finding.request !== undefined && finding.response !== undefined, spot.id);
    assert.ok((finding.details?.markdown?.[0]?.value ?? '').length > 0, `${spot.id}: remediation`);
    assert.ok((finding.details?.text?.[0]?.value ?? '').length > 0, `${spot.id}: observation`);
    assert.ok(finding.references !== undefined && finding.references.length >= 2, spot.id);
  }
  const expected = new Set(spots.map((s) => `${s.checkId} ${s.location}`));
  assert.deepEqual(
    summary(result.findings).filter((s) => !expected.has(s)),
    [],
    'every finding of these checks is a spot of the manifest',
  );
}

describe('configuration and authentication checks on the vulnerable fixture site', () => {
  let plain: VulnerableSites;
  let tls: VulnerableSites;
  const results: Record<'vulnerable' | 'safe' | 'tlsVulnerable' | 'tlsSafe', ScanResult> = {} as never;
  before(async () => {
    plain = await startVulnerableSites();
    tls = await startVulnerableSites({ isHttps: true });
    [results.vulnerable, results.safe, results.tlsVulnerable, results.tlsSafe] = await Promise.all([
      scan(plain.vulnerable),
      scan(plain.safe),
      scan(tls.vulnerable),
      scan(tls.safe),
    ]);
  });
  after(async () => {
    await plain.stop();
    await tls.stop();
  });
  const servers = (): TargetServer[] => [plain.vulnerable, plain.safe, tls.vulnerable, tls.safe];

  it('has at least 14 configuration and authentication spots', () => {
    const spots = plain.manifest.filter((s) => s.class === 'configuration' || s.class === 'authentication');
    assert.ok(spots.length >= 14, `${spots.length} spots`);
    assert.equal(new Set(spots.map((s) => s.id)).size, spots.length, 'spot ids are unique');
  });

  it('finds every spot over HTTP, each once, and nothing else from these checks', () => {
    assertSpotsFound(results.vulnerable, spotsFor(plain.manifest, 'http'));
  });

  it('finds every spot over HTTPS (HSTS, mixed content, a login posting to http://), each once', () => {
    assertSpotsFound(results.tlsVulnerable, spotsFor(tls.manifest, 'https'));
  });

  it('reports nothing from these checks on the safe twins, though every check ran against them', () => {
    assert.deepEqual(summary(results.safe.findings), []);
    assert.deepEqual(summary(results.tlsSafe.findings), []);
    for (const safe of [plain.safe, tls.safe]) {
      const requests = safe.requests;
      assert.ok(
        requests.some((r) => r.method === 'TRACE'),
        'TRACE sent',
      );
      assert.ok(
        requests.some((r) => r.method === 'PUT') &&
          requests.some((r) => r.method === 'GET' && putCanaryPathPattern.test(r.path)),
        'PUT canary sent and read back',
      );
      assert.ok(
        requests.some((r) => r.path === '/api/account' && r.headers.origin === 'https://perimeter-cors-check.invalid'),
        'CORS probe sent',
      );
      assert.ok(
        requests.some((r) => r.path === '/api/orders' && r.headers.origin === 'null'),
        'null origin probe sent',
      );
    }
    const safeTries = loginAttempts.filter(
      (a) => a.port === tls.safe.port && defaultCredentials.some(([u, p]) => a.user === u && a.password === p),
    );
    assert.ok(
      safeTries.some((a) => a.path === '/admin/login') && safeTries.some((a) => a.path === '/manager/html'),
      'default credentials were tried on the safe twin',
    );
  });

  it('grades each finding: weak headers low, CORS with credentials high, PUT high, default credentials critical, autocomplete informational', () => {
    const r = results.vulnerable;
    const score = (checkId: string, path: string): [string | undefined, number | undefined] => {
      const f = findingAt(r, checkId, path);
      return [f?.severity, f?.cvss?.cvss_3_1?.score];
    };
    assert.deepEqual(score('http-security-headers', '/?header=content-security-policy'), ['low', 3.1]);
    assert.match(
      findingAt(r, 'http-security-headers', '/?header=content-security-policy')!.title,
      /^Weak security header: Content-Security-Policy \(script-src allows 'unsafe-inline'/,
    );
    assert.match(findingAt(r, 'http-security-headers', '/?header=x-frame-options')!.title, /^Missing security header/);
    assert.deepEqual(score('cors-misconfiguration', '/api/account'), ['high', 7.1]);
    assert.deepEqual(score('cors-misconfiguration', '/api/orders'), ['high', 7.1]);
    assert.deepEqual(score('cors-misconfiguration', '/api/catalogue'), ['low', 3.1]);
    assert.deepEqual(score('http-methods', '/?method=PUT'), ['high', 7.5]);
    assert.deepEqual(score('http-methods', '/?method=TRACE'), ['low', 3.1]);
    assert.deepEqual(score('clickjacking', '/'), ['medium', 4.3]);
    assert.deepEqual(score('version-disclosure', '/?banner=server'), ['low', 3.7]);
    assert.deepEqual(score('login-over-http', '/signin'), ['medium', 5.3]);
    assert.deepEqual(score('password-autocomplete', '/signin'), ['information', 0]);
    assert.deepEqual(score('default-credentials', '/admin/login'), ['critical', 9.8]);
    assert.deepEqual(
      score('mixed-content', '/pay/checkout'),
      [undefined, undefined],
      'mixed content needs an HTTPS page',
    );
    const mixed = findingAt(results.tlsVulnerable, 'mixed-content', '/pay/checkout')!;
    assert.equal(mixed.severity, 'medium');
    assert.match(mixed.details?.text?.[0]?.value ?? '', /2 references/);
  });

  it('records the evidence: highlighted headers and body offsets that hold', () => {
    const r = results.vulnerable;
    const highlightOf = (f: FindingInput | undefined) => f?.details?.text?.[0]?.highlights[0];
    assert.deepEqual(highlightOf(findingAt(r, 'version-disclosure', '/?banner=server')), {
      field: 'response.headers.server',
      value: 'Apache/2.4.41',
      offset: 0,
      length: 13,
    });
    assert.equal(
      highlightOf(findingAt(r, 'http-security-headers', '/?header=content-security-policy'))?.value,
      "'unsafe-inline'",
    );
    const cors = findingAt(r, 'cors-misconfiguration', '/api/account')!;
    assert.equal(highlightOf(cors)?.value, 'https://perimeter-cors-check.invalid');
    assert.ok(
      cors.request?.headers.some((h) => h.name === 'origin' && h.value === 'https://perimeter-cors-check.invalid'),
    );
    for (const [checkId, path] of [
      ['http-methods', '/?method=TRACE'],
      ['http-methods', '/?method=PUT'],
      ['login-over-http', '/signin'],
      ['password-autocomplete', '/signin'],
    ] as const) {
      const f = findingAt(r, checkId, path)!;
      const h = f.details?.text?.[0]?.highlights.find((x) => x.field === 'response.body');
      assert.ok(h !== undefined, `${checkId} ${path} highlights the body`);
      assert.equal(f.response?.body.slice(h.offset, h.offset + h.length), h.value);
    }
    const defaults = findingAt(r, 'default-credentials', '/admin/login')!;
    assert.equal(defaults.title, 'Default credentials accepted on an administration login: admin/admin');
    assert.match(
      defaults.details?.text?.[0]?.value ?? '',
      /Confirmed against a failed baseline, twice: .*303 redirecting to \/admin\/dashboard.*200 with the login form again/,
    );
    assert.equal(
      findingAt(r, 'default-credentials', '/manager/html')?.title,
      'Default credentials accepted on an administration login: tomcat/tomcat',
    );
  });

  it('sends PUT and TRACE only to paths of their own, and never DELETE', () => {
    for (const server of servers()) {
      assert.deepEqual(
        server.requests.filter((r) => r.method === 'DELETE'),
        [],
      );
      for (const r of server.requests.filter((x) => x.method === 'PUT')) assert.match(r.path, putCanaryPathPattern);
      for (const r of server.requests.filter((x) => x.method === 'TRACE')) assert.match(r.path, tracePathPattern);
      assert.deepEqual(
        [...new Set(server.requests.map((r) => r.method))].filter((m) => !['GET', 'POST', 'PUT', 'TRACE'].includes(m)),
        [],
      );
      assert.ok(server.requests.filter((x) => x.method === 'PUT').length <= 1, 'one PUT per origin');
    }
  });

  it('keeps the session a default-credential login opened out of the rest of the scan', () => {
    const carried = [...plain.vulnerable.requests, ...tls.vulnerable.requests].filter((r) =>
      (r.headers.cookie ?? '').includes(`${adminSessionCookie}=`),
    );
    assert.deepEqual(
      carried.map((r) => `${r.method} ${r.path}`),
      [],
      'no request after the login carried the admin session cookie',
    );
  });

  it('tries default credentials one at a time, after a random baseline, at most the list per login, stopping at a success', () => {
    for (const server of servers()) {
      const tries = loginAttempts
        .filter((a) => a.port === server.port && isCheckAttempt(a))
        .sort((a, b) => a.at - b.at);
      for (let i = 1; i < tries.length; i++)
        assert.ok(
          tries[i]!.at - tries[i - 1]!.at >= loginDelayMs - 2,
          `attempt ${i} on ${server.origin} overlapped the previous one`,
        );
      for (const path of new Set(tries.map((t) => t.path))) {
        const onPath = tries.filter((t) => t.path === path);
        assert.match(onPath[0]!.user, /^perimeter-[0-9a-f]+$/, 'a random baseline comes first');
        const pairs = onPath.filter((t) => defaultCredentials.some(([u, p]) => u === t.user && p === t.password));
        assert.ok(pairs.length <= defaultCredentials.length, `${pairs.length} pairs on ${path}`);
      }
      // The safe twin's /secure-login posts to itself: an application login, tried there like any other.
      if (server === plain.vulnerable || server === tls.vulnerable)
        assert.ok(!tries.some((t) => t.path === '/secure-login'), 'a form posting to another host is never tried');
    }
    const vulnerable = loginAttempts.filter((a) => a.port === plain.vulnerable.port && isCheckAttempt(a));
    assert.deepEqual(
      vulnerable
        .filter((a) => a.path === '/admin/login' && !a.user.startsWith('perimeter-'))
        .map((a) => `${a.user}/${a.password}`),
      ['admin/admin'],
      'stops at the first success',
    );
    assert.deepEqual(
      vulnerable.filter((a) => a.path === '/manager/html' && !a.user.startsWith('perimeter-')).map((a) => a.user),
      ['admin', 'admin', 'root', 'tomcat'],
    );
    assert.equal(
      vulnerable.filter((a) => a.path === '/admin/login' && a.user.startsWith('perimeter-')).length,
      2,
      'a baseline before and a control after the success',
    );
  });
});

describe('configuration and authentication checks: scope', () => {
  it('never tries default credentials on a form whose action the scope excludes', async () => {
    const form =
      '<form method="post" action="/auth/session"><input name="user"><input type="password" name="pass"></form>';
    const site = await startHttpServer({
      '/': { status: 200, body: '<a href="/admin/">Admin</a>', headers: { 'content-type': 'text/html' } },
      '/admin/': { status: 200, body: form, headers: { 'content-type': 'text/html' } },
    });
    try {
      const result = await scan({ scheme: 'http', port: site.port }, { blacklisted_paths: ['/auth'] });
      assert.equal(result.status, 'completed');
      assert.deepEqual(
        site.requests.filter((r) => r.includes('/auth')),
        [],
      );
      assert.ok(findingAt(result, 'login-over-http', '/auth/session') !== undefined, 'the form itself is still judged');
      assert.equal(findingAt(result, 'default-credentials', '/auth/session'), undefined);
    } finally {
      await site.stop();
    }
  });
});
