import type { Generated } from 'kysely';

/** The v3 connector tables (migration 018), part of the Schema of schema.ts. */

/** Connectors (migration 018): options only sealed with the server key; last_run_* null until runs exist. */
export interface ConnectorsTable {
  id: Generated<number>;
  team_id: number;
  /** The wire id: a random UUID. */
  public_id: string;
  name: string;
  provider: string;
  /** The options as one JSON object, encrypted with the server key (SecretBox). */
  options_sealed: string;
  created_at: number;
  updated_at: number;
  last_run_status: string | null;
  last_run_error: string | null;
  last_run_completed_at: number | null;
  /** When the daily run is next due (migration 028); null: never claimed yet (due). */
  next_run_at: number | null;
  /** Runs requested so far (migration 028); a run job carries the number of its request. */
  run_requests: Generated<number>;
}

/** What a connector's runs brought in (migration 028); gone_at set once a later run no longer sees it. */
export interface ConnectorAssetsTable {
  connector_id: number;
  team_id: number;
  name: string;
  kind: string;
  source: string;
  first_seen_at: number;
  last_seen_at: number;
  gone_at: number | null;
}

/** One external ID per team (migration 018), shared by the team's connectors. */
export interface ConnectorExternalIdsTable {
  team_id: number;
  external_id: string;
  created_at: number;
}
