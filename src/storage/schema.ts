import type { Generated } from 'kysely';

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

/** The whole schema as Kysely sees it. */
export interface Schema {
  teams: TeamsTable;
  api_keys: ApiKeysTable;
  api_key_teams: ApiKeyTeamsTable;
  assets: AssetsTable;
}
