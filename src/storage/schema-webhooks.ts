import type { Generated } from 'kysely';

/** Webhooks (migration 025), part of the Schema of schema.ts. */
export interface WebhooksTable {
  id: Generated<number>;
  team_id: number;
  /** The wire id: a random UUID. */
  public_id: string;
  name: string;
  /** json, slack, teams or email. */
  format: string;
  /** The receiver of the http formats; null for email. */
  url: string | null;
  /** JSON list of e-mail addresses (email format; [] otherwise). */
  recipients: string;
  /** JSON list of the event kinds subscribed. */
  kinds: string;
  min_severity: string | null;
  /** JSON list of internal root asset ids; [] = every asset. */
  asset_ids: string;
  /** The signing secret (whsec_…), sealed with the server key. */
  secret_sealed: string;
  /** 0/1. */
  enabled: number;
  disabled_reason: string | null;
  digest_minutes: number;
  /** Every event of the team up to this id is done (delivered or filtered out). */
  cursor_event_id: number;
  failing_since: number | null;
  consecutive_failures: number;
  /** When a deferred delivery is due (back-off, digest); null when none. */
  retry_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The delivery log of webhooks (migration 025). */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  team_id: number;
  /** The wire id: a random UUID. */
  public_id: string;
  webhook_id: number;
  /** The event's id in the log; null for a test event. */
  event_id: number | null;
  event_public_id: string;
  kind: string;
  attempt: number;
  /** succeeded or failed. */
  outcome: string;
  http_status: number | null;
  error: string | null;
  /** The first KiB of the receiver's answer. */
  response_excerpt: string | null;
  duration_ms: number;
  created_at: number;
  /** 0/1. */
  is_test: number;
  /** 0/1. */
  is_redelivery: number;
}
