import { appError, type AppError } from '../errors/app-error.ts';
import type { ErrorCode } from '../errors/error-catalogue.ts';

/** A cookie of the profile settings (custom_cookies, session_cookie). */
export interface ProfileCookie {
  name: string;
  value: string;
  secure: boolean;
  httponly: boolean;
}

/** A header of the profile settings (custom_headers). */
export interface ProfileHeader {
  name: string;
  value: string;
}

/** Regions a profile may name; perimeter runs every scan from its own workers (docs/scanning.md). */
export const scanRegions = ['eu-west-1', 'us-east-1', 'ap-south-1', 'inherit-from-team'] as const;
export type ScanRegion = (typeof scanRegions)[number];

/** Settings of an application scan profile (v2 names). */
export interface ScanProfileSettings {
  basic_auth: { username: string; password: string } | null;
  blacklisted_paths: string[];
  blacklisted_ports: number[];
  blacklisted_subdomains: string[];
  crawl_subdomains: boolean;
  custom_cookies: ProfileCookie[];
  custom_headers: ProfileHeader[];
  report_lifespan_days: number;
  requests_per_second: number;
  scan_common_ports: boolean;
  scan_region: ScanRegion;
  session_cookie: ProfileCookie | null;
  whitelisted_paths: string[];
  whitelisted_ports: number[];
  /** Extension: paths or URLs inside the scope where the crawl begins, besides `/`, robots.txt and sitemap.xml. */
  start_urls: string[];
  /** Extension: pages are rendered in headless Chromium; links and forms come from the rendered DOM. */
  render_javascript: boolean;
  /** Extension: how the scanner logs in to the application, or null. */
  login: ProfileLogin | null;
}

/** A field value the scanner types into the login form. */
export interface ProfileLoginField {
  name: string;
  value: string;
}

/**
 * Extension: a form login of the application. The form's other fields (hidden inputs, the
 * submit button) are taken from the page as served at each login.
 */
export interface ProfileLogin {
  /** The login form's page: a root-relative path or an absolute URL. */
  url: string;
  /** Values typed into the form (user name, password). */
  fields: ProfileLoginField[];
  /** Text present only on a logged-in page. */
  logged_in_text: string | null;
  /** A CSS selector matching only on a logged-in page. */
  logged_in_selector: string | null;
  /** Text present only on a logged-out page. */
  logged_out_text: string | null;
  /** A CSS selector matching only on a logged-out page. */
  logged_out_selector: string | null;
}

/** Settings of a new profile. */
export const defaultScanProfileSettings: Readonly<ScanProfileSettings> = Object.freeze({
  basic_auth: null,
  blacklisted_paths: [],
  blacklisted_ports: [],
  blacklisted_subdomains: [],
  crawl_subdomains: false,
  custom_cookies: [],
  custom_headers: [],
  report_lifespan_days: 0,
  requests_per_second: 0,
  scan_common_ports: false,
  scan_region: 'inherit-from-team',
  session_cookie: null,
  whitelisted_paths: [],
  whitelisted_ports: [],
  start_urls: [],
  render_javascript: false,
  login: null,
});

/** Field names of the settings, in the spec's order. */
export const scanProfileSettingFields = Object.keys(defaultScanProfileSettings) as Array<keyof ScanProfileSettings>;

/** Largest update body (the spec's 30 KB). */
export const scanProfileSettingsBodyLimit = 30 * 1024;

/** Report lifespan when a profile says 0 (the global lifetime), in days. */
export const globalReportLifespanDays = 365;

// RFC 3986 pchar: unreserved / pct-encoded / sub-delims / ":" / "@"; a path is "/" then segments, not "//".
const pchar = String.raw`(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})`;
/** A path of the settings: root-relative, RFC 3986 path characters only, not starting with // (2642). */
export const settingsPathPattern = String.raw`^\/(?!\/)${pchar}*$`;
// RFC 1035 labels (letters, digits, hyphens; no hyphen at either end), dot-separated.
const label = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** A subdomain part of the settings: RFC 1035 labels, dot-separated (2641; at most 253 characters). */
export const settingsSubdomainPattern = `^${label}(?:\\.${label})*$`;
/** A cookie name or value: no comma, semicolon or white space (nor other control characters). */
export const cookieTextPattern = String.raw`^[^\s,;\x00-\x1f\x7f]+$`;
/** RFC 9110 token for a header name. */
export const settingsHeaderNamePattern = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";
/** A header value: visible characters and inner spaces/tabs. */
export const settingsHeaderValuePattern = String.raw`^[\x21-\x7e\x80-\xff](?:[\x20-\x7e\x80-\xff\t]*[\x21-\x7e\x80-\xff])?$`;
/** A basic_auth username: no colon, no control characters. */
export const basicAuthUsernamePattern = String.raw`^[^:\x00-\x1f\x7f]*$`;
/** A basic_auth password: no control characters. */
export const basicAuthPasswordPattern = String.raw`^[^\x00-\x1f\x7f]*$`;
/** Limits of report_lifespan_days (2671) and requests_per_second (2672); 0 is accepted beside them. */
export const profileSettingRanges = {
  report_lifespan_days: { min: 7, max: 10000 },
  requests_per_second: { min: 5, max: 1000 },
} as const;

/** A start URL or login URL is at most this long. */
export const settingsUrlMaxLength = 2048;
/**
 * A start URL or login URL of the settings: a root-relative path with an optional query
 * (RFC 3986 characters, no fragment), or an absolute http(s) URL without a fragment.
 */
export const settingsUrlPattern = String.raw`^(?:\/(?!\/)${pchar}*(?:\?(?:${pchar}|\?)*)?|[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/?#]+(?:[/?][^\s#]*)?)$`;
/** Limits of the extensions start_urls and login. */
export const profileExtensionLimits = {
  startUrls: 50,
  loginFields: 20,
  loginText: 1024,
} as const;

const pathRegExp = new RegExp(settingsPathPattern);
const urlRegExp = new RegExp(settingsUrlPattern);

/** True for a start URL or login URL the settings accept (settingsUrlPattern, and an absolute one parses). */
export function isSettingsUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > settingsUrlMaxLength || !urlRegExp.test(value)) return false;
  if (value.startsWith('/')) return true;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
const subdomainRegExp = new RegExp(settingsSubdomainPattern);
const cookieTextRegExp = new RegExp(cookieTextPattern);
const headerNameRegExp = new RegExp(settingsHeaderNamePattern);
const headerValueRegExp = new RegExp(settingsHeaderValuePattern);

function fail(code: ErrorCode, field: string, message: string): AppError {
  return appError(code, message, [field]);
}

/** The error of the first item of an array field that breaks its rule, or of a value that is no array. */
function firstBadItem(field: string, value: unknown, itemError: (item: unknown) => AppError | undefined): AppError {
  if (!Array.isArray(value)) return fail(1051, field, `${field} must be an array (an empty array removes all)`);
  for (const item of value) {
    const error = itemError(item);
    if (error !== undefined) return error;
  }
  return fail(1051, field, `${field} is malformed`);
}

function pathError(field: string, item: unknown): AppError | undefined {
  if (typeof item === 'string' && pathRegExp.test(item)) return undefined;
  return fail(
    2642,
    field,
    `Path in settings malformed: ${field} holds ${JSON.stringify(item)}; a path is root-relative (starts with /) with RFC 3986 path characters only, no query or fragment`,
  );
}

function portError(field: string, item: unknown): AppError | undefined {
  if (typeof item === 'number' && Number.isInteger(item) && item >= 1 && item <= 65535) return undefined;
  return fail(
    2643,
    field,
    `Port in settings malformed: ${field} holds ${JSON.stringify(item)}; a port is an integer from 1 to 65535`,
  );
}

function subdomainError(field: string, item: unknown): AppError | undefined {
  if (typeof item === 'string' && item.length <= 253 && subdomainRegExp.test(item)) return undefined;
  return fail(
    2641,
    field,
    `Subdomain name in settings malformed: ${field} holds ${JSON.stringify(item)}; give only the subdomain part (RFC 1035 labels, e.g. "admin" or "api.eu")`,
  );
}

function cookieError(field: string, value: unknown): AppError | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail(1051, field, `${field} must hold cookie objects {name, value, secure, httponly}`);
  const c = value as Record<string, unknown>;
  if (c['name'] === undefined || c['name'] === '') return fail(2651, field, `Cookie name empty in ${field}`);
  if (typeof c['name'] !== 'string' || !cookieTextRegExp.test(c['name'])) {
    return fail(
      2652,
      field,
      `Cookie name malformed in ${field}: ${JSON.stringify(c['name'])} (no comma, semicolon or white space)`,
    );
  }
  if (c['value'] === undefined || c['value'] === '')
    return fail(2653, field, `Cookie value empty in ${field} (cookie ${c['name']})`);
  if (typeof c['value'] !== 'string' || !cookieTextRegExp.test(c['value'])) {
    return fail(
      2654,
      field,
      `Cookie value malformed in ${field} (cookie ${c['name']}): no comma, semicolon or white space`,
    );
  }
  for (const flag of ['secure', 'httponly'] as const) {
    if (c[flag] !== undefined && typeof c[flag] !== 'boolean')
      return fail(1051, field, `${field}: ${flag} of cookie ${c['name']} must be true or false`);
  }
  const unknown = Object.keys(c).filter((k) => !['name', 'value', 'secure', 'httponly'].includes(k));
  if (unknown.length > 0) return fail(1051, field, `${field}: a cookie has no field ${unknown.join(', ')}`);
  return undefined;
}

function headerError(field: string, value: unknown): AppError | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail(1051, field, `${field} must hold header objects {name, value}`);
  const h = value as Record<string, unknown>;
  if (h['name'] === undefined || h['name'] === '') return fail(2657, field, `Header name empty in ${field}`);
  if (typeof h['name'] !== 'string' || !headerNameRegExp.test(h['name']))
    return fail(1051, field, `${field}: header name ${JSON.stringify(h['name'])} is not a valid HTTP header name`);
  if (h['value'] === undefined || h['value'] === '')
    return fail(2658, field, `Header value empty in ${field} (header ${h['name']})`);
  if (typeof h['value'] !== 'string' || !headerValueRegExp.test(h['value'])) {
    return fail(
      1051,
      field,
      `${field}: the value of header ${h['name']} must be a single line without leading or trailing white space`,
    );
  }
  const unknown = Object.keys(h).filter((k) => !['name', 'value'].includes(k));
  if (unknown.length > 0) return fail(1051, field, `${field}: a header has no field ${unknown.join(', ')}`);
  return undefined;
}

function basicAuthError(value: unknown): AppError {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail(1051, 'basic_auth', 'basic_auth must be an object {username, password} (null removes it)');
  const b = value as Record<string, unknown>;
  if (typeof b['username'] !== 'string' || typeof b['password'] !== 'string')
    return fail(1051, 'basic_auth', 'basic_auth needs string fields username and password');
  return fail(
    1051,
    'basic_auth',
    'basic_auth: the username may not hold a colon, and neither field control characters',
  );
}

function rangeError(field: 'report_lifespan_days' | 'requests_per_second', value: unknown): AppError {
  const { min, max } = profileSettingRanges[field];
  const code = field === 'report_lifespan_days' ? 2671 : 2672;
  return fail(code, field, `${field} must be an integer from ${min} to ${max}, or 0; got ${JSON.stringify(value)}`);
}

function startUrlError(item: unknown): AppError | undefined {
  if (isSettingsUrl(item)) return undefined;
  return fail(
    1051,
    'start_urls',
    `start_urls holds ${JSON.stringify(item)}; a start URL is a root-relative path (an optional query, no fragment) or an absolute http(s) URL, at most ${settingsUrlMaxLength} characters`,
  );
}

function startUrlsError(value: unknown): AppError {
  if (Array.isArray(value) && value.length > profileExtensionLimits.startUrls)
    return fail(1051, 'start_urls', `start_urls holds at most ${profileExtensionLimits.startUrls} URLs`);
  return firstBadItem('start_urls', value, startUrlError);
}

const loginKeys = ['url', 'fields', 'logged_in_text', 'logged_in_selector', 'logged_out_text', 'logged_out_selector'];
const loginIndicators = ['logged_in_text', 'logged_in_selector', 'logged_out_text', 'logged_out_selector'] as const;

function loginFieldError(index: number, item: unknown): AppError | undefined {
  const field = `login.fields[${index}]`;
  if (item === null || typeof item !== 'object' || Array.isArray(item))
    return fail(1051, field, `${field} must be an object {name, value}`);
  const f = item as Record<string, unknown>;
  const { loginText } = profileExtensionLimits;
  if (typeof f['name'] !== 'string' || f['name'] === '' || f['name'].length > loginText)
    return fail(1051, `${field}.name`, `${field}.name must be a non-empty string of at most ${loginText} characters`);
  if (typeof f['value'] !== 'string' || f['value'].length > loginText)
    return fail(1051, `${field}.value`, `${field}.value must be a string of at most ${loginText} characters`);
  const unknown = Object.keys(f).filter((k) => k !== 'name' && k !== 'value');
  if (unknown.length > 0) return fail(1051, field, `${field}: a login field has no field ${unknown.join(', ')}`);
  return undefined;
}

/** The error of a login that failed the schema, naming the first bad part (`login.fields[0].name`). */
function loginError(value: unknown): AppError {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail(1051, 'login', 'login must be an object {url, fields, logged_in_text, …} (null removes it)');
  const l = value as Record<string, unknown>;
  const unknown = Object.keys(l).filter((k) => !loginKeys.includes(k));
  if (unknown.length > 0) return fail(1051, 'login', `login has no field ${unknown.join(', ')}`);
  if (!isSettingsUrl(l['url']))
    return fail(
      1051,
      'login.url',
      'login.url must be the login page: a root-relative path (an optional query) or an absolute http(s) URL',
    );
  const fields = l['fields'];
  const { loginFields, loginText } = profileExtensionLimits;
  if (!Array.isArray(fields) || fields.length < 1 || fields.length > loginFields)
    return fail(1051, 'login.fields', `login.fields must hold 1 to ${loginFields} field values {name, value}`);
  for (const [index, item] of fields.entries()) {
    const error = loginFieldError(index, item);
    if (error !== undefined) return error;
  }
  for (const key of loginIndicators) {
    const text = l[key];
    if (text !== undefined && text !== null && (typeof text !== 'string' || text.length > loginText))
      return fail(1051, `login.${key}`, `login.${key} must be a string of at most ${loginText} characters, or null`);
  }
  return fail(1051, 'login', 'login is malformed');
}

/** The error of one settings field that failed the schema: its first item or rule broken, with its code. */
function settingError(field: keyof ScanProfileSettings, value: unknown): AppError {
  switch (field) {
    case 'basic_auth':
      return basicAuthError(value);
    case 'blacklisted_paths':
    case 'whitelisted_paths':
      return firstBadItem(field, value, (item) => pathError(field, item));
    case 'blacklisted_ports':
    case 'whitelisted_ports':
      return firstBadItem(field, value, (item) => portError(field, item));
    case 'blacklisted_subdomains':
      return firstBadItem(field, value, (item) => subdomainError(field, item));
    case 'custom_cookies':
      return firstBadItem(field, value, (item) => cookieError(field, item));
    case 'custom_headers':
      return firstBadItem(field, value, (item) => headerError(field, item));
    case 'session_cookie':
      return cookieError(field, value) ?? fail(1051, field, `${field} is malformed`);
    case 'report_lifespan_days':
    case 'requests_per_second':
      return rangeError(field, value);
    case 'scan_region':
      return fail(2673, field, `Scan region invalid: ${JSON.stringify(value)}; one of ${scanRegions.join(', ')}`);
    case 'start_urls':
      return startUrlsError(value);
    case 'login':
      return loginError(value);
    default:
      return fail(1051, field, `${field} must be true or false`);
  }
}

/**
 * The error of a settings update that fails the route's schema (`failing`: the top-level fields
 * its errors are about, '' for the body itself): 1051 for a body that is not an object or names
 * fields that are not settings; else the first failing field in the settings' order, with its own
 * code (2641–2673, 1051 for a wrong type) naming it.
 */
export function invalidProfileSettings(body: unknown, failing: ReadonlySet<string>): AppError {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return appError(1051, 'Request body malformed: the settings must be a JSON object');
  const input = body as Record<string, unknown>;
  const unknown = Object.keys(input).filter((k) => !(scanProfileSettingFields as string[]).includes(k));
  if (unknown.length > 0)
    return appError(
      1051,
      `Request body malformed: ${unknown.join(', ')} ${unknown.length === 1 ? 'is not a setting' : 'are not settings'} of a scan profile`,
      unknown,
    );
  const field = scanProfileSettingFields.find((f) => failing.has(f) && Object.hasOwn(input, f));
  return field === undefined ? appError(1051, 'Request body malformed') : settingError(field, input[field]);
}

/** A cookie as the schema has checked it (the flags may be left out). */
export type ProfileCookieInput = Omit<ProfileCookie, 'secure' | 'httponly'> & { secure?: boolean; httponly?: boolean };

/** A settings update as the route's schema has checked it: every field optional. */
export type ProfileSettingsInput = Partial<
  Omit<ScanProfileSettings, 'custom_cookies' | 'session_cookie' | 'login'> & {
    custom_cookies: ProfileCookieInput[];
    session_cookie: ProfileCookieInput | null;
    login: ProfileLoginInput | null;
  }
>;

/** A login as the schema has checked it (the indicators may be left out; an empty one means none). */
export type ProfileLoginInput = Pick<ProfileLogin, 'url' | 'fields'> &
  Partial<Pick<ProfileLogin, 'logged_in_text' | 'logged_in_selector' | 'logged_out_text' | 'logged_out_selector'>>;

/** A login of an update as stored: absent or empty indicators are null. */
function loginOf(l: ProfileLoginInput): ProfileLogin {
  const indicator = (text: string | null | undefined) =>
    text === undefined || text === null || text === '' ? null : text;
  return {
    url: l.url,
    fields: l.fields.map((f) => ({ name: f.name, value: f.value })),
    logged_in_text: indicator(l.logged_in_text),
    logged_in_selector: indicator(l.logged_in_selector),
    logged_out_text: indicator(l.logged_out_text),
    logged_out_selector: indicator(l.logged_out_selector),
  };
}

/** The CSS selectors of a login update, by the field that holds them (`login.logged_in_selector`). */
export function loginSelectors(input: ProfileSettingsInput): Array<{ field: string; selector: string }> {
  const login = input.login;
  if (login === undefined || login === null) return [];
  const out: Array<{ field: string; selector: string }> = [];
  for (const key of ['logged_in_selector', 'logged_out_selector'] as const) {
    const selector = login[key];
    if (typeof selector === 'string' && selector !== '') out.push({ field: `login.${key}`, selector });
  }
  return out;
}

/**
 * 1051 naming the first login selector that `compiles` refuses (the subset of CSS the scanner
 * matches), or undefined. The core knows no selector syntax: the face passes the engine's check in.
 */
export function invalidLoginSelector(
  input: ProfileSettingsInput,
  compiles: (selector: string) => boolean,
): AppError | undefined {
  const bad = loginSelectors(input).find((s) => !compiles(s.selector));
  if (bad === undefined) return undefined;
  return fail(
    1051,
    bad.field,
    `${bad.field} ${JSON.stringify(bad.selector)} is not a selector the scanner matches: type, #id, .class, attribute tests, comma lists, descendant and child combinators`,
  );
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

function cookie(c: ProfileCookieInput): ProfileCookie {
  return { name: c.name, value: c.value, secure: c.secure === true, httponly: c.httponly === true };
}

/**
 * Applies a partial update the route's schema has checked (see invalidProfileSettings): fields
 * absent from the body stay, an empty array removes all, null removes basic_auth or
 * session_cookie or login (and so does a basic_auth with both fields empty). Lists keep each item
 * once (subdomains lowercased).
 */
export function applyScanProfileSettings(
  current: ScanProfileSettings,
  input: ProfileSettingsInput,
): ScanProfileSettings {
  const next: ScanProfileSettings = { ...current };
  const has = (field: keyof ScanProfileSettings) => Object.hasOwn(input, field);
  if (has('basic_auth')) {
    const b = input.basic_auth ?? null;
    next.basic_auth =
      b === null || (b.username === '' && b.password === '') ? null : { username: b.username, password: b.password };
  }
  if (input.blacklisted_paths !== undefined) next.blacklisted_paths = unique(input.blacklisted_paths);
  if (input.blacklisted_ports !== undefined) next.blacklisted_ports = unique(input.blacklisted_ports);
  if (input.blacklisted_subdomains !== undefined)
    next.blacklisted_subdomains = unique(input.blacklisted_subdomains.map((s) => s.toLowerCase()));
  if (input.crawl_subdomains !== undefined) next.crawl_subdomains = input.crawl_subdomains;
  if (input.custom_cookies !== undefined) next.custom_cookies = input.custom_cookies.map(cookie);
  if (input.custom_headers !== undefined)
    next.custom_headers = input.custom_headers.map((h) => ({ name: h.name, value: h.value }));
  if (input.report_lifespan_days !== undefined) next.report_lifespan_days = input.report_lifespan_days;
  if (input.requests_per_second !== undefined) next.requests_per_second = input.requests_per_second;
  if (input.scan_common_ports !== undefined) next.scan_common_ports = input.scan_common_ports;
  if (input.scan_region !== undefined) next.scan_region = input.scan_region;
  if (has('session_cookie')) next.session_cookie = input.session_cookie == null ? null : cookie(input.session_cookie);
  if (input.whitelisted_paths !== undefined) next.whitelisted_paths = unique(input.whitelisted_paths);
  if (input.whitelisted_ports !== undefined) next.whitelisted_ports = unique(input.whitelisted_ports);
  if (input.start_urls !== undefined) next.start_urls = unique(input.start_urls);
  if (input.render_javascript !== undefined) next.render_javascript = input.render_javascript;
  if (has('login')) next.login = input.login == null ? null : loginOf(input.login);
  return next;
}

/** Stored settings merged over the defaults (a stored row may predate a field). */
export function settingsFromStore(stored: Partial<ScanProfileSettings> | null): ScanProfileSettings {
  return { ...defaultScanProfileSettings, ...stored };
}
