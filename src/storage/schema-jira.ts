/** A team's Jira connection (migration 026), part of the Schema of schema.ts; the API token sealed. */
export interface JiraConnectionsTable {
  team_id: number;
  base_url: string;
  account_email: string;
  /** The API token, encrypted with the server key (SecretBox). */
  api_token_sealed: string;
  project_key: string;
  issue_type: string;
  min_severity: string;
  done_transition: string;
  reopen_transition: string;
  /** The last event of the team's log the sync applied (0: none). */
  cursor_event_id: number;
  /** Failed syncs in a row (the back-off). */
  failures: number;
  retry_at: number | null;
  /** Set when Jira refused the credentials or settings: no sync until the connection is updated. */
  stopped_at: number | null;
  last_error: string | null;
  last_synced_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The Jira issue of one finding fingerprint of a team (migration 026). */
export interface JiraIssuesTable {
  team_id: number;
  fingerprint: string;
  vulnerability_uuid: string;
  issue_id: string;
  issue_key: string;
  /** `open` or `done`. */
  state: string;
  updated_at: number;
}
