import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testPassword } from '../support/console-client.ts';
import { axe, BrowserSuite, redirectStatus, type ConsolePage } from '../support/browser.ts';
import { testStore } from '../support/harness.ts';

/**
 * Sign-in in a real browser: the invitation page, the sign-in form, a wrong password, sign-out
 * that ends the session on the server, the CSP the pages run under, and CSRF refusals (a form
 * whose hidden `_csrf` was edited in the page is refused 403, before and after sign-in).
 */
describe(`console sign-in in Chromium (${testStore})`, () => {
  const suite = new BrowserSuite(import.meta.url);
  const email = 'ada@signin.test';
  let cp: ConsolePage;

  before(async () => {
    await suite.start();
    await suite.h.team('signin');
    cp = await suite.newPage();
  });
  after(() => suite.close());

  it('sets the first password through the invitation link', async () => {
    const link = await suite.invite('signin', email, 'Editor');
    const res = await cp.join(link, { shot: 'invitation' });
    assert.equal(await redirectStatus(res), 303);
    await assert.doesNotReject(cp.page.locator('p.notice', { hasText: 'Your password is set' }).waitFor());
    await cp.check('signin-password-set');
  });

  it('opens the invitation link only once', async () => {
    const visitor = await suite.newPage();
    const link = await suite.invite('signin', 'used@signin.test', 'Viewer');
    await visitor.join(link);
    const again = await visitor.goto(link);
    assert.equal(again.status(), 404);
    assert.equal(await visitor.page.locator('h1').innerText(), 'Link not valid');
    await visitor.check('invitation-used');
    await visitor.context.close();
  });

  it('refuses a wrong password with a message and 401, keeping the e-mail typed', async () => {
    const res = await cp.signIn(email, { password: 'not the password at all', shot: 'signin' });
    assert.equal(res.status(), 401);
    assert.equal(new URL(res.url()).pathname, '/signin');
    assert.equal(
      await cp.page.locator('p.problem[role="alert"]').innerText(),
      'The e-mail address or the password is wrong.',
    );
    assert.equal(await cp.page.locator('#email').inputValue(), email);
    assert.equal(await cp.page.locator('#password').inputValue(), '', 'the password is not sent back');
    await cp.check('signin-wrong-password');
  });

  it('answers the same for an e-mail that has no account', async () => {
    const res = await cp.signIn('nobody@signin.test', { password: testPassword });
    assert.equal(res.status(), 401);
    assert.equal(
      await cp.page.locator('p.problem[role="alert"]').innerText(),
      'The e-mail address or the password is wrong.',
    );
  });

  it('signs in and lands on the page it was asked for, under a CSP without unsafe-inline', async () => {
    const res = await cp.signIn(email, { next: '/account' });
    assert.equal(await redirectStatus(res), 303);
    assert.equal(res.status(), 200);
    assert.equal(new URL(res.url()).pathname, '/account');
    assert.equal(await cp.page.locator('h1').innerText(), 'Your account');
    assert.match(await cp.page.locator('.facts').innerText(), /Editor/);
    assert.doesNotMatch(await cp.page.locator('.facts').innerText(), /Last sign-in\s+never/);
    const csp = res.headers()['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const cookies = await cp.context.cookies();
    const session = cookies.find((c) => c.name === 'perimeter_session');
    assert.ok(session?.httpOnly, 'the session cookie is HttpOnly');
    assert.equal(session.sameSite, 'Lax');
    await cp.check('account');
  });

  it('blocks a script injected inline: the CSP holds in the browser', async () => {
    await cp.evaluate(`(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true';
      document.head.append(s);
    })()`);
    await cp.page.waitForTimeout(100);
    assert.equal(await cp.evaluate<boolean>('window.__injected === true'), false, 'the inline script did not run');
    const log = cp.takeLog();
    assert.ok(
      log.some((l) => /CSP violation: script-src/.test(l) || /Content Security Policy/.test(l)),
      JSON.stringify(log),
    );
  });

  it('catches what axe calls serious or critical (the check is not vacuous)', async () => {
    await cp.goto('/account');
    await cp.evaluate(`(() => {
      const probe = document.createElement('div');
      probe.id = 'axe-probe';
      probe.innerHTML = '<button></button><img src="data:,">';
      document.querySelector('main').append(probe);
    })()`);
    const ids = (await axe(cp)).map((v) => v.id).sort();
    assert.deepEqual(ids, ['button-name', 'image-alt']);
    await cp.evaluate(`document.getElementById('axe-probe').remove()`);
    assert.deepEqual(await axe(cp), []);
  });

  it('refuses the password form with a tampered _csrf (403) and changes nothing', async () => {
    await cp.goto('/account');
    await cp.page.locator('#current').fill(testPassword);
    await cp.page.locator('#next').fill('a brand new password 123');
    await cp.setField('form[action="/account/password"] input[name="_csrf"]', 'tampered-token');
    const res = await cp.submit(cp.page.locator('form[action="/account/password"] button[type="submit"]'));
    assert.equal(res.status(), 403);
    assert.equal(await cp.page.locator('h1').innerText(), 'Form expired');
    await cp.check('csrf-refused');
    // Still signed in, and the old password is still the password.
    assert.equal((await cp.goto('/account')).status(), 200);
  });

  it('refuses the sign-in form with a tampered _csrf (403), before any session exists', async () => {
    const visitor = await suite.newPage();
    await visitor.goto('/signin');
    await visitor.page.locator('#email').fill(email);
    await visitor.page.locator('#password').fill(testPassword);
    await visitor.setField('form[action="/signin"] input[name="_csrf"]', 'x'.repeat(43));
    const res = await visitor.submit(visitor.page.locator('form[action="/signin"] button[type="submit"]'));
    assert.equal(res.status(), 403);
    assert.equal(await visitor.page.locator('h1').innerText(), 'Form expired');
    assert.equal(
      (await visitor.context.cookies()).find((c) => c.name === 'perimeter_session'),
      undefined,
    );
    await visitor.check('signin-csrf-refused');
    await visitor.context.close();
  });

  it('signs out: the session ends on the server, and its cookie no longer opens a page', async () => {
    await cp.goto('/account');
    const stolen = (await cp.context.cookies()).find((c) => c.name === 'perimeter_session');
    assert.ok(stolen);
    const res = await cp.submit(cp.page.getByRole('button', { name: 'Sign out' }));
    assert.equal(await redirectStatus(res), 303);
    assert.equal(new URL(res.url()).pathname, '/signin');
    assert.equal(await cp.page.locator('p.notice').innerText(), 'You are signed out.');
    await cp.check('signed-out');
    // The old cookie, put back, opens nothing: the server ended the session.
    await cp.context.addCookies([stolen]);
    const back = await cp.goto('/account');
    assert.equal(new URL(back.url()).pathname, '/signin');
    assert.equal(new URL(back.url()).searchParams.get('next'), '/account');
  });

  it('answers the not-found page for a path nothing serves', async () => {
    const res = await cp.goto('/no/such/page');
    assert.equal(res.status(), 404);
    assert.equal(await cp.page.locator('h1').innerText(), 'Not found');
    await cp.check('not-found');
  });
});
