import type { EventKind, EventRepository } from '../events/event.types.ts';
import type { AssetRepository } from '../assets/asset.types.ts';
import type { TeamRepositories } from '../teams/team.types.ts';
import type { Transactional } from '../shared/transactional.ts';
import type { Severity } from '../vulnerabilities/vulnerability.types.ts';
import type { WebhookFormat } from './webhook-format.types.ts';

/**
 * Terminology. A *webhook* is a team's subscription to its event log: the event kinds it wants,
 * optional filters (a minimum severity, some root assets) and where to deliver (a URL in the
 * json, slack or teams format, or e-mail recipients). Its *cursor* is the id of the team's event
 * log up to which every event is done (delivered, or filtered out); a new webhook starts at the
 * team's latest event. A *delivery* is one attempt to send one event (or, for e-mail digests,
 * several), logged with its outcome.
 */

/** A webhook as the core sees it; its secret stays sealed. */
export interface Webhook {
  id: number;
  /** The wire id: a random UUID. */
  publicId: string;
  teamId: number;
  /** The token of the team (`team_id` on the wire). */
  teamToken: string;
  name: string;
  format: WebhookFormat;
  /** The receiver of the http formats; null for email. */
  url: string | null;
  /** E-mail addresses (email format; empty otherwise). */
  recipients: string[];
  kinds: EventKind[];
  minSeverity: Severity | null;
  /** Internal ids of root assets; empty: every asset. */
  assetIds: number[];
  /** The signing secret (whsec_…), sealed with the server key. */
  secretSealed: string;
  enabled: boolean;
  disabledReason: string | null;
  /** E-mail digests: minutes events wait to be sent together (0: each alone). */
  digestMinutes: number;
  cursorEventId: number;
  failingSince: Date | null;
  consecutiveFailures: number;
  /** When a deferred delivery is due (a back-off, an e-mail digest); null when none. The pump waits until then. */
  retryAt: Date | null;
  created: Date;
  updated: Date;
}

/** The fields of a new webhook. */
export type NewWebhook = Omit<Webhook, 'id' | 'teamToken'>;

/** The fields an update may change. */
export type WebhookChanges = Partial<
  Pick<
    Webhook,
    | 'name'
    | 'format'
    | 'url'
    | 'recipients'
    | 'kinds'
    | 'minSeverity'
    | 'assetIds'
    | 'secretSealed'
    | 'enabled'
    | 'disabledReason'
    | 'digestMinutes'
    | 'failingSince'
    | 'consecutiveFailures'
    | 'retryAt'
  >
> & { updated: Date };

/** A keyset position in the list order (created, id). */
export interface WebhookPosition {
  created: number;
  id: number;
}

/** One logged delivery attempt. */
export interface WebhookDelivery {
  id: number;
  /** The wire id: a random UUID. */
  publicId: string;
  teamId: number;
  webhookId: number;
  /** The event's id in the log; null for a test event. */
  eventId: number | null;
  /** The event's wire id: the `webhook-id` header of every delivery of it. */
  eventPublicId: string;
  kind: EventKind;
  /** 1 for the first attempt at the event, counting up with each failure before it. */
  attempt: number;
  outcome: 'succeeded' | 'failed';
  httpStatus: number | null;
  error: string | null;
  /** The first KiB of the receiver's answer. */
  responseExcerpt: string | null;
  durationMs: number;
  created: Date;
  isTest: boolean;
  isRedelivery: boolean;
}

/** The fields of a new delivery row. */
export type NewWebhookDelivery = Omit<WebhookDelivery, 'id'>;

/** Persistence of webhooks and their deliveries. Reads by wire id are scoped to the given teams. */
export interface WebhookRepository {
  insert(webhook: NewWebhook): Promise<Webhook>;
  /** Up to `limit` webhooks of the teams after the position, in (created, id) order. */
  list(teamIds: number[], after: WebhookPosition | undefined, limit: number): Promise<Webhook[]>;
  findByPublicId(teamIds: number[], publicId: string): Promise<Webhook | undefined>;
  /** One webhook by its internal id (the delivery job's payload). */
  findById(id: number): Promise<Webhook | undefined>;
  /** Applies the changes to the team's webhook; answers it afterwards (undefined: gone). */
  update(teamId: number, id: number, changes: WebhookChanges): Promise<Webhook | undefined>;
  /** False when no webhook of the teams has that id. */
  delete(teamIds: number[], publicId: string): Promise<boolean>;
  /** Moves the cursor forward to `eventId` (never back) and clears the failure state. */
  advance(teamId: number, id: number, eventId: number): Promise<void>;
  /** Internal ids of the enabled webhooks behind their team's latest event and not deferred past `now` (one query). */
  behind(now: Date, limit: number): Promise<number[]>;
  insertDelivery(delivery: NewWebhookDelivery): Promise<WebhookDelivery>;
  /** Inserts delivery rows in bulk (a settled group of deliveries). */
  insertDeliveries(deliveries: readonly NewWebhookDelivery[]): Promise<void>;
  /** Up to `limit` deliveries of the webhook with an id below `beforeId`, newest first. */
  listDeliveries(
    teamId: number,
    webhookId: number,
    beforeId: number | undefined,
    limit: number,
  ): Promise<WebhookDelivery[]>;
  findDelivery(teamId: number, webhookId: number, publicId: string): Promise<WebhookDelivery | undefined>;
  /** Deletes deliveries created before the time; answers how many. */
  pruneDeliveries(before: Date): Promise<number>;
}

/** The repositories the webhook services work with. */
export interface WebhookRepositories extends TeamRepositories {
  webhooks: WebhookRepository;
  events: EventRepository;
  assets: AssetRepository;
}

/** The store of the webhook services: repositories and transactions over them. */
export type WebhookStore = Transactional<WebhookRepositories>;
