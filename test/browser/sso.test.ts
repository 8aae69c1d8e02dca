import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrowserSuite, type ConsolePage } from '../support/browser.ts';
import { testStore } from '../support/harness.ts';
import { TestOidcProvider } from '../support/oidc-provider.ts';

/**
 * Single sign-on in Chromium against a real OpenID provider on 127.0.0.1: an Admin sets up the
 * team's provider on /team/sso (a bad issuer refused with its message), a Viewer reads it without
 * a form, an sso member signs in from the e-mail alone (through the provider and back to the page
 * asked), and a member the team does not know is refused with the page that says so.
 */
describe(`console single sign-on in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  let provider: TestOidcProvider;
  let admin: ConsolePage;

  before(async () => {
    await suite.start({ egressAllow: ['127.0.0.0/8'] });
    provider = new TestOidcProvider([
      { clientId: 'perimeter', clientSecret: 'browser-secret-1234', redirectUri: `${suite.base}/signin/sso/callback` },
    ]);
    await provider.start();
    await suite.h.team('acme');
    await suite.h.team('other');
    for (const [email, team] of [
      ['ann@acme.test', 'acme'],
      ['olga@other.test', 'other'],
    ] as const) {
      await suite.h.admin('member', 'invite', email, '--team', team, '--role', 'Editor');
      await suite.h.admin('member', 'accept', email, '--team', team, '--authentication', 'sso');
      provider.addAccount({ email, isVerified: true });
    }
    admin = await suite.member('acme', 'admin@acme.test', 'Admin', '/team/sso');
  });
  after(async () => {
    await suite.close();
    await provider.stop();
  });

  it('lets an Admin set up the provider, refusing an issuer that is not https with its message', async () => {
    await admin.check('team-sso-empty');
    const p = admin.page;
    await p.locator('#sso-issuer').fill('http://login.example.com/');
    await p.locator('#sso-client-id').fill('perimeter');
    await p.locator('#sso-client-secret').fill('browser-secret-1234');
    const refused = await admin.submit(p.locator('form[action="/team/sso"] button[type="submit"]'));
    assert.equal(refused.status(), 400);
    assert.match(await p.locator('#sso-problem').innerText(), /must start with https:\/\//);
    assert.equal(await p.locator('#sso-issuer').getAttribute('aria-invalid'), 'true');
    await admin.check('team-sso-refused');
    await p.locator('#sso-issuer').fill(provider.issuer);
    await p.locator('#sso-client-secret').fill('browser-secret-1234');
    const saved = await admin.submit(p.locator('form[action="/team/sso"] button[type="submit"]'));
    assert.equal(new URL(saved.url()).pathname, '/team/sso');
    assert.match(await p.locator('p.notice').innerText(), /Single sign-on saved/);
    assert.equal(await p.locator('#sso-client-secret').inputValue(), '', 'the secret is never shown back');
    await admin.check('team-sso-set');
  });

  it('shows a Viewer the provider without a form or a button', async () => {
    const viewer = await suite.member('acme', 'viewer@acme.test', 'Viewer', '/team/sso');
    assert.equal(await viewer.page.locator('form[action="/team/sso"]').count(), 0);
    assert.equal(await viewer.page.locator('form[action="/team/sso/delete"]').count(), 0);
    await viewer.check('team-sso-viewer');
  });

  it('signs an sso member in from the e-mail alone, through the provider and back to the page asked', async () => {
    const cp = await suite.newPage();
    await cp.goto('/signin?next=%2Fvulnerabilities');
    await cp.page.locator('#email').fill('ann@acme.test');
    await cp.check('sign-in-sso-member');
    provider.loginAs('ann@acme.test');
    await Promise.all([
      cp.page.waitForURL((url) => url.origin === suite.base && url.pathname === '/vulnerabilities'),
      cp.page.locator('form[action="/signin"] button[type="submit"]').click(),
    ]);
    assert.match(await cp.page.locator('header .who').innerText(), /ann@acme\.test/);
    // The only other origin the browser went to is the provider.
    const elsewhere = cp.takeLog().filter((line) => !line.startsWith(`request to another origin: ${provider.issuer}/`));
    assert.deepEqual(elsewhere, []);
    await cp.check('signed-in-through-sso');
  });

  it('refuses a member of another team with a page that says so, and no session', async () => {
    const cp = await suite.newPage();
    await cp.goto('/signin/sso');
    await cp.check('sign-in-sso-team');
    await cp.page.locator('#team').fill('acme');
    provider.loginAs('olga@other.test');
    await Promise.all([
      cp.page.waitForURL((url) => url.origin === suite.base && url.pathname === '/signin/sso/callback'),
      cp.page.locator('form[action="/signin/sso"] button[type="submit"]').click(),
    ]);
    assert.equal(await cp.page.locator('h1').innerText(), 'Single sign-on refused');
    assert.match(await cp.page.locator('p.problem').innerText(), /olga@other\.test is not a member of team acme/);
    cp.takeLog();
    await cp.check('sso-refused');
    const account = await cp.goto('/account');
    assert.equal(new URL(account.url()).pathname, '/signin');
  });
});
