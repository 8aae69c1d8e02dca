import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ProfileLogin, type ScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { createHttpScanEngine } from '../../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { fixtureScanLimits, pathOf, scanFixture, summary, type FixtureScan } from '../support/fixture-scan.ts';
import { startLoginSite, type LoginSite } from '../support/login-site.ts';

const engine = createHttpScanEngine({
  guard: new EgressGuard(['127.0.0.0/8']),
  resolver: createDnsResolver(['127.0.0.1:9']),
});

const login = (password: string, indicators: Partial<ProfileLogin> = {}): ProfileLogin => ({
  url: '/login.php',
  fields: [
    { name: 'username', value: 'admin' },
    { name: 'password', value: password },
  ],
  logged_in_text: null,
  logged_in_selector: null,
  logged_out_text: null,
  logged_out_selector: null,
  ...indicators,
});

const scan = (site: LoginSite, settings: Partial<ScanProfileSettings>): Promise<FixtureScan> =>
  scanFixture(site, fixtureScanLimits, { settings, engine });

const behindLogin = (findings: FindingInput[]) =>
  findings.filter((f) => pathOf(f.location).startsWith('/vulnerabilities/'));
const has = (result: FixtureScan, checkId: string, path: string) =>
  result.findings.some((f) => f.checkId === checkId && pathOf(f.location).startsWith(path));

/** What the scan must never have sent: logout, a password change, the security switch. */
function assertNothingEndedTheSession(site: LoginSite): void {
  assert.equal(site.counts.get('GET /logout.php') ?? 0, 0, 'logout.php requested');
  assert.equal(site.fieldCounts.get('GET /vulnerabilities/csrf/ password_new') ?? 0, 0, 'password change sent');
  assert.equal(site.counts.get('POST /security.php') ?? 0, 0, 'security switch sent');
  assert.equal(site.password, 'Fixture-Secret-7');
  assert.equal(site.securityLevel, 'low');
}

describe('logged-in scans (the login extension)', () => {
  let site: LoginSite;
  let result: FixtureScan;

  before(async () => {
    // The session ends after 150 requests: the scan must notice, log in again and retry.
    site = await startLoginSite({ sessionRequestLimit: 150 });
    result = await scan(site, { login: login('Fixture-Secret-7', { logged_in_text: 'Logout' }) });
  });
  after(() => site.stop());

  it('logs in, and finds the flaws behind the login', () => {
    assert.equal(result.status, 'completed');
    assert.ok(site.logins >= 1);
    assert.ok(has(result, 'reflected-xss', '/vulnerabilities/xss_r/'), summary(result.findings).join(', '));
    assert.ok(has(result, 'sql-injection', '/vulnerabilities/sqli/'), summary(result.findings).join(', '));
    assert.ok(!result.warnings.some((w) => w.startsWith('login failed')), result.warnings.join('\n'));
  });

  it("lets the checks read the login's own answers: the session cookie, set only there, is judged", () => {
    const flags = result.findings.filter((f) => f.checkId === 'cookie-flags').map((f) => pathOf(f.location));
    assert.ok(
      flags.some((path) => /cookie=sid&flag=samesite/.test(path)),
      `cookie-flags findings: ${flags.join(', ')}`,
    );
  });

  it('survives the session expiring: it logs in again and retries', () => {
    assert.ok(site.expiries >= 1, `the session never expired (${site.counts.size} paths)`);
    assert.ok(site.logins >= 2, `logins: ${site.logins}`);
    assert.ok(site.logins <= 21, `logins: ${site.logins}`);
  });

  it('never requests what ends the session, by name or once seen by outcome', () => {
    assertNothingEndedTheSession(site);
    // /area/leave says nothing by name: sent, retried, tried alone right after a login, then never again.
    const leaves = site.counts.get('GET /area/leave') ?? 0;
    assert.ok(leaves >= 1 && leaves <= 3, `GET /area/leave: ${leaves}`);
    assert.ok(
      result.warnings.some((w) => w.includes('/area/leave') && w.includes('logged the scan out')),
      result.warnings.join('\n'),
    );
  });

  it('starts the crawl at the start URLs too, skipping one outside the scope with a warning', async () => {
    // Linked from nowhere: the scan without start URLs never asked for it.
    assert.equal(site.counts.get('GET /hidden/report'), undefined);
    const other = await startLoginSite();
    try {
      const outside = 'http://198.51.100.7/elsewhere';
      const found = await scan(other, {
        login: login('Fixture-Secret-7', { logged_in_text: 'Logout' }),
        start_urls: ['/hidden/report?q=1', outside],
      });
      assert.ok(has(found, 'reflected-xss', '/hidden/report'), summary(found.findings).join(', '));
      assert.equal(found.warnings.filter((w) => w.includes(outside)).length, 1, found.warnings.join('\n'));
      assert.ok(found.warnings.some((w) => w === `start URL ${outside} skipped: outside the scan's scope`));
    } finally {
      await other.stop();
    }
  });

  it('warns when the login fails, and then finds nothing behind it', async () => {
    const wrong = await startLoginSite();
    try {
      const failed = await scan(wrong, { login: login('not-the-password') });
      assert.equal(wrong.logins, 0);
      assert.ok(wrong.failedLogins >= 1);
      assert.ok(
        failed.warnings.some((w) => w.startsWith('login failed') && w.includes('login form again')),
        failed.warnings.join('\n'),
      );
      assert.deepEqual(summary(behindLogin(failed.findings)), []);
      assertNothingEndedTheSession(wrong);
    } finally {
      await wrong.stop();
    }
  });

  it('finds nothing behind the login without one', async () => {
    const plain = await startLoginSite();
    try {
      const anonymous = await scan(plain, {});
      assert.equal(plain.logins, 0);
      assert.deepEqual(summary(behindLogin(anonymous.findings)), []);
    } finally {
      await plain.stop();
    }
  });

  it('recognises the logged-in page by a selector, and without any indicator', async () => {
    for (const indicators of [{ logged_in_selector: 'a[href="/logout.php"]' }, {}]) {
      const other = await startLoginSite();
      try {
        const found = await scan(other, {
          login: login('Fixture-Secret-7', indicators),
          start_urls: ['/vulnerabilities/sqli/'],
        });
        assert.ok(other.logins >= 1, JSON.stringify(indicators));
        assert.ok(!found.warnings.some((w) => w.startsWith('login')), found.warnings.join('\n'));
        assert.ok(has(found, 'sql-injection', '/vulnerabilities/sqli/'), summary(found.findings).join(', '));
        assertNothingEndedTheSession(other);
      } finally {
        await other.stop();
      }
    }
  });
});
