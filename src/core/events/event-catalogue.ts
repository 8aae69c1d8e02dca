import type { EventData, EventKind } from './event.types.ts';

/**
 * The published catalogue of event kinds: what each records, its fields (the `data` object of
 * the event on the wire, in GET /rest/v3/events and in every webhook body) and one example.
 * docs/events.md is generated from it (npm run docs:events) and a test checks that every kind
 * written by the core carries exactly the fields listed here.
 *
 * Conventions: ids are the wire ids of the v2 and v3 APIs (`asset_token`, a vulnerability's
 * `uuid`, a scan's token); times are ISO 8601 UTC; `asset_token`/`asset_name` name the asset the
 * change belongs to as v2 names it (the asset itself for asset events, the profile's asset for
 * scans and findings, the monitored root for surface events).
 */
export interface EventKindDoc {
  kind: EventKind;
  /** When the event is written. */
  when: string;
  /** Field name → meaning (every field is always present; a value may be null where said). */
  fields: Record<string, string>;
  example: EventData;
}

const asset = {
  asset_token: 'Token of the asset (v2 `token`).',
  asset_name: 'Name of the asset.',
};
const scan = {
  scan_token: 'Token of the scan (v2 scan status `token`).',
  scan_profile_token: 'Token of the application scan profile.',
  ...asset,
};
const vulnerability = {
  vulnerability_uuid: 'The vulnerability `uuid` (v2).',
  fingerprint: 'The finding fingerprint: stable across scans, the key integrations deduplicate on.',
  title: 'The vulnerability title.',
  severity: '`information`, `low`, `medium`, `high` or `critical`.',
  status: 'The status after the change (v2 vulnerability `status`).',
  host: 'The host (domain or IP address).',
  url: 'Where it was found (request URL, or the host), or null.',
  scan_source: '`application-scanning` or `surface-monitoring`.',
  scan_profile_token: 'Token of the scan profile that found it, or null.',
  ...asset,
  details_page: 'The vulnerability page of the console.',
};
const exampleAsset = { asset_token: '0f9d3a1c5e7b4d2a8c6e1f3b5d7a9c0e', asset_name: 'example.com' };
const exampleScan = {
  scan_token: '7c1e9a3b5d2f4a6c8e0b1d3f5a7c9e2b',
  scan_profile_token: '3e5a7c9b1d0f2e4a6c8b0d2f4e6a8c1b',
  ...exampleAsset,
};
const exampleVulnerability = {
  vulnerability_uuid: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  fingerprint: 'a3f1c9e2b7d54a08',
  title: 'SQL injection',
  severity: 'high',
  status: 'new',
  host: 'shop.example.com',
  url: 'https://shop.example.com/search?q=',
  scan_source: 'application-scanning',
  scan_profile_token: '3e5a7c9b1d0f2e4a6c8b0d2f4e6a8c1b',
  ...exampleAsset,
  details_page: 'https://perimeter.example.net/vulnerabilities/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
};

/** The catalogue, in the order of eventKinds. */
export const eventCatalogue: readonly EventKindDoc[] = [
  {
    kind: 'scan.started',
    when: 'An application scan starts running (its first run; a resume after a restart is not a new start).',
    fields: { ...scan, started_at: 'When it started.' },
    example: { ...exampleScan, started_at: '2026-11-29T08:00:00Z' },
  },
  {
    kind: 'scan.completed',
    when: 'An application scan completes (also when it was stopped by a member: `stopped` is then true).',
    fields: {
      ...scan,
      started_at: 'When it started.',
      completed_at: 'When it ended.',
      stopped: 'True when a member stopped it before the end.',
      findings: 'Findings reported by the scan.',
      new: 'Vulnerabilities it found for the first time (its last run), or null when no run counted them (a scan ended by recovery after its worker died).',
      regressions: 'Patched or fixed-marked vulnerabilities it found again, or null as for `new`.',
      patched: 'Vulnerabilities it no longer found (now patched), or null as for `new`.',
    },
    example: {
      ...exampleScan,
      started_at: '2026-11-29T08:00:00Z',
      completed_at: '2026-11-29T08:04:12Z',
      stopped: false,
      findings: 12,
      new: 2,
      regressions: 1,
      patched: 3,
    },
  },
  {
    kind: 'scan.failed',
    when: 'An application scan ends without completing (the site unreachable, an error of the scanner).',
    fields: { ...scan, started_at: 'When it started.', failed_at: 'When it ended.', error: 'What went wrong.' },
    example: {
      ...exampleScan,
      started_at: '2026-11-29T08:00:00Z',
      failed_at: '2026-11-29T08:00:09Z',
      error: 'The start URL did not answer (connection refused).',
    },
  },
  {
    kind: 'vulnerability.new',
    when: 'A scan reports a vulnerability for the first time.',
    fields: vulnerability,
    example: exampleVulnerability,
  },
  {
    kind: 'vulnerability.regression',
    when: 'A scan reports again a vulnerability that was patched or marked fixed.',
    fields: vulnerability,
    example: { ...exampleVulnerability, status: 'regression' },
  },
  {
    kind: 'vulnerability.patched',
    when: 'A completed scan that covered its location no longer reports a vulnerability.',
    fields: vulnerability,
    example: { ...exampleVulnerability, status: 'patched' },
  },
  {
    kind: 'vulnerability.status_changed',
    when: 'A member (API or console) marks or unmarks a vulnerability: accepted risk, false positive, fixed.',
    fields: {
      ...vulnerability,
      previous_status: 'The status before the change.',
      mark: '`accepted_risk`, `false_positive` or `fixed`.',
      marked: 'True when the mark was set, false when it was lifted.',
    },
    example: {
      ...exampleVulnerability,
      status: 'accepted_risk',
      previous_status: 'new',
      mark: 'accepted_risk',
      marked: true,
    },
  },
  {
    kind: 'asset.added',
    when: 'An asset is added (API, console, zone file, seed).',
    fields: { ...asset, type: 'The kind of asset: `domain` or `ip`.' },
    example: { ...exampleAsset, type: 'domain' },
  },
  {
    kind: 'asset.removed',
    when: 'An asset is deleted.',
    fields: { ...asset, type: 'The kind of asset: `domain` or `ip`.' },
    example: { ...exampleAsset, type: 'domain' },
  },
  {
    kind: 'asset.verified',
    when: 'An asset becomes verified (ownership proven, or verified by an operator).',
    fields: { ...asset, type: 'The kind of asset: `domain` or `ip`.' },
    example: { ...exampleAsset, type: 'domain' },
  },
  {
    kind: 'subdomain.discovered',
    when: 'Surface monitoring finds a live name under a monitored asset that was not listed live (new, or back after it disappeared; a name known only from a zone file is not new).',
    fields: { ...asset, name: 'The discovered name.' },
    example: { ...exampleAsset, name: 'staging.example.com' },
  },
  {
    kind: 'subdomain.disappeared',
    when: 'A run no longer finds a name it listed before.',
    fields: { ...asset, name: 'The name.' },
    example: { ...exampleAsset, name: 'staging.example.com' },
  },
  {
    kind: 'port.opened',
    when: 'Surface monitoring finds an open port (new, or open again after it closed). The scanner probes TCP: `protocol` is `TCP`.',
    fields: {
      ...asset,
      host: 'The host name the port was found on.',
      ip_address: 'The address.',
      port: 'The port number.',
      protocol: '`TCP` or `UDP`.',
      service: 'The service found on it, or null.',
    },
    example: {
      ...exampleAsset,
      host: 'example.com',
      ip_address: '192.0.2.10',
      port: 5432,
      protocol: 'TCP',
      service: 'postgresql',
    },
  },
  {
    kind: 'port.closed',
    when: 'A run finds closed a port it saw open.',
    fields: {
      ...asset,
      host: 'The host name.',
      ip_address: 'The address.',
      port: 'The port number.',
      protocol: '`TCP` or `UDP`.',
      service: 'The service last seen on it, or null.',
    },
    example: {
      ...exampleAsset,
      host: 'example.com',
      ip_address: '192.0.2.10',
      port: 5432,
      protocol: 'TCP',
      service: 'postgresql',
    },
  },
  {
    kind: 'technology.discovered',
    when: 'Fingerprinting finds a technology, or a version of it, that the inventory never held (one that returns is not new).',
    fields: {
      ...asset,
      host: 'The host name.',
      port: 'The port.',
      technology: 'The technology name.',
      version: 'Its version, or null.',
    },
    example: { ...exampleAsset, host: 'example.com', port: 443, technology: 'nginx', version: '1.25.3' },
  },
  {
    kind: 'breach.opened',
    when: 'A policy is breached (first time, or again after it was resolved).',
    fields: {
      ...asset,
      breach_id: 'The v3 breach `id`.',
      policy_id: 'The policy id (docs/policies.md).',
      policy_name: 'The policy name.',
      host: 'The host name in breach.',
      severity: 'The policy severity.',
    },
    example: {
      ...exampleAsset,
      breach_id: '42',
      policy_id: 'database-exposed',
      policy_name: 'Database exposed',
      host: 'db.example.com',
      severity: 'high',
    },
  },
  {
    kind: 'breach.closed',
    when: 'A monitoring run no longer finds a breach (its status becomes RESOLVED).',
    fields: {
      ...asset,
      breach_id: 'The v3 breach `id`.',
      policy_id: 'The policy id.',
      policy_name: 'The policy name.',
      host: 'The host name.',
      severity: 'The policy severity.',
    },
    example: {
      ...exampleAsset,
      breach_id: '42',
      policy_id: 'database-exposed',
      policy_name: 'Database exposed',
      host: 'db.example.com',
      severity: 'high',
    },
  },
  {
    kind: 'zone_lookup.finished',
    when: "A zone lookup upload finishes (every name looked up; the names found under the team's root assets are listed as their subdomains).",
    fields: {
      lookup_token: 'The lookup job token (v2).',
      names: 'Names in the upload.',
      found: 'Names that resolved.',
      finished_at: 'When it finished.',
    },
    example: {
      lookup_token: '5b7d9f1a3c5e7a9b1d3f5a7c9e1b3d5f',
      names: 1200,
      found: 318,
      finished_at: '2026-11-29T08:10:00Z',
    },
  },
  {
    kind: 'connector.run_finished',
    when: 'A connector run ends, succeeded or failed (in the transaction that records its outcome and what it imported).',
    fields: {
      connector_id: 'The v3 connector `id`.',
      name: 'The connector name.',
      provider: 'The provider value.',
      status: 'The run status: `SUCCEEDED` or `FAILED`.',
      error: 'What went wrong (never a credential), or null.',
      completed_at: 'When it ended.',
      imported:
        'What the run brought in, or null for a failed run: `zones`, `records`, `hostnames`, `addresses`, `assets_added`, `gone` (names and addresses an earlier run saw and this one did not) and `skipped` (refused by the asset rules).',
    },
    example: {
      connector_id: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed',
      name: 'Production DNS',
      provider: 'DNS_H',
      status: 'SUCCEEDED',
      error: null,
      completed_at: '2026-11-29T09:00:00Z',
      imported: { zones: 3, records: 412, hostnames: 2, addresses: 5, assets_added: 4, gone: 1, skipped: 0 },
    },
  },
  {
    kind: 'webhook.disabled',
    when: 'A webhook is disabled after its deliveries kept failing.',
    fields: {
      webhook_id: 'The webhook `id`.',
      name: 'The webhook name.',
      reason: 'Why it was disabled.',
      failing_since: 'When its deliveries started failing.',
    },
    example: {
      webhook_id: '0d4c3f4e-7a2b-4a0f-9d0e-2b1f6c9e8a77',
      name: 'SOC pager',
      reason: 'Deliveries failed for 24 hours (last: HTTP 503).',
      failing_since: '2026-11-28T09:00:00Z',
    },
  },
  {
    kind: 'webhook.test',
    when: 'Sent by the test operation of a webhook (POST /rest/v3/webhooks/{id}/test) to that webhook only; never written to the log.',
    fields: {
      webhook_id: 'The webhook `id`.',
      name: 'The webhook name.',
      message: 'A sentence saying this is a test.',
    },
    example: {
      webhook_id: '0d4c3f4e-7a2b-4a0f-9d0e-2b1f6c9e8a77',
      name: 'SOC pager',
      message: 'This is a test event from perimeter: the webhook is reachable and its signature can be checked.',
    },
  },
];

/** The catalogue entry of a kind. */
export function eventKindDoc(kind: EventKind): EventKindDoc {
  const doc = eventCatalogue.find((d) => d.kind === kind);
  if (doc === undefined) throw new Error(`event kind ${kind} is not in the catalogue`);
  return doc;
}
