import { storedMember } from './stored-value.ts';
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { sql } from '../kysely.ts';
import { eventKinds, type EventKind } from '../../core/events/event.types.ts';
import { webhookFormats } from '../../core/webhooks/webhook-format.types.ts';
import type {
  NewWebhook,
  NewWebhookDelivery,
  Webhook,
  WebhookChanges,
  WebhookDelivery,
  WebhookPosition,
  WebhookRepository,
} from '../../core/webhooks/webhook.types.ts';
import type { Severity } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { WebhookDeliveriesTable, WebhooksTable } from '../schema-webhooks.ts';
import type { Schema } from '../schema.ts';

type WebhookRow = Selectable<WebhooksTable> & { team_token: string };

function toWebhook(row: WebhookRow): Webhook {
  return {
    id: Number(row.id),
    publicId: row.public_id,
    teamId: Number(row.team_id),
    teamToken: row.team_token,
    name: row.name,
    format: storedMember(webhookFormats, row.format, `webhook ${row.id}`),
    url: row.url,
    recipients: JSON.parse(row.recipients) as string[],
    // A kind no longer in the catalogue is dropped rather than failing every read of the webhook.
    kinds: (JSON.parse(row.kinds) as string[]).filter((k): k is EventKind =>
      (eventKinds as readonly string[]).includes(k),
    ),
    minSeverity: row.min_severity as Severity | null,
    assetIds: JSON.parse(row.asset_ids) as number[],
    secretSealed: row.secret_sealed,
    enabled: Number(row.enabled) === 1,
    disabledReason: row.disabled_reason,
    digestMinutes: Number(row.digest_minutes),
    cursorEventId: Number(row.cursor_event_id),
    failingSince: row.failing_since === null ? null : new Date(Number(row.failing_since)),
    consecutiveFailures: Number(row.consecutive_failures),
    retryAt: row.retry_at === null ? null : new Date(Number(row.retry_at)),
    created: new Date(Number(row.created_at)),
    updated: new Date(Number(row.updated_at)),
  };
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    id: Number(row.id),
    publicId: row.public_id,
    teamId: Number(row.team_id),
    webhookId: Number(row.webhook_id),
    eventId: row.event_id === null ? null : Number(row.event_id),
    eventPublicId: row.event_public_id,
    kind: row.kind as EventKind,
    attempt: Number(row.attempt),
    outcome: row.outcome === 'succeeded' ? 'succeeded' : 'failed',
    httpStatus: row.http_status === null ? null : Number(row.http_status),
    error: row.error,
    responseExcerpt: row.response_excerpt,
    durationMs: Number(row.duration_ms),
    created: new Date(Number(row.created_at)),
    isTest: Number(row.is_test) === 1,
    isRedelivery: Number(row.is_redelivery) === 1,
  };
}

/** The columns of a new delivery row. */
function deliveryColumns(d: NewWebhookDelivery): Insertable<WebhookDeliveriesTable> {
  return {
    team_id: d.teamId,
    public_id: d.publicId,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    event_public_id: d.eventPublicId,
    kind: d.kind,
    attempt: d.attempt,
    outcome: d.outcome,
    http_status: d.httpStatus,
    error: d.error,
    response_excerpt: d.responseExcerpt,
    duration_ms: d.durationMs,
    created_at: d.created.getTime(),
    is_test: d.isTest ? 1 : 0,
    is_redelivery: d.isRedelivery ? 1 : 0,
  };
}

/** The columns of the changes an update makes. */
function changeColumns(changes: WebhookChanges): Updateable<WebhooksTable> {
  const c: Updateable<WebhooksTable> = { updated_at: changes.updated.getTime() };
  if (changes.name !== undefined) c.name = changes.name;
  if (changes.format !== undefined) c.format = changes.format;
  if (changes.url !== undefined) c.url = changes.url;
  if (changes.recipients !== undefined) c.recipients = JSON.stringify(changes.recipients);
  if (changes.kinds !== undefined) c.kinds = JSON.stringify(changes.kinds);
  if (changes.minSeverity !== undefined) c.min_severity = changes.minSeverity;
  if (changes.assetIds !== undefined) c.asset_ids = JSON.stringify(changes.assetIds);
  if (changes.secretSealed !== undefined) c.secret_sealed = changes.secretSealed;
  if (changes.enabled !== undefined) c.enabled = changes.enabled ? 1 : 0;
  if (changes.disabledReason !== undefined) c.disabled_reason = changes.disabledReason;
  if (changes.digestMinutes !== undefined) c.digest_minutes = changes.digestMinutes;
  if (changes.failingSince !== undefined) c.failing_since = changes.failingSince?.getTime() ?? null;
  if (changes.consecutiveFailures !== undefined) c.consecutive_failures = changes.consecutiveFailures;
  if (changes.retryAt !== undefined) c.retry_at = changes.retryAt?.getTime() ?? null;
  return c;
}

/** Webhooks and their delivery log on Kysely; reads by wire id filter on team_id. */
export class KyselyWebhookRepository implements WebhookRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  private select() {
    return this.db
      .selectFrom('webhooks')
      .innerJoin('teams', 'teams.id', 'webhooks.team_id')
      .selectAll('webhooks')
      .select('teams.token as team_token');
  }

  async insert(w: NewWebhook): Promise<Webhook> {
    const { id } = await this.db
      .insertInto('webhooks')
      .values({
        team_id: w.teamId,
        public_id: w.publicId,
        name: w.name,
        format: w.format,
        url: w.url,
        recipients: JSON.stringify(w.recipients),
        kinds: JSON.stringify(w.kinds),
        min_severity: w.minSeverity,
        asset_ids: JSON.stringify(w.assetIds),
        secret_sealed: w.secretSealed,
        enabled: w.enabled ? 1 : 0,
        disabled_reason: w.disabledReason,
        digest_minutes: w.digestMinutes,
        cursor_event_id: w.cursorEventId,
        failing_since: w.failingSince?.getTime() ?? null,
        consecutive_failures: w.consecutiveFailures,
        retry_at: w.retryAt?.getTime() ?? null,
        created_at: w.created.getTime(),
        updated_at: w.updated.getTime(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return toWebhook(await this.select().where('webhooks.id', '=', Number(id)).executeTakeFirstOrThrow());
  }

  async list(teamIds: number[], after: WebhookPosition | undefined, limit: number): Promise<Webhook[]> {
    let query = this.select().where('webhooks.team_id', 'in', teamIds);
    if (after !== undefined) {
      query = query.where((eb) =>
        eb.or([
          eb('webhooks.created_at', '>', after.created),
          eb.and([eb('webhooks.created_at', '=', after.created), eb('webhooks.id', '>', after.id)]),
        ]),
      );
    }
    const rows = await query.orderBy('webhooks.created_at').orderBy('webhooks.id').limit(limit).execute();
    return rows.map(toWebhook);
  }

  async findByPublicId(teamIds: number[], publicId: string): Promise<Webhook | undefined> {
    const row = await this.select()
      .where('webhooks.team_id', 'in', teamIds)
      .where('webhooks.public_id', '=', publicId)
      .executeTakeFirst();
    return row && toWebhook(row);
  }

  async findById(id: number): Promise<Webhook | undefined> {
    const row = await this.select().where('webhooks.id', '=', id).executeTakeFirst();
    return row && toWebhook(row);
  }

  async update(teamId: number, id: number, changes: WebhookChanges): Promise<Webhook | undefined> {
    await this.db
      .updateTable('webhooks')
      .set(changeColumns(changes))
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
    const row = await this.select()
      .where('webhooks.team_id', '=', teamId)
      .where('webhooks.id', '=', id)
      .executeTakeFirst();
    return row && toWebhook(row);
  }

  async delete(teamIds: number[], publicId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('webhooks')
      .where('team_id', 'in', teamIds)
      .where('public_id', '=', publicId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async advance(teamId: number, id: number, eventId: number): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ cursor_event_id: eventId, failing_since: null, consecutive_failures: 0, retry_at: null })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .where('cursor_event_id', '<', eventId)
      .execute();
  }

  async behind(now: Date, limit: number): Promise<number[]> {
    // The team's latest id is one index probe of events (team_id, id) per enabled webhook.
    const rows = await this.db
      .selectFrom('webhooks as w')
      .select('w.id')
      .where('w.enabled', '=', 1)
      .where((eb) => eb.or([eb('w.retry_at', 'is', null), eb('w.retry_at', '<=', now.getTime())]))
      .where('w.cursor_event_id', '<', sql<number>`(select max(e.id) from events e where e.team_id = w.team_id)`)
      .orderBy('w.id')
      .limit(limit)
      .execute();
    return rows.map((r) => Number(r.id));
  }

  async insertDelivery(d: NewWebhookDelivery): Promise<WebhookDelivery> {
    const row = await this.db
      .insertInto('webhook_deliveries')
      .values(deliveryColumns(d))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toDelivery(row);
  }

  async insertDeliveries(deliveries: readonly NewWebhookDelivery[]): Promise<void> {
    // 15 columns a row: 60 rows a statement stay under SQLite's 999 bound parameters.
    for (let i = 0; i < deliveries.length; i += 60)
      await this.db
        .insertInto('webhook_deliveries')
        .values(deliveries.slice(i, i + 60).map(deliveryColumns))
        .execute();
  }

  async listDeliveries(
    teamId: number,
    webhookId: number,
    beforeId: number | undefined,
    limit: number,
  ): Promise<WebhookDelivery[]> {
    let query = this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('webhook_id', '=', webhookId);
    if (beforeId !== undefined) query = query.where('id', '<', beforeId);
    const rows = await query.orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toDelivery);
  }

  async findDelivery(teamId: number, webhookId: number, publicId: string): Promise<WebhookDelivery | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('webhook_id', '=', webhookId)
      .where('public_id', '=', publicId)
      .executeTakeFirst();
    return row && toDelivery(row);
  }

  async pruneDeliveries(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('webhook_deliveries')
      .where('created_at', '<', before.getTime())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
