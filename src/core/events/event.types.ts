import type { Severity } from '../vulnerabilities/vulnerability.types.ts';

/**
 * Terminology. An *event* is one recorded change of a team's world (a scan ended, a finding
 * appeared, a port opened …), appended to the team's *event log* in the transaction of the change
 * it records, and never changed afterwards. Its *kind* names what happened (the catalogue,
 * event-catalogue.ts, lists every kind with its fields); its *data* is the wire fields of the
 * change, frozen as they were when it happened. Webhooks and integrations read the log after a
 * cursor (an event's internal id), so whatever reads it sees each team's events in order.
 */

/** Every event kind, as the catalogue documents them. */
export const eventKinds = [
  'scan.started',
  'scan.completed',
  'scan.failed',
  'vulnerability.new',
  'vulnerability.regression',
  'vulnerability.patched',
  'vulnerability.status_changed',
  'asset.added',
  'asset.removed',
  'asset.verified',
  'subdomain.discovered',
  'subdomain.disappeared',
  'port.opened',
  'port.closed',
  'technology.discovered',
  'breach.opened',
  'breach.closed',
  'zone_lookup.finished',
  'connector.run_finished',
  'webhook.disabled',
  'webhook.test',
] as const;

/** One event kind. */
export type EventKind = (typeof eventKinds)[number];

/** The wire fields of an event (frozen JSON values). */
export type EventData = Record<string, unknown>;

/** An event to append. */
export interface NewEvent {
  teamId: number;
  kind: EventKind;
  occurredAt: Date;
  /** The root asset the event concerns (its internal id), when one: subscriptions filter on it. */
  assetId?: number | null;
  /** The severity of a finding or breach event: subscriptions filter on it. */
  severity?: Severity | null;
  data: EventData;
}

/** An event of the log. */
export interface EventRecord {
  /** The internal id: orders the log (cursors). */
  id: number;
  /** The wire id: a random UUID, the idempotency key of every delivery of the event. */
  publicId: string;
  teamId: number;
  kind: EventKind;
  occurredAt: Date;
  assetId: number | null;
  severity: Severity | null;
  data: EventData;
}

/** What a list of the log keeps. */
export interface EventFilter {
  kinds?: readonly EventKind[];
  /** Exclusive time bounds on occurredAt. */
  occurredAfter?: Date;
  occurredBefore?: Date;
}

/** Persistence of the event log. Every read is scoped to a team. */
export interface EventRepository {
  /** Appends the events (none: no statement), in the caller's transaction when it runs in one. */
  append(events: readonly NewEvent[]): Promise<void>;
  /** Up to `limit` events of the team with an id above `afterId`, in id order. */
  list(teamId: number, filter: EventFilter, afterId: number, limit: number): Promise<EventRecord[]>;
  /** One event of the team by its wire id. */
  findByPublicId(teamId: number, publicId: string): Promise<EventRecord | undefined>;
  /** The highest id of the team's log (0 when empty). */
  latestId(teamId: number): Promise<number>;
}

/** The repositories the events area works with. */
export interface EventRepositories {
  events: EventRepository;
}
