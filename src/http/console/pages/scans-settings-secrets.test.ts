import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../../core/errors/app-error.ts';
import { settingsFromStore, type ScanProfileSettings } from '../../../core/scans/scan-profile-settings.ts';
import {
  bodyWithSecrets,
  formWithoutSecrets,
  isCredentialHeader,
  keptValueMarker as kept,
} from './scans-settings-secrets.ts';

const stored: ScanProfileSettings = settingsFromStore({
  basic_auth: { username: 'scan', password: 'basic-secret' },
  custom_headers: [
    { name: 'X-Scanner', value: 'perimeter' },
    { name: 'Authorization', value: 'Bearer h1' },
    { name: 'X-Api-Key', value: 'k1' },
    { name: 'Proxy-Authorization', value: 'Basic p1' },
    { name: 'X-Session-Id', value: 's1' },
  ],
  custom_cookies: [
    { name: 'lang', value: 'en', secure: true, httponly: false },
    { name: 'lang', value: 'fr', secure: false, httponly: true },
  ],
  session_cookie: { name: 'sid', value: 'sess1', secure: true, httponly: true },
  login: {
    url: '/login',
    fields: [
      { name: 'user', value: 'scanner' },
      { name: 'pin', value: '1111' },
      { name: 'pin', value: '2222' },
      { name: 'api_key', value: '' },
    ],
    logged_in_text: null,
    logged_in_selector: null,
    logged_out_text: null,
    logged_out_selector: null,
  },
});

describe('scan settings: secrets never shown, kept when the form comes back', () => {
  it('shows no password and hides secret-looking login values (an empty one stays empty)', () => {
    const edit = formWithoutSecrets(stored, 'edit');
    assert.equal(edit.basic_auth_password, '');
    assert.equal(edit.login_fields, `user=scanner\npin=${kept}\npin=${kept}\napi_key=`);
    assert.equal(
      formWithoutSecrets(stored, 'read').login_fields,
      'user=scanner\npin=(set)\npin=(set)\napi_key=(not set)',
    );
  });

  it('merges the form as shown back into the stored secrets, each marker to its field of that name', () => {
    const body = bodyWithSecrets(formWithoutSecrets(stored, 'edit'), stored, false);
    assert.deepEqual(body['basic_auth'], stored.basic_auth);
    assert.deepEqual((body['login'] as { fields: unknown }).fields, stored.login!.fields);
  });

  it('takes a typed password, removes it on request, and drops basic auth with no user name either', () => {
    const form = formWithoutSecrets(stored, 'edit');
    assert.deepEqual(bodyWithSecrets({ ...form, basic_auth_password: 'new' }, stored, false)['basic_auth'], {
      username: 'scan',
      password: 'new',
    });
    assert.deepEqual(bodyWithSecrets(form, stored, true)['basic_auth'], { username: 'scan', password: '' });
    assert.equal(bodyWithSecrets({ ...form, basic_auth_username: '' }, stored, true)['basic_auth'], null);
  });

  it('refuses a marker on a field with no stored value of that name (1051, naming the value)', () => {
    const form = { ...formWithoutSecrets(stored, 'edit'), login_fields: `user=scanner\notp=${kept}` };
    assert.throws(
      () => bodyWithSecrets(form, stored, false),
      (err) => isAppError(err) && err.code === 1051 && err.parameters?.[0] === 'login.fields[1].value',
    );
  });

  it('hides credential header values, every cookie value and the session cookie value', () => {
    for (const name of ['Authorization', 'proxy-authorization', 'Cookie', 'X-Api-Key', 'X-Auth-Token', 'X-Secret'])
      assert.ok(isCredentialHeader(name), name);
    for (const name of ['X-Scanner', 'Accept-Language', 'User-Agent']) assert.ok(!isCredentialHeader(name), name);
    const edit = formWithoutSecrets(stored, 'edit');
    assert.equal(
      edit.custom_headers,
      `X-Scanner: perimeter\nAuthorization: ${kept}\nX-Api-Key: ${kept}\nProxy-Authorization: ${kept}\nX-Session-Id: ${kept}`,
    );
    assert.equal(edit.custom_cookies, `lang=${kept}; Secure\nlang=${kept}; HttpOnly`);
    assert.equal(edit.session_cookie, `sid=${kept}; Secure; HttpOnly`);
    const read = formWithoutSecrets(stored, 'read');
    assert.equal(
      read.custom_headers,
      'X-Scanner: perimeter\nAuthorization: (set)\nX-Api-Key: (set)\nProxy-Authorization: (set)\nX-Session-Id: (set)',
    );
    assert.equal(read.custom_cookies, 'lang=(set); Secure\nlang=(set); HttpOnly');
    assert.equal(read.session_cookie, 'sid=(set); Secure; HttpOnly');
    for (const form of [edit, read])
      for (const secret of ['h1', 'k1', 'p1', 's1', '=en', '=fr', 'sess1'])
        assert.ok(!Object.values(form).some((v) => String(v).includes(secret)), secret);
  });

  it('keeps header and cookie values left as the marker, takes typed ones, and refuses a marker with none stored', () => {
    const body = bodyWithSecrets(formWithoutSecrets(stored, 'edit'), stored, false);
    assert.deepEqual(body['custom_headers'], stored.custom_headers);
    assert.deepEqual(body['custom_cookies'], stored.custom_cookies);
    assert.deepEqual(body['session_cookie'], stored.session_cookie);
    const form = formWithoutSecrets(stored, 'edit');
    const typed = bodyWithSecrets(
      { ...form, custom_headers: 'Authorization: Bearer h2', session_cookie: 'sid=sess2', custom_cookies: '' },
      stored,
      false,
    );
    assert.deepEqual(typed['custom_headers'], [{ name: 'Authorization', value: 'Bearer h2' }]);
    assert.deepEqual(typed['session_cookie'], { name: 'sid', value: 'sess2', secure: false, httponly: false });
    assert.deepEqual(typed['custom_cookies'], []);
    for (const [change, where] of [
      [{ custom_headers: `X-Token: ${kept}` }, 'custom_headers[0].value'],
      [{ custom_cookies: `lang=${kept}\nlang=${kept}\nlang=${kept}` }, 'custom_cookies[2].value'],
      [{ session_cookie: `other=${kept}` }, 'session_cookie.value'],
    ] as const)
      assert.throws(
        () => bodyWithSecrets({ ...form, ...change }, stored, false),
        (err) => isAppError(err) && err.code === 1051 && err.parameters?.[0] === where,
        where,
      );
  });
});
