import { appError, type AppError } from '../errors/app-error.ts';
import { hasNul } from '../shared/text.ts';

/** Settings of an asset (v2 names), identified by the domain token. */
export interface AssetSettings {
  brute_force: boolean;
  custom_headers: Record<string, string>;
  enable_active_tls_assessments: boolean;
  enable_certificate_assessments: boolean;
  enable_passive_tls_assessments: boolean;
  enable_port_scanning: boolean;
  enable_tls_discovery: boolean;
  fingerprinting: boolean;
  include_discovered_ports_in_surface_monitoring: boolean;
  monitoring: boolean;
  port_scanning_avoid_list: number[];
  port_scanning_force_list: number[];
  port_scanning_include_recommended_ports: boolean;
  requests_per_second: number;
  scrape: boolean;
  ssl_audit: boolean;
  stateless_tests: boolean;
  subdomain_takeover_tests: boolean;
}

/** Defaults: the spec's where it gives one; otherwise what surface monitoring should do when on. */
export const defaultAssetSettings: Readonly<AssetSettings> = Object.freeze({
  brute_force: false,
  custom_headers: {},
  enable_active_tls_assessments: true,
  enable_certificate_assessments: true,
  enable_passive_tls_assessments: true,
  enable_port_scanning: true,
  enable_tls_discovery: true,
  fingerprinting: true,
  include_discovered_ports_in_surface_monitoring: false,
  monitoring: false,
  port_scanning_avoid_list: [],
  port_scanning_force_list: [],
  port_scanning_include_recommended_ports: true,
  requests_per_second: 10,
  scrape: true,
  ssl_audit: false,
  stateless_tests: true,
  subdomain_takeover_tests: true,
});

/** The 18 field names, in the spec's order. */
export const assetSettingFields = Object.keys(defaultAssetSettings) as Array<keyof AssetSettings>;

/** The port-scanning fields: added after the other 14, so an update may leave them out. */
export const portScanningFields = [
  'enable_port_scanning',
  'port_scanning_avoid_list',
  'port_scanning_force_list',
  'port_scanning_include_recommended_ports',
] as const;

/** One of the four port-scanning fields. */
export type PortScanningField = (typeof portScanningFields)[number];

/** The 14 fields every update must carry (the port-scanning fields are optional). */
export const requiredAssetSettingFields = assetSettingFields.filter(
  (f) => !(portScanningFields as readonly string[]).includes(f),
);

/** A validated update: the 14 required fields, and the port-scanning fields it carried. */
export type AssetSettingsUpdate = Omit<AssetSettings, PortScanningField> &
  Partial<Pick<AssetSettings, PortScanningField>>;

/** Limits of `requests_per_second` in asset settings; 0 (no limit) is accepted beside them. */
export const assetRequestsPerSecond = { min: 1, max: 1000 } as const;

const portListFields = new Set<keyof AssetSettings>(['port_scanning_avoid_list', 'port_scanning_force_list']);

/** One port, 1 to 65535, with optional leading zeros (the text of a comma-separated port list item). */
const portText = String.raw`\s*0*(?:[1-9]\d{0,3}|[1-5]\d{4}|6[0-4]\d{3}|65[0-4]\d{2}|655[0-2]\d|6553[0-5])\s*`;

/** The comma-separated form of a port list (the spec's sample): blank, or ports from 1 to 65535 separated by commas. */
export const portListTextPattern = String.raw`^\s*$|^${portText}(?:,${portText})*$`;

/** A custom header name: x- or X- and a valid header name. */
export const customHeaderNamePattern = "^[xX]-[A-Za-z0-9!#$%&'*+.^_`|~-]+$";

/** A custom header value: a single line without NUL (U+0000). */
export const customHeaderValuePattern = String.raw`^[^\r\n\u0000]*$`;

const customHeaderName = new RegExp(customHeaderNamePattern);

/** A settings body as the route's schema has checked it (port lists may be comma-separated text, custom_headers null). */
export type AssetSettingsInput = Omit<
  AssetSettingsUpdate,
  'custom_headers' | 'port_scanning_avoid_list' | 'port_scanning_force_list'
> & {
  custom_headers: Record<string, string> | null;
  port_scanning_avoid_list?: number[] | string;
  port_scanning_force_list?: number[] | string;
};

/** The items of a port list: the array, or the comma-separated text split (digits become numbers). */
function portItems(value: number[] | string): unknown[] {
  if (Array.isArray(value)) return value;
  return value.trim() === '' ? [] : value.split(',').map((s) => (/^\s*\d+\s*$/.test(s) ? Number(s) : s));
}

function isPort(item: unknown): boolean {
  return typeof item === 'number' && Number.isInteger(item) && item >= 1 && item <= 65535;
}

/** The problems of a port list field that failed the schema, one per item that is not a port. */
function portListProblems(field: string, value: unknown): string[] {
  if (!Array.isArray(value) && typeof value !== 'string')
    return [`${field} must be an array of ports or a comma-separated string`];
  return portItems(value)
    .filter((item) => !isPort(item))
    .map((item) => `${field} holds ${JSON.stringify(item)}, not a port from 1 to 65535`);
}

/** The problems of custom_headers when it failed the schema, one per header in error. */
function headerProblems(value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return ['custom_headers must be an object mapping header names to values'];
  return Object.entries(value).flatMap(([name, v]) => {
    if (!customHeaderName.test(name))
      return [`custom_headers name "${name}" must start with x- or X- and be a valid header name`];
    if (typeof v !== 'string' || /[\r\n]/.test(v))
      return [`custom_headers value of "${name}" must be a single-line string`];
    if (hasNul(v)) return [`custom_headers value of "${name}" may not hold a NUL character (U+0000)`];
    return [];
  });
}

/** The problems of one settings field that failed the schema. */
function fieldProblems(field: keyof AssetSettings, value: unknown): string[] {
  if (portListFields.has(field)) return portListProblems(field, value);
  if (field === 'custom_headers') return headerProblems(value);
  if (field === 'requests_per_second') {
    const { min, max } = assetRequestsPerSecond;
    return [`requests_per_second must be 0 (no limit) or an integer from ${min} to ${max}`];
  }
  return [`${field} must be a boolean`];
}

/**
 * 2422 for a settings body that fails the route's schema (`failing`: the top-level fields the
 * schema's errors are about, '' for the body itself), as one message: a body that is not an
 * object; else the 14 required fields missing; else every problem, in the fields' order, then
 * the fields that are not settings.
 */
export function malformedAssetSettings(body: unknown, failing: ReadonlySet<string>): AppError {
  if (failing.has('') || body === null || typeof body !== 'object' || Array.isArray(body))
    return appError(2422, 'Asset settings malformed: the body must be an object with all settings fields');
  const input = body as Record<string, unknown>;
  const missing = requiredAssetSettingFields.filter((f) => !(f in input));
  if (missing.length > 0) {
    return appError(
      2422,
      `Asset settings malformed: all settings fields must be provided; missing: ${missing.join(', ')}`,
      missing,
    );
  }
  const problems: string[] = [];
  const bad: string[] = [];
  for (const field of assetSettingFields) {
    if (!failing.has(field) || !(field in input)) continue;
    problems.push(...fieldProblems(field, input[field]));
    bad.push(field);
  }
  for (const k of Object.keys(input).filter((k) => !(assetSettingFields as string[]).includes(k))) {
    problems.push(`${k} is not a settings field`);
    bad.push(k);
  }
  return appError(2422, `Asset settings malformed: ${problems.join('; ')}`, bad);
}

/** A port list as numbers, each port once (the comma-separated form split). */
function portList(value: number[] | string): number[] {
  return [...new Set(portItems(value) as number[])];
}

/**
 * The update a settings body asks for, once the route's schema has checked it (2422, see
 * malformedAssetSettings): port lists as numbers, each port once; custom_headers null as none.
 * Then the brute-force/scrape rule (2426). The four port-scanning fields are optional: bodies
 * written before they existed leave them out, and applyAssetSettings keeps their current values.
 */
export function assetSettingsUpdate(input: AssetSettingsInput): AssetSettingsUpdate {
  const update: Record<string, unknown> = {};
  for (const field of assetSettingFields) {
    const value = (input as Record<string, unknown>)[field];
    if (value === undefined) continue; // a port-scanning field left out
    if (portListFields.has(field)) update[field] = portList(value as number[] | string);
    else if (field === 'custom_headers') update[field] = value ?? {};
    else update[field] = value;
  }
  const settings = update as unknown as AssetSettingsUpdate;
  if (settings.brute_force && !settings.scrape) {
    throw appError(
      2426,
      'brute_force can be true only when scrape is true; disable brute_force before disabling scrape',
      ['brute_force', 'scrape'],
    );
  }
  return settings;
}

/** The settings after an update: the update's fields, and the current values of the port-scanning fields it left out. */
export function applyAssetSettings(current: AssetSettings, update: AssetSettingsUpdate): AssetSettings {
  const merged: Record<string, unknown> = {};
  const values: Record<string, unknown> = { ...current, ...update };
  for (const field of assetSettingFields) merged[field] = values[field];
  return merged as unknown as AssetSettings;
}
