/**
 * The one rule of what ends the scan's session, used by the crawler (never queued) and by the
 * ScanSession (never sent, whoever asks): requests that log out, change or reset a password, or
 * switch the application's own security level, recognised by name (the path, the names of the
 * query and form fields, the clicked button's name), and requests the scan saw log it out
 * (learned by outcome, see login-session.ts).
 */

/** Paths that log out: `/logout`, `/log-off`, `/signout`, `/logout.php`, `/account/sign_out`. */
const LOGOUT_PATH = /\/(?:log[-_]?out|log[-_]?off|sign[-_]?out|sign[-_]?off)(?:\b|_)/i;
/** Paths of password changes and resets: `/change-password`, `/password/reset`, `/resetpass.php`. */
const PASSWORD_CHANGE_PATH =
  /\/(?:change|reset|update|new)[-_]?pass(?:word|wd)?(?:\b|_)|\/pass(?:word|wd)?[-_/](?:change|reset|update)\b/i;
/**
 * Field names of password-change forms (`password_new`, `new_password`, `password_conf`,
 * `passnew`, `confirm_password`, `old_password`, `change_password`).
 */
const PASSWORD_CHANGE_FIELD =
  /^(?:pass(?:word|wd)?[-_]?(?:new|conf|confirm|confirmation|repeat|again)\d?|(?:new|old|current|confirm)[-_]?pass(?:word|wd)?\d?|passnew|change[-_]?pass(?:word|wd)?)$/i;
/**
 * Field names of an application's own security switches (DVWA's `security.php`: a select
 * `security` and the button `seclev_submit`, and its `?phpids=on` link turning an intrusion
 * filter on; `security_level`, `sec_level` elsewhere) and of its database reset (DVWA's
 * `setup.php` button `create_db`, which recreates the users and ends every session).
 */
const SECURITY_SWITCH_FIELD =
  /^(?:security|security[-_]?level|sec[-_]?level|seclev(?:[-_]submit)?|phpids|create[-_]?db|reset[-_]?db)$/i;

/** The names of the fields a request sends: its query's, and an urlencoded body's. */
export function requestFieldNames(url: URL, body?: { contentType: string; text: string }): string[] {
  const names = [...url.searchParams.keys()];
  if (body !== undefined && body.contentType.toLowerCase().startsWith('application/x-www-form-urlencoded'))
    names.push(...new URLSearchParams(body.text).keys());
  return names;
}

/** Why a request ends the session by its name (`logout path`, `password change field password_new`), or undefined. */
export function sessionEndingName(url: URL, fieldNames: readonly string[]): string | undefined {
  if (LOGOUT_PATH.test(url.pathname)) return 'a logout path';
  if (PASSWORD_CHANGE_PATH.test(url.pathname)) return 'a password change path';
  const password = fieldNames.find((name) => PASSWORD_CHANGE_FIELD.test(name));
  if (password !== undefined) return `a password change field (${password})`;
  const security = fieldNames.find((name) => SECURITY_SWITCH_FIELD.test(name));
  if (security !== undefined) return `a security-level switch (${security})`;
  return undefined;
}

/** The key of a request learned by outcome: method, origin and path (the query and body aside). */
function outcomeKey(method: string, url: URL): string {
  return `${method.toUpperCase()} ${url.origin}${url.pathname}`;
}

/** What ends this scan's session: the rule by name, and the requests learned by outcome. */
export class SessionEndings {
  private readonly learned = new Map<string, string>();

  /** Why the request ends the session (by name, or learned), or undefined when it may be sent. */
  reason(method: string, url: URL, fieldNames: readonly string[]): string | undefined {
    return this.learned.get(outcomeKey(method, url)) ?? sessionEndingName(url, fieldNames);
  }

  /** True when the request ends the session. */
  ends(method: string, url: URL, fieldNames: readonly string[]): boolean {
    return this.reason(method, url, fieldNames) !== undefined;
  }

  /** Remembers a request after which the session was logged out; false when it was known already. */
  learn(method: string, url: URL): boolean {
    const key = outcomeKey(method, url);
    if (this.learned.has(key)) return false;
    this.learned.set(key, 'it logged the scan out');
    return true;
  }
}
