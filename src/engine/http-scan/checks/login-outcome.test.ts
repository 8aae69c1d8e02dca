import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { isPanelPath, loginFormBody, userNameInput } from './default-credentials.check.ts';
import {
  isBasicLoginAccepted,
  isFormLoginAccepted,
  isThrottled,
  loginAnswerOf,
  type LoginAnswer,
} from './login-outcome.ts';
import { parsePageMarkup } from './page-markup.ts';

const answer = (status: number, body = '', location?: string): LoginAnswer =>
  loginAnswerOf({
    request: { method: 'POST', url: new URL('http://127.0.0.1/admin/login'), headers: [] },
    status,
    headers: location === undefined ? [] : [{ name: 'location', value: location }],
    body,
    isTruncated: false,
  } satisfies HttpExchange);
const FORM = '<form method="post"><input name="user"><input type="password" name="pass"></form>';
const paths = ['/admin/login'];

describe('login outcome', () => {
  it('accepts a redirect elsewhere than the failed baseline, not back to a login or error page', () => {
    const failed = answer(200, `<p>Invalid password</p>${FORM}`);
    assert.equal(isFormLoginAccepted(failed, answer(303, '', '/admin/dashboard'), paths), true);
    assert.equal(
      isFormLoginAccepted(answer(302, '', '/admin/login?error=1'), answer(302, '', 'http://127.0.0.1/admin/'), paths),
      true,
    );
    // Near misses: the same redirect as the baseline, back to the form, to an error.
    assert.equal(isFormLoginAccepted(answer(302, '', '/admin/'), answer(302, '', '/admin/'), paths), false);
    assert.equal(isFormLoginAccepted(failed, answer(302, '', '/admin/login'), paths), false);
    assert.equal(isFormLoginAccepted(failed, answer(302, '', '/auth/failed'), paths), false);
    assert.equal(isFormLoginAccepted(failed, answer(302, '', '/signin?next=/admin'), paths), false);
  });

  it('accepts a 2xx page without the form or an error only when the baseline showed the form or did not answer 2xx', () => {
    const failed = answer(200, `<p>Invalid password</p>${FORM}`);
    assert.equal(isFormLoginAccepted(failed, answer(200, '<h1>Dashboard</h1>'), paths), true);
    assert.equal(isFormLoginAccepted(answer(401, 'no'), answer(200, '<h1>Dashboard</h1>'), paths), true);
    assert.equal(isFormLoginAccepted(failed, answer(200, `<p>Wrong</p>${FORM}`), paths), false);
    assert.equal(isFormLoginAccepted(failed, answer(200, '<p>Your account is locked.</p>'), paths), false);
    assert.equal(
      isFormLoginAccepted(answer(200, '{"ok":false}'), answer(200, '{"ok":true}'), paths),
      false,
      'no contrast with the baseline',
    );
    assert.equal(isFormLoginAccepted(failed, answer(500, 'boom'), paths), false);
    assert.equal(isFormLoginAccepted(failed, answer(403, 'forbidden'), paths), false);
  });

  it('judges basic authentication by 401 against 2xx', () => {
    assert.equal(isBasicLoginAccepted(answer(401), answer(200)), true);
    assert.equal(isBasicLoginAccepted(answer(401), answer(401)), false);
    assert.equal(isBasicLoginAccepted(answer(401), answer(302, '', '/x')), false);
    assert.equal(isBasicLoginAccepted(answer(200), answer(200)), false);
  });

  it('stops on throttling and lockout answers', () => {
    assert.equal(isThrottled(answer(200), answer(429)), true);
    assert.equal(isThrottled(answer(200), answer(423)), true);
    assert.equal(isThrottled(answer(200), answer(403)), true);
    assert.equal(isThrottled(answer(403), answer(403)), false);
    assert.equal(isThrottled(answer(200), answer(200)), false);
  });

  it('recognises administration and login paths, not look-alikes', () => {
    for (const path of [
      '/admin',
      '/admin/',
      '/admin/login',
      '/login',
      '/manager/html',
      '/wp-login.php',
      '/user/signin',
      '/phpmyadmin/',
    ])
      assert.equal(isPanelPath(path), true, path);
    for (const path of ['/', '/administration-guide', '/secure-login', '/blog/admins-corner', '/loginhelp'])
      assert.equal(isPanelPath(path), false, path);
  });

  it('fills a login form: the user name before the password, hidden values kept, ticked boxes only, the first submit button clicked', () => {
    const [form] = parsePageMarkup(
      '<form method="post"><input type="hidden" name="csrf" value="t0k"><input type="search" name="q"><input name="login"><input type="password" name="pw"><input type="checkbox" name="remember" value="1"><input type="checkbox" name="terms" checked><input type="submit" name="go" value="Go"></form>',
    ).forms;
    assert.equal(userNameInput(form!)?.name, 'login');
    assert.equal(loginFormBody(form!, 'admin', 'a&b'), 'csrf=t0k&q=&login=admin&pw=a%26b&terms=on&go=Go');
    const [after] = parsePageMarkup(
      '<form><input type="password" name="pw"><input type="email" name="mail"></form>',
    ).forms;
    assert.equal(userNameInput(after!)?.name, 'mail');
    const [none] = parsePageMarkup('<form><input type="password" name="pin"></form>').forms;
    assert.equal(userNameInput(none!), undefined);
  });
});
