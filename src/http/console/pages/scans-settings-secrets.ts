import { appError } from '../../../core/errors/app-error.ts';
import type { ScanProfileSettings } from '../../../core/scans/scan-profile-settings.ts';
import { bodyOfForm, formOfSettings, type SettingsForm } from './scans-settings-form.ts';

/**
 * The secrets of a scan profile's settings never go back into a page: the basic authentication
 * password shows as an empty password input ("leave empty to keep it"); the value of a login field
 * whose name looks like a secret, of a custom header whose name is a credential header, of every
 * custom cookie and of the session cookie shows as a marker that keeps the stored value when it
 * comes back unchanged. Members who cannot save read "set" or "not set" only. What is saved is the
 * form merged with the stored secrets, handed whole to v2's validator, so its messages stay the API's.
 */

/** What a hidden value stands as in an Admin's form while it is kept: sent back unchanged, the stored value stays. */
export const keptValueMarker = '••••••••';

/** A login field whose value is hidden: its name looks like a secret (password, token, PIN, one-time code …). */
const secretFieldName = /pass|secret|token|key|pin|otp/i;

/**
 * A custom header whose value is hidden: a credential header (Authorization, Proxy-Authorization,
 * Cookie, X-Api-Key) or any name that looks like one.
 */
const credentialHeaderName = /auth|token|key|secret|session|cookie|pass/i;

/** True when a login field's value is not shown (its name looks like a secret). */
export function isSecretField(name: string): boolean {
  return secretFieldName.test(name);
}

/** True when a custom header's value is not shown (its name is a credential header's). */
export function isCredentialHeader(name: string): boolean {
  return credentialHeaderName.test(name);
}

/** Who reads the form: an Admin edits it (secrets as the marker), other roles read it (secrets as set or not set). */
export type SecretsView = 'edit' | 'read';

/** A name and a value of the settings: a login field, a header or a cookie. */
interface NamedValue {
  name: string;
  value: string;
}

/** The item with its value as the view shows a hidden one: the marker for an Admin, "(set)" or "(not set)" for others. */
function hide<T extends NamedValue>(item: T, view: SecretsView): T {
  const { value } = item;
  if (view === 'edit') return { ...item, value: value === '' ? '' : keptValueMarker };
  return { ...item, value: value === '' ? '(not set)' : '(set)' };
}

/** The stored settings as the form shows them, without any secret. */
export function formWithoutSecrets(s: ScanProfileSettings, view: SecretsView): SettingsForm {
  const shown: ScanProfileSettings = {
    ...s,
    basic_auth: s.basic_auth === null ? null : { ...s.basic_auth, password: '' },
    custom_headers: s.custom_headers.map((h) => (isCredentialHeader(h.name) ? hide(h, view) : h)),
    custom_cookies: s.custom_cookies.map((c) => hide(c, view)),
    session_cookie: s.session_cookie === null ? null : hide(s.session_cookie, view),
    login:
      s.login === null
        ? null
        : { ...s.login, fields: s.login.fields.map((f) => (isSecretField(f.name) ? hide(f, view) : f)) },
  };
  return formOfSettings(shown);
}

/** True when the stored settings hold a basic authentication password. */
export function hasPassword(s: ScanProfileSettings): boolean {
  return (s.basic_auth?.password ?? '') !== '';
}

/**
 * Puts the stored value back into each item left as the marker: the value of the stored item of
 * that name (its first, second … of that name). A marker left on an item the stored list has no
 * value for is refused (1051, naming that value: `where(index)`).
 */
function keepHiddenValues(
  items: readonly NamedValue[],
  stored: readonly NamedValue[],
  where: (index: number) => string,
): void {
  items.forEach((item, index) => {
    if (item.value !== keptValueMarker) return;
    const nth = items.slice(0, index).filter((i) => i.name === item.name).length;
    const kept = stored.filter((i) => i.name === item.name)[nth];
    if (kept === undefined) {
      const at = where(index);
      throw appError(1051, `${at}: ${item.name} shows a hidden value, but no value is stored for it; type its value`, [
        at,
      ]);
    }
    item.value = kept.value;
  });
}

/**
 * The JSON body of v2's settings update for a posted form, merged with the stored secrets: an
 * empty password keeps the stored one (unless `removePassword`), and a login value, a header
 * value, a cookie value or the session cookie's value left as the marker keeps the stored value
 * of that name (keepHiddenValues).
 */
export function bodyWithSecrets(
  form: SettingsForm,
  stored: ScanProfileSettings,
  removePassword: boolean,
): Record<string, unknown> {
  const body = bodyOfForm(form);
  const storedPassword = stored.basic_auth?.password ?? '';
  const password = removePassword ? '' : form.basic_auth_password === '' ? storedPassword : form.basic_auth_password;
  body['basic_auth'] =
    form.basic_auth_username === '' && password === '' ? null : { username: form.basic_auth_username, password };
  const headers = body['custom_headers'] as NamedValue[];
  keepHiddenValues(headers, stored.custom_headers, (i) => `custom_headers[${i}].value`);
  const cookies = body['custom_cookies'] as NamedValue[];
  keepHiddenValues(cookies, stored.custom_cookies, (i) => `custom_cookies[${i}].value`);
  const session = body['session_cookie'] as NamedValue | null;
  if (session !== null)
    keepHiddenValues(
      [session],
      stored.session_cookie === null ? [] : [stored.session_cookie],
      () => 'session_cookie.value',
    );
  const login = body['login'] as { fields: NamedValue[] } | null;
  if (login !== null) keepHiddenValues(login.fields, stored.login?.fields ?? [], (i) => `login.fields[${i}].value`);
  return body;
}
