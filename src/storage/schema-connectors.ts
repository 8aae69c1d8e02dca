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
}

/** One external ID per team (migration 018), shared by the team's connectors. */
export interface ConnectorExternalIdsTable {
  team_id: number;
  external_id: string;
  created_at: number;
}
