import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * Webhooks (core/webhooks) and their delivery log.
 *
 * `webhooks`: one row per webhook of a team. `public_id` is the wire id (a random UUID);
 * `recipients`, `kinds` and `asset_ids` are JSON lists (recipients for the email format, kinds
 * subscribed, internal ids of root assets: empty = every asset); `secret_sealed` the signing
 * secret sealed with the server key. `cursor_event_id` is the id of the team's event log up to
 * which every event is done (delivered or filtered out); `failing_since` and
 * `consecutive_failures` describe the current run of failures (null and 0 when none);
 * `retry_at` is when a deferred delivery is due (a back-off, a digest), null when none: the pump
 * passes over the webhook until then. Listed in
 * (created_at, id) order per team.
 *
 * `webhook_deliveries`: one row per attempt (the log of the API), cascading from its webhook;
 * `event_id` is null for a test event (never in the log). Listed newest first per webhook
 * (webhook_id, id); pruned by age (created_at).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('webhooks'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('public_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('recipients', 'text', (c) => c.notNull())
    .addColumn('kinds', 'text', (c) => c.notNull())
    .addColumn('min_severity', 'text')
    .addColumn('asset_ids', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('digest_minutes', 'integer', (c) => c.notNull())
    .addColumn('cursor_event_id', 'bigint', (c) => c.notNull())
    .addColumn('failing_since', 'bigint')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull())
    .addColumn('retry_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_public_id_unique').on('webhooks').column('public_id').unique().execute();
  await db.schema
    .createIndex('webhooks_team_order_idx')
    .on('webhooks')
    .columns(['team_id', 'created_at', 'id'])
    .execute();

  await idColumn(db.schema.createTable('webhook_deliveries'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('public_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'bigint', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', 'bigint')
    .addColumn('event_public_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('is_test', 'integer', (c) => c.notNull())
    .addColumn('is_redelivery', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_public_id_unique')
    .on('webhook_deliveries')
    .column('public_id')
    .unique()
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'id'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_created_idx').on('webhook_deliveries').column('created_at').execute();
}
