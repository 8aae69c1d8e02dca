import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestFieldNames, sessionEndingName, SessionEndings } from './session-ending.ts';

const at = (path: string) => new URL(path, 'http://127.0.0.1:8080');
const ends = (path: string, names: string[] = []) => sessionEndingName(at(path), names) !== undefined;

describe('session-ending requests', () => {
  it('recognises logout, password-change and security-switch requests by name', () => {
    for (const path of ['/logout', '/logout.php', '/account/sign_out', '/user/log-off', '/signout?next=/', '/Logoff'])
      assert.ok(ends(path), path);
    for (const path of ['/change-password', '/account/reset_password.php', '/password/change', '/changepass'])
      assert.ok(ends(path), path);
    // DVWA's CSRF page changes the password through GET fields; its security.php switches the level.
    assert.ok(ends('/vulnerabilities/csrf/', ['password_new', 'password_conf', 'Change']));
    assert.ok(ends('/profile', ['current_password', 'new_password']));
    assert.ok(ends('/security.php', ['security', 'seclev_submit', 'user_token']));
    assert.ok(ends('/settings', ['security_level']));
    assert.ok(ends('/security.php', ['phpids']));
    assert.ok(ends('/setup.php', ['create_db', 'user_token']));
  });

  it('lets ordinary requests through', () => {
    for (const path of [
      '/',
      '/blog/offers',
      '/login.php',
      '/catalogue/logos',
      '/vulnerabilities/csrf/',
      '/security.php',
    ])
      assert.ok(!ends(path), path);
    assert.ok(!ends('/login.php', ['username', 'password', 'Login', 'user_token']));
    assert.ok(!ends('/search', ['q', 'security_note', 'passage']));
  });

  it('reads the field names of the query and of an urlencoded body, not of other bodies', () => {
    const url = at('/csrf/?password_new=a&Change=Change');
    assert.deepEqual(requestFieldNames(url), ['password_new', 'Change']);
    const form = { contentType: 'application/x-www-form-urlencoded', text: 'security=low&seclev_submit=Submit' };
    assert.deepEqual(requestFieldNames(at('/security.php'), form), ['security', 'seclev_submit']);
    assert.deepEqual(requestFieldNames(at('/api'), { contentType: 'application/json', text: '{"security":1}' }), []);
  });

  it('remembers requests learned by outcome, by method and path, once', () => {
    const endings = new SessionEndings();
    const leave = at('/area/leave?x=1');
    assert.equal(endings.ends('GET', leave, []), false);
    assert.equal(endings.learn('GET', leave), true);
    assert.equal(endings.learn('GET', at('/area/leave')), false);
    assert.equal(endings.ends('GET', at('/area/leave?other=2'), []), true);
    assert.equal(endings.ends('POST', leave, []), false);
    assert.match(endings.reason('GET', leave, []) ?? '', /logged the scan out/);
    assert.equal(endings.ends('GET', at('/logout'), []), true);
  });
});
