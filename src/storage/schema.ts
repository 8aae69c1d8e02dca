import type { Generated } from 'kysely';
import type {
  AccountLinksTable,
  ConsoleSessionsTable,
  MemberCredentialsTable,
  SignInFailuresTable,
  TeamSsoTable,
} from './schema-accounts.ts';
import type { ConnectorAssetsTable, ConnectorExternalIdsTable, ConnectorsTable } from './schema-connectors.ts';
import type { EventsTable } from './schema-events.ts';
import type { ImportChunksTable, ImportsTable } from './schema-imports.ts';
import type { JiraConnectionsTable, JiraIssuesTable } from './schema-jira.ts';
import type { WebhookDeliveriesTable, WebhooksTable } from './schema-webhooks.ts';

/**
 * Table types of the store. Times are epoch milliseconds (bigint) on both dialects, booleans are
 * 0/1 integers and structured values JSON text, so one set of queries serves SQLite and PostgreSQL.
 */
export interface TeamsTable {
  id: Generated<number>;
  token: string;
  name: string;
  plan: string;
  verification_code: string;
  created: number;
  vuln_version: Generated<number>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  key_hash: string;
  key_hint: string;
  kind: 'v2' | 'v3';
  permissions: string | null;
  secret_enc: string | null;
  created: number;
  revoked: number | null;
  /** Public id (`key_…`): NOT NULL on PostgreSQL; SQLite cannot add the constraint, every insert writes it. */
  public_id: string;
  last_used: number | null;
}

export interface ApiKeyTeamsTable {
  key_id: number;
  team_id: number;
}

export interface AssetsTable {
  id: Generated<number>;
  team_id: number;
  token: string;
  uuid: string;
  name: string;
  kind: 'domain' | 'ip';
  port: number | null;
  is_root: number;
  root_id: number | null;
  status: 'verified' | 'unverified';
  added_by: string;
  monitored: number;
  settings: string | null;
  created: number;
  updated: number;
  discovered: number;
  last_seen: number;
  verified_at: number | null;
  checked_at: number | null;
}

export interface MembersTable {
  id: Generated<number>;
  team_id: number;
  user_token: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  state: string;
  authentication: string;
  created: number;
  last_login: number | null;
}

export interface GroupsTable {
  id: Generated<number>;
  team_id: number;
  token: string;
  name: string;
  /** Lowercase name: group names are unique within a team ignoring case. */
  name_key: string;
  description: string;
  created: number;
  updated: number;
}

export interface GroupMembersTable {
  id: Generated<number>;
  team_id: number;
  group_id: number;
  member_id: number;
  token: string;
  created: number;
  updated: number;
}

export interface AssetPatternsTable {
  id: Generated<number>;
  team_id: number;
  group_id: number;
  token: string;
  pattern: string;
  created: number;
  updated: number;
}

export interface VulnerabilitiesTable {
  id: Generated<number>;
  team_id: number;
  uuid: string;
  fingerprint: string;
  asset_id: number;
  host: string;
  title: string;
  severity: string;
  severity_v3: string | null;
  scan_source: string;
  scan_profile_token: string | null;
  detection_state: string;
  mark: string | null;
  status: string;
  created_at: number;
  updated_at: number;
  modified_at: number;
  tags_json: string;
  /** Render cache: the static list form of the v2 wire shape (http/v2/vulnerability.render.ts). */
  document: string;
  /** Render cache: the full details when `document` truncated them. */
  details_full: string | null;
  /** The core's StoredFinding as JSON: the source `document` and `details_full` are rendered from (migration 021). */
  finding: string;
  /** The VulnerabilityRenderer version the documents were rendered by (migration 021). */
  render_version: Generated<number>;
  last_scan_id: string;
  revision: number;
  /** The finding's location (migration 019); null on rows stored before. */
  location: string | null;
  /** Where the finding was first recorded: `scan` or `import:<format>` (migration 027). */
  source: Generated<string>;
}

/** Vulnerabilities per team, asset, status, severity and scan source; kept by triggers (migration 011). */
export interface VulnerabilityCountsTable {
  team_id: number;
  asset_id: number;
  status: string;
  severity: string;
  scan_source: string;
  n: number;
}

/** One surface-monitoring run of a monitored root domain (migration 012). */
export interface SurfaceRunsTable {
  id: Generated<number>;
  team_id: number;
  asset_id: number;
  /** queued, running, stopping (live); completed, stopped, failed (ended). */
  status: string;
  /** enable (monitoring turned on), schedule (the interval came round), recover. */
  trigger: string;
  error: string | null;
  /** JSON array of strings. */
  warnings: string;
  /** JSON counters while it runs. */
  progress: string;
  /** JSON: what the run found, once it ended. */
  summary: string | null;
  job_id: string | null;
  runner: string | null;
  created: number;
  started: number | null;
  ended: number | null;
}

export interface TagsTable {
  id: Generated<number>;
  team_id: number;
  uuid: string;
  name: string;
}

export interface VulnerabilityTagsTable {
  vulnerability_id: number;
  tag_id: number;
}

export interface VulnerabilityEventsTable {
  id: Generated<number>;
  team_id: number;
  vulnerability_id: number;
  actor: string;
  action: string;
  from_status: string;
  to_status: string;
  at: number;
}

export interface DnsNamesTable {
  id: Generated<number>;
  team_id: number;
  /** The name with its labels reversed: the key. */
  rname: string;
  root_id: number;
  /** Bit set of the sources that found the name (see zoneSources). */
  sources: number;
  /** 1 while an asset of the team has this name. */
  shadowed: number;
  /** JSON [type, ttl, data] triples per source. */
  records_zone_file: string | null;
  records_zone_transfer: string | null;
  records_zone_lookup: string | null;
  /** What the latest surface-monitoring run resolved for the name (migration 012). */
  records_surface: string | null;
  /** What the latest connector run read of the name (migration 028). */
  records_connector: string | null;
  first_seen: number;
  updated: number;
  last_seen: number;
}

export interface ZoneLookupJobsTable {
  id: Generated<number>;
  uuid: string;
  team_id: number;
  status: string;
  total: number;
  succeeded: number;
  failed: number;
  chunks: number;
  next_chunk: number;
  error: string | null;
  created: number;
  started: number | null;
  finished: number | null;
}

export interface ZoneLookupChunksTable {
  job_id: number;
  seq: number;
  data: string;
}

export interface ZoneLookupSeenTable {
  job_id: number;
  name: string;
}

/** The embedded store's job queue (SQLite only; PostgreSQL uses pg-boss's schema). */
export interface JobsTable {
  id: Generated<number>;
  kind: string;
  /** JSON text. */
  payload: string;
  state: 'queued' | 'active' | 'completed' | 'failed';
  singleton_key: string | null;
  /** Runs started, a run handed back on stop not counted. */
  attempt: number;
  run_at: number;
  lease_token: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface ScanProfilesTable {
  id: Generated<number>;
  team_id: number;
  asset_id: number;
  token: string;
  name: string;
  endpoint: string;
  endpoint_key: string;
  scheme: string;
  port: number;
  /** JSON of ScanProfileSettings. */
  settings: string;
  is_active: Generated<number>;
  schedule_frequency: Generated<string>;
  schedule_first: number | null;
  schedule_next: number | null;
  created: number;
  updated: number;
}

export interface ScansTable {
  id: Generated<number>;
  team_id: number;
  profile_id: number;
  token: string;
  status: string;
  trigger: string;
  endpoint: string;
  profile_name: string;
  error: string | null;
  /** JSON array of strings. */
  warnings: string;
  /** JSON ScanProgress. */
  progress: string;
  /** JSON counts per severity. */
  counts: string;
  highest_cvss: Generated<number>;
  job_id: string | null;
  runner: string | null;
  runs: Generated<number>;
  heartbeat: number | null;
  created: number;
  started: number | null;
  ended: number | null;
}

export interface ScanFindingsTable {
  scan_id: number;
  vulnerability_id: number;
  severity: string;
  cvss: number;
}

export interface IpAddressesTable {
  id: Generated<number>;
  team_id: number;
  /** The root asset of the monitored domain. */
  asset_id: number;
  /** Canonical text (dotted quad, RFC 5952 IPv6). */
  ip_address: string;
  ip_version: 'IPv4' | 'IPv6';
  domain_name: string;
  active: number;
  first_seen_at: number;
  last_seen_at: number;
  disappeared_at: number | null;
  enriched: Generated<number>;
  as_number: number | null;
  as_name: string | null;
  as_domain: string | null;
  continent: string | null;
  continent_name: string | null;
  country: string | null;
  country_name: string | null;
  /** Render cache: wire JSON of the fields a list page shows but id and the changing ones (http/v3/inventory.render.ts; migrations 014, 021). */
  document: string;
  /** The InventoryRenderer version `document` was rendered by; 0: never rendered (migration 021). */
  render_version: Generated<number>;
}

export interface IpInventoryVersionsTable {
  team_id: number;
  /** Bumped by every change of the team's IP inventory a reader can see. */
  version: number;
}

export interface PortsTable {
  id: Generated<number>;
  team_id: number;
  /** The root asset of the monitored domain. */
  asset_id: number;
  /** Canonical text (dotted quad, RFC 5952 IPv6). */
  ip_address: string;
  port: number;
  domain_name: string;
  /** OPEN exactly while disappeared_at is null (a check constraint ties them). */
  status: 'OPEN' | 'CLOSED';
  service: string;
  is_tls: number;
  is_http: number;
  banner: string | null;
  product: string | null;
  version: string | null;
  first_seen_at: number;
  last_seen_at: number;
  disappeared_at: number | null;
  /** Render cache: wire JSON of the fields a list page shows but id and the changing ones (http/v3/inventory.render.ts; migrations 014, 021). */
  document: string;
  /** The InventoryRenderer version `document` was rendered by; 0: never rendered (migration 021). */
  render_version: Generated<number>;
}

export interface TechnologiesTable {
  id: Generated<number>;
  team_id: number;
  asset_id: number;
  domain_name: string;
  port: number;
  name: string;
  /** Null when the origin does not tell it: a value of its own in the row's identity. */
  version: string | null;
  service_protocol: string;
  /** JSON array of strings. */
  categories: string;
  /** 1 exactly while disappeared_at is null (a check constraint ties them). */
  active: number;
  first_seen_at: number;
  last_seen_at: number;
  disappeared_at: number | null;
  /** Render cache: wire JSON of the fields a list page shows but id and the changing ones (http/v3/inventory.render.ts; migrations 014, 021). */
  document: string;
  /** The InventoryRenderer version `document` was rendered by; 0: never rendered (migration 021). */
  render_version: Generated<number>;
}

export interface InventoryVersionsTable {
  team_id: number;
  /** The v3 list: `ports`, `technologies`. */
  list: string;
  /** Bumped by every change of the team's list a reader can see. */
  version: number;
}

/** Policy breaches (migration 017): one row per (root asset, policy, host name). */
export interface BreachesTable {
  id: Generated<number>;
  team_id: number;
  asset_id: number;
  policy_id: string;
  policy_name: string;
  asset_name: string;
  severity: string;
  evidence: string;
  /** NEW exactly while active = 1 and disappeared_at is null (a check constraint ties them). */
  status: 'NEW' | 'RESOLVED';
  active: number;
  first_seen_at: number;
  last_seen_at: number;
  status_updated_at: number;
  disappeared_at: number | null;
}

export interface Schema {
  teams: TeamsTable;
  api_keys: ApiKeysTable;
  api_key_teams: ApiKeyTeamsTable;
  assets: AssetsTable;
  members: MembersTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  asset_patterns: AssetPatternsTable;
  vulnerabilities: VulnerabilitiesTable;
  tags: TagsTable;
  vulnerability_tags: VulnerabilityTagsTable;
  vulnerability_events: VulnerabilityEventsTable;
  vulnerability_counts: VulnerabilityCountsTable;
  dns_names: DnsNamesTable;
  zone_lookup_jobs: ZoneLookupJobsTable;
  zone_lookup_chunks: ZoneLookupChunksTable;
  zone_lookup_seen: ZoneLookupSeenTable;
  jobs: JobsTable;
  scan_profiles: ScanProfilesTable;
  scans: ScansTable;
  scan_findings: ScanFindingsTable;
  ip_addresses: IpAddressesTable;
  surface_runs: SurfaceRunsTable;
  ip_inventory_versions: IpInventoryVersionsTable;
  ports: PortsTable;
  technologies: TechnologiesTable;
  inventory_versions: InventoryVersionsTable;
  breaches: BreachesTable;
  connectors: ConnectorsTable;
  render_state: RenderStateTable;
  connector_external_ids: ConnectorExternalIdsTable;
  connector_assets: ConnectorAssetsTable;
  member_credentials: MemberCredentialsTable;
  console_sessions: ConsoleSessionsTable;
  account_links: AccountLinksTable;
  sign_in_failures: SignInFailuresTable;
  team_sso: TeamSsoTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  jira_connections: JiraConnectionsTable;
  jira_issues: JiraIssuesTable;
  imports: ImportsTable;
  import_chunks: ImportChunksTable;
}

/** Per render cache, the render version every row of it has reached (storage/render-cache.ts; migration 021). */
export interface RenderStateTable {
  /** The table: vulnerabilities, ip_addresses, ports or technologies. */
  resource: string;
  version: number;
}

export type { ConnectorExternalIdsTable, ConnectorsTable, EventsTable };
export type { JiraConnectionsTable, JiraIssuesTable };
export type { WebhookDeliveriesTable, WebhooksTable };
export type { AccountLinksTable, ConsoleSessionsTable, MemberCredentialsTable, SignInFailuresTable, TeamSsoTable };
