import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testPassword } from '../support/console-client.ts';
import { BrowserSuite, codeOf, redirectStatus, wrongCodeOf, type ConsolePage } from '../support/browser.ts';
import { testStore } from '../support/harness.ts';

/**
 * The second factor in a real browser: a member invited with "ask for a code" enrols at the first
 * sign-in (the QR code and its key shown), a wrong code is refused, the right one signs in; the
 * next sign-in asks for a code without showing the secret again, and refuses a code used already.
 * A member without a second factor turns it on from the account page.
 */
describe(`console second factor in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  const email = 'grace@totp.test';
  let cp: ConsolePage;
  let secret = '';
  let firstCode = '';

  before(async () => {
    await suite.start();
    await suite.h.team('totp');
    cp = await suite.newPage();
  });
  after(() => suite.close());

  it('asks for a code on the invitation page when the member ticks the box', async () => {
    await cp.join(await suite.invite('totp', email, 'Viewer'), { twoFactor: true, shot: 'invitation-two-factor' });
  });

  it('shows the enrolment (QR code and key) after the password at the first sign-in', async () => {
    const res = await cp.signIn(email, { next: '/account' });
    assert.equal(await redirectStatus(res), 303);
    assert.equal(new URL(res.url()).pathname, '/signin/code');
    assert.equal(await cp.page.locator('h1').innerText(), 'Second factor');
    assert.equal(await cp.page.locator('figure.qr svg').count(), 1, 'the QR code is shown');
    secret = await cp.totpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/, 'a base32 secret of 160 bits');
    await cp.check('enrolment');
    // Not signed in yet: a page of the console sends back to the sign-in.
    const blocked = await suite.newPage();
    await blocked.context.addCookies(await cp.context.cookies());
    const page = await blocked.goto('/account');
    assert.equal(new URL(page.url()).pathname, '/signin');
    await blocked.context.close();
  });

  it('refuses a wrong code with a message and 401, and shows the same key again', async () => {
    const res = await cp.enterCode(wrongCodeOf(secret));
    assert.equal(res.status(), 401);
    assert.equal(
      await cp.page.locator('p.problem[role="alert"]').innerText(),
      'That code is wrong or was used already.',
    );
    assert.equal(await cp.totpSecret(), secret);
    await cp.check('enrolment-wrong-code');
  });

  it('signs in with the code of the secret the page showed, and lands on the page asked for', async () => {
    firstCode = codeOf(secret);
    const res = await cp.enterCode(firstCode);
    assert.equal(await redirectStatus(res), 303);
    assert.equal(new URL(res.url()).pathname, '/account');
    assert.match(await cp.page.locator('#tf + p').innerText(), /asks for a code/);
    await cp.check('account-two-factor-on');
  });

  it('asks for a code at the next sign-in without showing the secret, and refuses a used code', async () => {
    await cp.submit(cp.page.getByRole('button', { name: 'Sign out' }));
    const res = await cp.signIn(email, { next: '/account' });
    assert.equal(new URL(res.url()).pathname, '/signin/code');
    assert.equal(await cp.page.locator('code.secret').count(), 0, 'the secret is shown only until enrolled');
    assert.equal(await cp.page.locator('figure.qr').count(), 0);
    await cp.check('second-factor');
    const replay = await cp.enterCode(firstCode);
    assert.equal(replay.status(), 401, 'a code is used once');
    assert.equal(
      await cp.page.locator('p.problem[role="alert"]').innerText(),
      'That code is wrong or was used already.',
    );
    const next = await cp.enterCode(codeOf(secret, 1));
    assert.equal(new URL(next.url()).pathname, '/account');
  });

  it('lets a member without a second factor turn it on from the account page', async () => {
    const other = await suite.member('totp', 'alan@totp.test', 'Editor');
    await other.goto('/account');
    await other.check('account-two-factor-off');
    await other.submit(other.page.getByRole('link', { name: 'Set up an authenticator app' }));
    assert.equal(await other.page.locator('figure.qr svg').count(), 1);
    const key = await other.totpSecret();
    await other.check('account-two-factor-setup');
    await other.page.locator('#code').fill(wrongCodeOf(key));
    const wrong = await other.submit(other.page.locator('form[action="/account/two-factor"] button[type="submit"]'));
    assert.equal(wrong.status(), 400);
    await assert.doesNotReject(other.page.locator('p.problem[role="alert"]').waitFor());
    await other.page.locator('#code').fill(codeOf(key));
    const on = await other.submit(other.page.locator('form[action="/account/two-factor"] button[type="submit"]'));
    assert.equal(new URL(on.url()).pathname, '/account');
    assert.equal(
      await other.page.locator('p.notice').innerText(),
      'Sign-in now asks for a code from your authenticator app.',
    );
    // Signing in again now stops at the code, and the key it set up answers it.
    await other.submit(other.page.getByRole('button', { name: 'Sign out' }));
    const again = await other.signIn('alan@totp.test', { password: testPassword, next: '/account' });
    assert.equal(new URL(again.url()).pathname, '/signin/code');
    const done = await other.enterCode(codeOf(key, 1));
    assert.equal(new URL(done.url()).pathname, '/account');
    await other.context.close();
  });
});
