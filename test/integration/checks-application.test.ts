import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { defaultCredentials } from '../../src/engine/http-scan/checks/default-credentials.check.ts';
import { pathOf, scanFixture, summary, type FixtureScan } from '../support/fixture-scan.ts';
import { appLoginAttempts, appSessionCookie } from '../support/vulnerable-site/application.ts';
import { startVulnerableSites, type VulnerableSites } from '../support/vulnerable-site/index.ts';
import type { Spot } from '../support/vulnerable-site/types.ts';

/** The checks of issue 37 item 4 (part 1) besides default-credentials, which the configuration test covers too. */
const applicationChecks = new Set(['file-upload', 'csrf', 'session-id', 'sensitive-data-exposure']);
const mine = (findings: FindingInput[]): FindingInput[] =>
  findings.filter((f) => applicationChecks.has(f.checkId) || f.checkId === 'default-credentials');
const findingAt = (scan: FixtureScan, checkId: string, path: string): FindingInput[] =>
  scan.findings.filter((f) => f.checkId === checkId && pathOf(f.location) === path);

describe('application checks on the vulnerable fixture site', () => {
  let plain: VulnerableSites;
  let tls: VulnerableSites;
  let vulnerable: FixtureScan;
  let safe: FixtureScan;
  let tlsSafe: FixtureScan;
  let spots: Spot[];
  before(async () => {
    plain = await startVulnerableSites();
    tls = await startVulnerableSites({ isHttps: true });
    [vulnerable, safe, tlsSafe] = await Promise.all([
      scanFixture(plain.vulnerable),
      scanFixture(plain.safe),
      scanFixture(tls.safe),
    ]);
    spots = plain.manifest.filter(
      (s) => s.class === 'application' || (s.checkId === 'default-credentials' && s.location.startsWith('/app/')),
    );
  });
  after(async () => {
    await plain.stop();
    await tls.stop();
  });

  it('finds every application spot once, with CWE, CVSS 3.1 and 2.0, OWASP 2021 and evidence', () => {
    assert.equal(vulnerable.status, 'completed');
    assert.ok(spots.length >= 9, `${spots.length} spots`);
    for (const spot of spots) {
      const found = findingAt(vulnerable, spot.checkId, spot.location);
      assert.equal(
        found.length,
        1,
        `${spot.id}: ${spot.checkId} at ${spot.location} (found: ${summary(mine(vulnerable.findings)).join(', ')})`,
      );
      const finding = found[0]!;
      assert.ok(finding.cwe !== undefined && finding.owasp?.[0]?.year === 2021, spot.id);
      assert.ok(finding.cvss?.cvss_3_1 !== undefined, `${spot.id}: CVSS 3.1`);
      if (spot.checkId !== 'default-credentials')
        assert.ok(finding.cvss?.cvss_2_0 !== undefined, `${spot.id}: CVSS 2.0`);
      assert.ok(finding.request !== undefined && finding.response !== undefined, spot.id);
      assert.ok((finding.details?.text?.[0]?.value ?? '').length > 0, `${spot.id}: observation`);
      assert.ok((finding.details?.markdown?.[0]?.value ?? '').length > 0, `${spot.id}: remediation`);
      for (const h of finding.details?.text?.[0]?.highlights ?? [])
        if (h.field === 'response.body')
          assert.equal(finding.response?.body.slice(h.offset, h.offset + h.length), h.value, `${spot.id}: highlight`);
    }
    const expected = new Set(plain.manifest.map((s) => `${s.checkId} ${s.location}`));
    assert.deepEqual(
      summary(vulnerable.findings.filter((f) => applicationChecks.has(f.checkId))).filter((s) => !expected.has(s)),
      [],
      'every finding of these checks is a spot: no login or search form, no form with a token, no own address',
    );
  });

  it('grades: an executed upload critical, a served one high, CSRF low, session ids and API data medium', () => {
    const one = (checkId: string, path: string): FindingInput => findingAt(vulnerable, checkId, path)[0]!;
    const avatar = one('file-upload', '/app/avatar');
    assert.equal(avatar.severity, 'critical');
    assert.match(avatar.details?.text?.[0]?.value ?? '', /Confirmed by execution: perimeter-[0-9a-f]{12}\.php/);
    assert.match(avatar.request?.url ?? '', /\/app\/uploads\/perimeter-[0-9a-f]{12}\.php$/);
    assert.equal(one('file-upload', '/app/documents').severity, 'high');
    assert.equal(one('csrf', '/app/profile').severity, 'low');
    assert.equal(one('csrf', '/app/profile').cvss?.cvss_3_1?.score, 4.3);
    assert.match(one('csrf', '/app/settings/access').title, /GET \/app\/settings\/access$/);
    const sequential = one('session-id', `/?session_cookie=${appSessionCookie}`);
    assert.equal(sequential.severity, 'medium');
    assert.match(sequential.details?.text?.[0]?.value ?? '', /count up/);
    assert.match(
      one('session-id', '/?session_cookie=legacy_sid').details?.text?.[0]?.value ?? '',
      /MD5 hashes of the numbers/,
    );
    assert.match(
      one('sensitive-data-exposure', '/app/api/users').title,
      /password hashes, other users' e-mail addresses/,
    );
    const defaults = one('default-credentials', '/app/welcome');
    assert.equal(defaults.title, "Default credentials accepted on the application's login: admin/password");
    assert.equal(defaults.severity, 'critical');
  });

  it('reports nothing from these checks on the safe twins, though it tried them', () => {
    assert.equal(safe.status, 'completed');
    assert.equal(tlsSafe.status, 'completed');
    assert.deepEqual(summary(mine(safe.findings)), []);
    assert.deepEqual(summary(mine(tlsSafe.findings)), []);
    const safeTries = appLoginAttempts.filter((a) => a.port === tls.safe.port);
    assert.ok(
      safeTries.some((a) => a.user === 'admin' && a.password === 'password'),
      'the default pair was tried on the safe twin and rejected',
    );
    for (const server of [plain.safe, tls.safe]) {
      const uploads = server.requests.filter(
        (r) => r.method === 'POST' && /^\/app\/(?:avatar|documents)$/.test(r.path),
      );
      assert.ok(uploads.length >= 2, `uploads tried on ${server.origin}`);
    }
    const samples = plain.safe.requests.filter(
      (r) => r.path.startsWith('/app') && !(r.headers.cookie ?? '').includes(`${appSessionCookie}=`),
    );
    assert.ok(samples.length >= 6, 'fresh session identifiers were asked for on the safe twin');
  });

  it("logs in with default credentials as a fresh visitor: the scan's session is never sent with them", () => {
    const tries = appLoginAttempts.filter((a) => a.port === plain.vulnerable.port);
    const success = tries.find((a) => a.user === 'admin' && a.password === 'password');
    assert.ok(success !== undefined, 'admin/password tried');
    const scanSessions = new Set(
      plain.vulnerable.requests
        .filter((r) => r.method === 'GET' && r.path === '/app/')
        .map((r) => /APPSESSID=(\d+)/.exec(r.headers.cookie ?? '')?.[1])
        .filter((v) => v !== undefined),
    );
    const isCheckAttempt = (a: { user: string; password: string }): boolean =>
      /^perimeter-[0-9a-f]{12}$/.test(a.user) || defaultCredentials.some(([u, p]) => u === a.user && p === a.password);
    for (const attempt of tries.filter(isCheckAttempt)) {
      const id = /APPSESSID=(\d+)/.exec(attempt.cookie)?.[1];
      assert.ok(id === undefined || !scanSessions.has(id), `attempt ${attempt.user} carried the scan's session ${id}`);
    }
    // The injection checks post to the login form too: only the list's pairs count here.
    const pairs = tries.filter((a) => defaultCredentials.some(([u, p]) => u === a.user && p === a.password));
    assert.deepEqual(
      pairs.map((a) => `${a.user}/${a.password}`),
      ['admin/admin', 'admin/password'],
      'stops at the first success',
    );
  });
});
