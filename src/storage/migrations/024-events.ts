import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * The team event log (core/events): append-only, one row per event, written in the transaction
 * of the change it records. `id` orders the log (a webhook's cursor and the v3 list's cursor are
 * ids); `public_id` is the wire id (a random UUID: the idempotency key of deliveries, and no hint
 * of other teams' volume). `asset_id` (the root asset the event concerns, when one) and
 * `severity` (for findings and breaches) are columns so that subscriptions filter without
 * reading `data`, the event's wire fields as one JSON object, frozen when written.
 * Indexes: (team_id, id) for the list and dispatch, (team_id, kind, id) for a kind filter,
 * (team_id, occurred_at) for time bounds. Rows cascade from their team.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('events'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('public_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('asset_id', 'integer')
    .addColumn('severity', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_public_id_unique').on('events').column('public_id').unique().execute();
  await db.schema.createIndex('events_team_id_idx').on('events').columns(['team_id', 'id']).execute();
  await db.schema.createIndex('events_team_kind_idx').on('events').columns(['team_id', 'kind', 'id']).execute();
  await db.schema.createIndex('events_team_time_idx').on('events').columns(['team_id', 'occurred_at']).execute();
}
