import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrowserSuite, type ConsolePage } from '../support/browser.ts';
import { testStore } from '../support/harness.ts';
import { TestOidcProvider } from '../support/oidc-provider.ts';

/**
 * Single sign-on in Chromium against a real OpenID provider on 127.0.0.1: an Admin sets up the
 * team's provider on /team/sso (a bad issuer refused with its message), a Viewer reads it without
 * a form, an Admin invites through single sign-on and switches a member's sign-in on /team, an sso member signs in from the e-mail alone (through the provider and back to the page
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

  it('lets an Admin invite through single sign-on and switch a member to a password', async () => {
    const p = admin.page;
    const linkPath = await suite.invite('acme', 'lin@acme.test', 'Viewer');
    await admin.goto('/team');
    await p.locator('#invite-email').fill('new@acme.test');
    await p.locator('#invite-authentication').selectOption('sso');
    await admin.submit(p.locator('form[action="/team/members"] button[type="submit"]'));
    assert.match(await p.locator('p.notice').innerText(), /signs in through single sign-on \(no link to send\)/);
    const row = p.locator('tr', { hasText: 'new@acme.test' });
    assert.match(await row.innerText(), /single sign-on \(active at the first sign-in\)/);
    assert.equal(await p.locator('[data-secret="link"]').count(), 0);
    await admin.check('team-members-sso');
    // Back to a password: the page says a reset link from the operator is needed.
    p.once('dialog', (dialog) => void dialog.accept());
    await admin.submit(p.locator('tr', { hasText: 'ann@acme.test' }).getByRole('button', { name: 'Use a password' }));
    assert.match(await p.locator('p.notice').innerText(), /They need a reset link from your operator first/);
    assert.match(await p.locator('tr', { hasText: 'ann@acme.test' }).innerText(), /Use single sign-on/);
    await admin.check('team-members-sign-in-changed');
    p.once('dialog', (dialog) => void dialog.accept());
    await admin.submit(
      p.locator('tr', { hasText: 'ann@acme.test' }).getByRole('button', { name: 'Use single sign-on' }),
    );
    assert.match(await p.locator('p.notice').innerText(), /now signs in through single sign-on/);
    // A pending member switched to single sign-on: the invitation link says to use it instead.
    p.once('dialog', (dialog) => void dialog.accept());
    await admin.submit(
      p.locator('tr', { hasText: 'lin@acme.test' }).getByRole('button', { name: 'Use single sign-on' }),
    );
    const visitor = await suite.newPage();
    await visitor.goto(linkPath);
    assert.equal(await visitor.page.locator('h1').innerText(), 'Sign in with single sign-on');
    assert.equal(await visitor.page.locator('#password').count(), 0);
    await visitor.check('account-link-sso');
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
    await cp.goto('/account');
    assert.match(await cp.page.locator('main').innerText(), /You sign in through your team.s single sign-on/);
    await cp.check('account-sso');
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
