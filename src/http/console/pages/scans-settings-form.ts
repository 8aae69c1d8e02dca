import type { ProfileCookie, ScanProfileSettings } from '../../../core/scans/scan-profile-settings.ts';
import { namesField } from './form-refusal.ts';

/**
 * The scan profile settings form as text, and back: every field of the settings
 * (scan-profile-settings.ts, the extensions start_urls, render_javascript and login included)
 * has an input; what was typed becomes the JSON body v2's settings update would receive, with
 * nothing checked here (the v2 route's validator and the core do it, with their messages).
 */

/** The fields of the form that are switches. */
export const switchFields = ['crawl_subdomains', 'scan_common_ports', 'render_javascript'] as const;
type SwitchField = (typeof switchFields)[number];

/** The fields of the form that are text (one line or several). */
export const textFields = [
  'whitelisted_paths',
  'blacklisted_paths',
  'start_urls',
  'blacklisted_subdomains',
  'whitelisted_ports',
  'blacklisted_ports',
  'requests_per_second',
  'custom_headers',
  'custom_cookies',
  'basic_auth_username',
  'basic_auth_password',
  'session_cookie',
  'login_url',
  'login_fields',
  'login_logged_in_text',
  'login_logged_in_selector',
  'login_logged_out_text',
  'login_logged_out_selector',
  'report_lifespan_days',
  'scan_region',
] as const;
export type TextField = (typeof textFields)[number];

/** The form as it shows: the switches, and every other field as text. */
export type SettingsForm = Record<SwitchField, boolean> & Record<TextField, string>;

/** The settings field (as the API names it in an error's parameters) each input of the form belongs to. */
export const apiFieldOf: Record<SwitchField | TextField, string> = {
  crawl_subdomains: 'crawl_subdomains',
  scan_common_ports: 'scan_common_ports',
  render_javascript: 'render_javascript',
  whitelisted_paths: 'whitelisted_paths',
  blacklisted_paths: 'blacklisted_paths',
  start_urls: 'start_urls',
  blacklisted_subdomains: 'blacklisted_subdomains',
  whitelisted_ports: 'whitelisted_ports',
  blacklisted_ports: 'blacklisted_ports',
  requests_per_second: 'requests_per_second',
  custom_headers: 'custom_headers',
  custom_cookies: 'custom_cookies',
  basic_auth_username: 'basic_auth',
  basic_auth_password: 'basic_auth',
  session_cookie: 'session_cookie',
  login_url: 'login.url',
  login_fields: 'login.fields',
  login_logged_in_text: 'login.logged_in_text',
  login_logged_in_selector: 'login.logged_in_selector',
  login_logged_out_text: 'login.logged_out_text',
  login_logged_out_selector: 'login.logged_out_selector',
  report_lifespan_days: 'report_lifespan_days',
  scan_region: 'scan_region',
};

/** True when an error's parameter names the input's field (or a part of it: `login.fields[0].name`). */
export function isFieldNamed(input: SwitchField | TextField, parameters: readonly string[]): boolean {
  return namesField({ parameters }, apiFieldOf[input]);
}

/** A cookie as one line: `name=value; Secure; HttpOnly`. */
function cookieLine(c: ProfileCookie): string {
  return [`${c.name}=${c.value}`, ...(c.secure ? ['Secure'] : []), ...(c.httponly ? ['HttpOnly'] : [])].join('; ');
}

/** The stored settings as the form shows them. */
export function formOfSettings(s: ScanProfileSettings): SettingsForm {
  const lines = (items: readonly string[]) => items.join('\n');
  return {
    crawl_subdomains: s.crawl_subdomains,
    scan_common_ports: s.scan_common_ports,
    render_javascript: s.render_javascript,
    whitelisted_paths: lines(s.whitelisted_paths),
    blacklisted_paths: lines(s.blacklisted_paths),
    start_urls: lines(s.start_urls),
    blacklisted_subdomains: lines(s.blacklisted_subdomains),
    whitelisted_ports: s.whitelisted_ports.join(', '),
    blacklisted_ports: s.blacklisted_ports.join(', '),
    requests_per_second: String(s.requests_per_second),
    custom_headers: lines(s.custom_headers.map((h) => `${h.name}: ${h.value}`)),
    custom_cookies: lines(s.custom_cookies.map(cookieLine)),
    basic_auth_username: s.basic_auth?.username ?? '',
    basic_auth_password: s.basic_auth?.password ?? '',
    session_cookie: s.session_cookie === null ? '' : cookieLine(s.session_cookie),
    login_url: s.login?.url ?? '',
    login_fields: lines((s.login?.fields ?? []).map((f) => `${f.name}=${f.value}`)),
    login_logged_in_text: s.login?.logged_in_text ?? '',
    login_logged_in_selector: s.login?.logged_in_selector ?? '',
    login_logged_out_text: s.login?.logged_out_text ?? '',
    login_logged_out_selector: s.login?.logged_out_selector ?? '',
    report_lifespan_days: String(s.report_lifespan_days),
    scan_region: s.scan_region,
  };
}

/** The form as posted (a switch that is off is not sent). */
export function formOfPost(form: URLSearchParams): SettingsForm {
  const out = {} as SettingsForm;
  for (const f of switchFields) out[f] = form.get(f) !== null;
  for (const f of textFields) out[f] = form.get(f) ?? '';
  return out;
}

/** The non-empty lines of a text, trimmed. */
function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** A number when the text is digits, else the text (which the schema refuses with its message). */
function numberOr(text: string): number | string {
  const t = text.trim();
  return /^\d{1,9}$/.test(t) ? Number(t) : t;
}

/** Ports typed comma- or space-separated: numbers, and what is not digits as typed. */
function portsOf(text: string): Array<number | string> {
  return text
    .split(/[\s,]+/)
    .filter((p) => p !== '')
    .map(numberOr);
}

/** `Name: value` (a line without a colon is a name with an empty value). */
function headerOf(line: string): { name: string; value: string } {
  const colon = line.indexOf(':');
  return colon === -1
    ? { name: line, value: '' }
    : { name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() };
}

/**
 * `name=value; Secure; HttpOnly` as the API's cookie object. Another attribute becomes a field
 * of the object, so the API names it in its refusal ("a cookie has no field …").
 */
function cookieOf(line: string): Record<string, unknown> {
  const [first = '', ...attributes] = line.split(';').map((p) => p.trim());
  const eq = first.indexOf('=');
  const cookie: Record<string, unknown> = {
    name: eq === -1 ? first : first.slice(0, eq),
    value: eq === -1 ? '' : first.slice(eq + 1),
    secure: false,
    httponly: false,
  };
  for (const a of attributes.filter((x) => x !== '')) {
    const key = a.toLowerCase();
    cookie[key === 'secure' || key === 'httponly' ? key : a] = true;
  }
  return cookie;
}

/** `name=value` of a login field (a line without `=` is a name with an empty value). */
function loginFieldOf(line: string): { name: string; value: string } {
  const eq = line.indexOf('=');
  return eq === -1 ? { name: line, value: '' } : { name: line.slice(0, eq), value: line.slice(eq + 1) };
}

/** The login as the API's object, or null when every login input is empty (no login). */
function loginOf(f: SettingsForm): Record<string, unknown> | null {
  const indicators = [
    'login_logged_in_text',
    'login_logged_in_selector',
    'login_logged_out_text',
    'login_logged_out_selector',
  ] as const;
  const isEmpty = [f.login_url, f.login_fields, ...indicators.map((i) => f[i])].every((t) => t.trim() === '');
  if (isEmpty) return null;
  const login: Record<string, unknown> = {
    url: f.login_url.trim(),
    fields: linesOf(f.login_fields).map(loginFieldOf),
  };
  for (const i of indicators) login[i.replace(/^login_/, '')] = f[i].trim() === '' ? null : f[i].trim();
  return login;
}

/** The JSON body v2's settings update would receive for the form: every field (nothing checked here). */
export function bodyOfForm(f: SettingsForm): Record<string, unknown> {
  const hasBasicAuth = f.basic_auth_username !== '' || f.basic_auth_password !== '';
  return {
    basic_auth: hasBasicAuth ? { username: f.basic_auth_username, password: f.basic_auth_password } : null,
    blacklisted_paths: linesOf(f.blacklisted_paths),
    blacklisted_ports: portsOf(f.blacklisted_ports),
    blacklisted_subdomains: linesOf(f.blacklisted_subdomains),
    crawl_subdomains: f.crawl_subdomains,
    custom_cookies: linesOf(f.custom_cookies).map(cookieOf),
    custom_headers: linesOf(f.custom_headers).map(headerOf),
    report_lifespan_days: numberOr(f.report_lifespan_days),
    requests_per_second: numberOr(f.requests_per_second),
    scan_common_ports: f.scan_common_ports,
    scan_region: f.scan_region,
    session_cookie: f.session_cookie.trim() === '' ? null : cookieOf(f.session_cookie.trim()),
    whitelisted_paths: linesOf(f.whitelisted_paths),
    whitelisted_ports: portsOf(f.whitelisted_ports),
    start_urls: linesOf(f.start_urls),
    render_javascript: f.render_javascript,
    login: loginOf(f),
  };
}
