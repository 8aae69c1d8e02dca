import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../../core/errors/app-error.ts';
import { settingsFromStore, type ScanProfileSettings } from '../../../core/scans/scan-profile-settings.ts';
import { bodyWithSecrets, formWithoutSecrets, keptValueMarker as kept } from './scans-settings-secrets.ts';

const stored: ScanProfileSettings = settingsFromStore({
  basic_auth: { username: 'scan', password: 'basic-secret' },
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
});
