import { appError } from '../../../core/errors/app-error.ts';
import type { ScanProfileSettings } from '../../../core/scans/scan-profile-settings.ts';
import { bodyOfForm, formOfSettings, type SettingsForm } from './scans-settings-form.ts';

/**
 * The secrets of a scan profile's settings never go back into a page: the basic authentication
 * password shows as an empty password input ("leave empty to keep it"), and a login value whose
 * field name looks like a secret as a marker that keeps the stored value when it comes back
 * unchanged. Members who cannot save read "set" or "not set" only. What is saved is the form
 * merged with the stored secrets, handed whole to v2's validator, so its messages stay the API's.
 */

/** What a login value stands as in an Admin's form while it is kept: sent back unchanged, the stored value stays. */
export const keptValueMarker = '••••••••';

/** A login field whose value is hidden: its name looks like a secret (password, token, PIN, one-time code …). */
const secretFieldName = /pass|secret|token|key|pin|otp/i;

/** True when a login field's value is not shown (its name looks like a secret). */
export function isSecretField(name: string): boolean {
  return secretFieldName.test(name);
}

/** Who reads the form: an Admin edits it (secrets as the marker), other roles read it (secrets as set or not set). */
export type SecretsView = 'edit' | 'read';

/** The stored settings as the form shows them, without any secret. */
export function formWithoutSecrets(s: ScanProfileSettings, view: SecretsView): SettingsForm {
  const form = formOfSettings(s);
  const hidden = (value: string) => {
    if (view === 'edit') return value === '' ? '' : keptValueMarker;
    return value === '' ? '(not set)' : '(set)';
  };
  form.basic_auth_password = '';
  form.login_fields = (s.login?.fields ?? [])
    .map((f) => `${f.name}=${isSecretField(f.name) ? hidden(f.value) : f.value}`)
    .join('\n');
  return form;
}

/** True when the stored settings hold a basic authentication password. */
export function hasPassword(s: ScanProfileSettings): boolean {
  return (s.basic_auth?.password ?? '') !== '';
}

/**
 * The JSON body of v2's settings update for a posted form, merged with the stored secrets: an
 * empty password keeps the stored one (unless `removePassword`), and a login value left as the
 * marker keeps the stored value of the field of that name (its first, second … of that name). A
 * marker left on a field the stored login has no value for is refused (1051, naming that value).
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
  const login = body['login'] as { fields: Array<{ name: string; value: string }> } | null;
  if (login === null) return body;
  const storedFields = stored.login?.fields ?? [];
  login.fields.forEach((field, index) => {
    if (field.value !== keptValueMarker) return;
    const nth = login.fields.slice(0, index).filter((f) => f.name === field.name).length;
    const kept = storedFields.filter((f) => f.name === field.name)[nth];
    if (kept === undefined) {
      const where = `login.fields[${index}].value`;
      throw appError(
        1051,
        `${where}: ${field.name} shows a hidden value, but no value is stored for it; type its value`,
        [where],
      );
    }
    field.value = kept.value;
  });
  return body;
}
