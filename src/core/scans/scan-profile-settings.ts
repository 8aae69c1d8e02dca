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
});

/** Field names of the settings, in the spec's order. */
export const scanProfileSettingFields = Object.keys(defaultScanProfileSettings) as Array<keyof ScanProfileSettings>;

/** Largest update body (the spec's 30 KB). */
export const scanProfileSettingsBodyLimit = 30 * 1024;

/** Report lifespan when a profile says 0 (the global lifetime), in days. */
export const globalReportLifespanDays = 365;

// RFC 3986 pchar: unreserved / pct-encoded / sub-delims / ":" / "@"; a path is "/" then segments.
const pathPattern = /^\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;
// RFC 1035 labels (letters, digits, hyphens; no hyphen at either end), dot-separated.
const labelPattern = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
// A cookie name or value: no comma, semicolon or white space (nor other control characters).
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const cookieTextPattern = /^[^\s,;\x00-\x1f\x7f]+$/;
// RFC 9110 token for a header name; a value is visible characters and inner spaces/tabs.
const headerNamePattern = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const headerValuePattern = /^[\x21-\x7e\x80-\xff](?:[\x20-\x7e\x80-\xff\t]*[\x21-\x7e\x80-\xff])?$/;

function fail(code: ErrorCode, field: string, message: string): AppError {
  return appError(code, message, [field]);
}

function expectBoolean(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw fail(1051, field, `${field} must be true or false`);
  return value;
}

function expectArray(field: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw fail(1051, field, `${field} must be an array (an empty array removes all)`);
  return value;
}

function parsePaths(field: string, value: unknown): string[] {
  const out: string[] = [];
  for (const item of expectArray(field, value)) {
    if (typeof item !== 'string' || !pathPattern.test(item) || item.startsWith('//')) {
      throw fail(
        2642,
        field,
        `Path in settings malformed: ${field} holds ${JSON.stringify(item)}; a path is root-relative (starts with /) with RFC 3986 path characters only, no query or fragment`,
      );
    }
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

function parsePorts(field: string, value: unknown): number[] {
  const out: number[] = [];
  for (const item of expectArray(field, value)) {
    if (typeof item !== 'number' || !Number.isInteger(item) || item < 1 || item > 65535) {
      throw fail(
        2643,
        field,
        `Port in settings malformed: ${field} holds ${JSON.stringify(item)}; a port is an integer from 1 to 65535`,
      );
    }
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

function parseSubdomains(field: string, value: unknown): string[] {
  const out: string[] = [];
  for (const item of expectArray(field, value)) {
    const isValid =
      typeof item === 'string' &&
      item.length > 0 &&
      item.length <= 253 &&
      item.split('.').every((label) => labelPattern.test(label));
    if (!isValid) {
      throw fail(
        2641,
        field,
        `Subdomain name in settings malformed: ${field} holds ${JSON.stringify(item)}; give only the subdomain part (RFC 1035 labels, e.g. "admin" or "api.eu")`,
      );
    }
    const lower = (item as string).toLowerCase();
    if (!out.includes(lower)) out.push(lower);
  }
  return out;
}

function parseCookie(field: string, value: unknown): ProfileCookie {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw fail(1051, field, `${field} must hold cookie objects {name, value, secure, httponly}`);
  const c = value as Record<string, unknown>;
  if (c['name'] === undefined || c['name'] === '') throw fail(2651, field, `Cookie name empty in ${field}`);
  if (typeof c['name'] !== 'string' || !cookieTextPattern.test(c['name'])) {
    throw fail(
      2652,
      field,
      `Cookie name malformed in ${field}: ${JSON.stringify(c['name'])} (no comma, semicolon or white space)`,
    );
  }
  if (c['value'] === undefined || c['value'] === '')
    throw fail(2653, field, `Cookie value empty in ${field} (cookie ${c['name']})`);
  if (typeof c['value'] !== 'string' || !cookieTextPattern.test(c['value'])) {
    throw fail(
      2654,
      field,
      `Cookie value malformed in ${field} (cookie ${c['name']}): no comma, semicolon or white space`,
    );
  }
  for (const flag of ['secure', 'httponly'] as const) {
    if (c[flag] !== undefined && typeof c[flag] !== 'boolean')
      throw fail(1051, field, `${field}: ${flag} of cookie ${c['name']} must be true or false`);
  }
  const unknown = Object.keys(c).filter((k) => !['name', 'value', 'secure', 'httponly'].includes(k));
  if (unknown.length > 0) throw fail(1051, field, `${field}: a cookie has no field ${unknown.join(', ')}`);
  return { name: c['name'], value: c['value'], secure: c['secure'] === true, httponly: c['httponly'] === true };
}

function parseHeader(field: string, value: unknown): ProfileHeader {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw fail(1051, field, `${field} must hold header objects {name, value}`);
  const h = value as Record<string, unknown>;
  if (h['name'] === undefined || h['name'] === '') throw fail(2657, field, `Header name empty in ${field}`);
  if (typeof h['name'] !== 'string' || !headerNamePattern.test(h['name'])) {
    throw fail(1051, field, `${field}: header name ${JSON.stringify(h['name'])} is not a valid HTTP header name`);
  }
  if (h['value'] === undefined || h['value'] === '')
    throw fail(2658, field, `Header value empty in ${field} (header ${h['name']})`);
  if (typeof h['value'] !== 'string' || !headerValuePattern.test(h['value'])) {
    throw fail(
      1051,
      field,
      `${field}: the value of header ${h['name']} must be a single line without leading or trailing white space`,
    );
  }
  const unknown = Object.keys(h).filter((k) => !['name', 'value'].includes(k));
  if (unknown.length > 0) throw fail(1051, field, `${field}: a header has no field ${unknown.join(', ')}`);
  return { name: h['name'], value: h['value'] };
}

function parseBasicAuth(value: unknown): ScanProfileSettings['basic_auth'] {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    throw fail(1051, 'basic_auth', 'basic_auth must be an object {username, password} (null removes it)');
  const b = value as Record<string, unknown>;
  if (typeof b['username'] !== 'string' || typeof b['password'] !== 'string')
    throw fail(1051, 'basic_auth', 'basic_auth needs string fields username and password');
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (b['username'].includes(':') || /[\x00-\x1f\x7f]/.test(b['username'] + b['password'])) {
    throw fail(
      1051,
      'basic_auth',
      'basic_auth: the username may not hold a colon, and neither field control characters',
    );
  }
  if (b['username'] === '' && b['password'] === '') return null;
  return { username: b['username'], password: b['password'] };
}

function parseRange(field: string, value: unknown, code: ErrorCode, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || (value !== 0 && (value < min || value > max))) {
    throw fail(code, field, `${field} must be an integer from ${min} to ${max}, or 0; got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Applies a partial update to the settings: fields absent from the body stay, an empty array
 * removes all, null removes basic_auth or session_cookie. Each violation answers its own code
 * (2641–2673, 1051 for a wrong type or an unknown field) naming the offending field.
 */
export function applyScanProfileSettings(current: ScanProfileSettings, body: unknown): ScanProfileSettings {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw appError(1051, 'Request body malformed: the settings must be a JSON object');
  const input = body as Record<string, unknown>;
  const unknown = Object.keys(input).filter((k) => !(scanProfileSettingFields as string[]).includes(k));
  if (unknown.length > 0)
    throw appError(
      1051,
      `Request body malformed: ${unknown.join(', ')} ${unknown.length === 1 ? 'is not a setting' : 'are not settings'} of a scan profile`,
      unknown,
    );
  const next: ScanProfileSettings = { ...current };
  const has = (field: keyof ScanProfileSettings) => Object.hasOwn(input, field);
  if (has('basic_auth')) next.basic_auth = parseBasicAuth(input['basic_auth']);
  if (has('blacklisted_paths')) next.blacklisted_paths = parsePaths('blacklisted_paths', input['blacklisted_paths']);
  if (has('blacklisted_ports')) next.blacklisted_ports = parsePorts('blacklisted_ports', input['blacklisted_ports']);
  if (has('blacklisted_subdomains'))
    next.blacklisted_subdomains = parseSubdomains('blacklisted_subdomains', input['blacklisted_subdomains']);
  if (has('crawl_subdomains')) next.crawl_subdomains = expectBoolean('crawl_subdomains', input['crawl_subdomains']);
  if (has('custom_cookies'))
    next.custom_cookies = expectArray('custom_cookies', input['custom_cookies']).map((c) =>
      parseCookie('custom_cookies', c),
    );
  if (has('custom_headers'))
    next.custom_headers = expectArray('custom_headers', input['custom_headers']).map((h) =>
      parseHeader('custom_headers', h),
    );
  if (has('report_lifespan_days'))
    next.report_lifespan_days = parseRange('report_lifespan_days', input['report_lifespan_days'], 2671, 7, 10000);
  if (has('requests_per_second'))
    next.requests_per_second = parseRange('requests_per_second', input['requests_per_second'], 2672, 5, 1000);
  if (has('scan_common_ports')) next.scan_common_ports = expectBoolean('scan_common_ports', input['scan_common_ports']);
  if (has('scan_region')) {
    const region = input['scan_region'];
    if (typeof region !== 'string' || !(scanRegions as readonly string[]).includes(region)) {
      throw fail(
        2673,
        'scan_region',
        `Scan region invalid: ${JSON.stringify(region)}; one of ${scanRegions.join(', ')}`,
      );
    }
    next.scan_region = region as ScanRegion;
  }
  if (has('session_cookie'))
    next.session_cookie =
      input['session_cookie'] === null ? null : parseCookie('session_cookie', input['session_cookie']);
  if (has('whitelisted_paths')) next.whitelisted_paths = parsePaths('whitelisted_paths', input['whitelisted_paths']);
  if (has('whitelisted_ports')) next.whitelisted_ports = parsePorts('whitelisted_ports', input['whitelisted_ports']);
  return next;
}

/** Stored settings merged over the defaults (a stored row may predate a field). */
export function settingsFromStore(stored: Partial<ScanProfileSettings> | null): ScanProfileSettings {
  return { ...defaultScanProfileSettings, ...stored };
}
