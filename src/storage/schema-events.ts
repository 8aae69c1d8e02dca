import type { Generated } from 'kysely';

/** The team event log (migration 024), part of the Schema of schema.ts. */
export interface EventsTable {
  id: Generated<number>;
  team_id: number;
  /** The wire id: a random UUID. */
  public_id: string;
  kind: string;
  occurred_at: number;
  /** The root asset the event concerns, when one. */
  asset_id: number | null;
  /** The severity of a finding or breach event. */
  severity: string | null;
  /** The event's wire fields (core/events/event-catalogue.ts), one JSON object. */
  data: string;
}
