import { appError } from '../errors/app-error.ts';
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

function parsePortList(field: string, value: unknown, problems: string[]): number[] {
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string')
    items = value.trim() === '' ? [] : value.split(',').map((s) => (/^\s*\d+\s*$/.test(s) ? Number(s) : s));
  else {
    problems.push(`${field} must be an array of ports or a comma-separated string`);
    return [];
  }
  const ports: number[] = [];
  for (const item of items) {
    if (typeof item !== 'number' || !Number.isInteger(item) || item < 1 || item > 65535) {
      problems.push(`${field} holds ${JSON.stringify(item)}, not a port from 1 to 65535`);
    } else if (!ports.includes(item)) ports.push(item);
  }
  return ports;
}

/**
 * Validates a settings body: each of the 14 required fields must be present with its type
 * (2422 names the missing or mistyped fields), then the brute-force/scrape rule (2426). The
 * four port-scanning fields are optional: bodies written before they existed leave them out,
 * and applyAssetSettings keeps their current values. Port lists accept integer arrays and the
 * comma-separated form of the spec's sample.
 */
export function parseAssetSettings(body: unknown): AssetSettingsUpdate {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw appError(2422, 'Asset settings malformed: the body must be an object with all settings fields');
  }
  const input = body as Record<string, unknown>;
  const missing = requiredAssetSettingFields.filter((f) => !(f in input));
  if (missing.length > 0) {
    throw appError(
      2422,
      `Asset settings malformed: all settings fields must be provided; missing: ${missing.join(', ')}`,
      missing,
    );
  }
  const problems: string[] = [];
  const bad = new Set<string>();
  const out = {} as Record<string, unknown>;
  for (const field of assetSettingFields) {
    if (!(field in input)) continue; // a port-scanning field left out
    const value = input[field];
    const before = problems.length;
    if (portListFields.has(field)) out[field] = parsePortList(field, value, problems);
    else if (field === 'custom_headers') out[field] = parseHeaders(value, problems);
    else if (field === 'requests_per_second') {
      const { min, max } = assetRequestsPerSecond;
      if (typeof value !== 'number' || !Number.isInteger(value) || (value !== 0 && (value < min || value > max))) {
        problems.push(`requests_per_second must be 0 (no limit) or an integer from ${min} to ${max}`);
      }
      out[field] = value;
    } else {
      if (typeof value !== 'boolean') problems.push(`${field} must be a boolean`);
      out[field] = value;
    }
    if (problems.length > before) bad.add(field);
  }
  const unknown = Object.keys(input).filter((k) => !(assetSettingFields as string[]).includes(k));
  for (const k of unknown) {
    problems.push(`${k} is not a settings field`);
    bad.add(k);
  }
  if (problems.length > 0) throw appError(2422, `Asset settings malformed: ${problems.join('; ')}`, [...bad]);
  const settings = out as unknown as AssetSettingsUpdate;
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

function parseHeaders(value: unknown, problems: string[]): Record<string, string> {
  // null is how typed clients send an empty map (a Go nil map): no custom headers.
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push('custom_headers must be an object mapping header names to values');
    return {};
  }
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (!/^[xX]-[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name))
      problems.push(`custom_headers name "${name}" must start with x- or X- and be a valid header name`);
    else if (typeof v !== 'string' || /[\r\n]/.test(v))
      problems.push(`custom_headers value of "${name}" must be a single-line string`);
    else if (hasNul(v)) problems.push(`custom_headers value of "${name}" may not hold a NUL character (U+0000)`);
    else out[name] = v;
  }
  return out;
}
