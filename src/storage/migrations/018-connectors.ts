import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * The v3 connectors and the external ID of each team (core/connectors).
 *
 * `connectors`: one row per connector. `public_id` is the wire id (a random UUID, unique);
 * `options_sealed` the options as one JSON object encrypted with the server key, never stored in
 * clear. The `last_run_*` columns stay null until connector runs exist (none is built yet); they
 * are null together. Listed in (created_at, id) order for the teams of a key: the index
 * (team_id, created_at, id) serves the keyset range of each team.
 *
 * `connector_external_ids`: at most one per team (the primary key), written insert-or-ignore so
 * concurrent first requests keep one value; the value is unique across teams.
 *
 * Both cascade from teams.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('connectors'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('public_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('options_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_run_status', 'text')
    .addColumn('last_run_error', 'text')
    .addColumn('last_run_completed_at', 'bigint')
    .execute();
  await db.schema.createIndex('connectors_public_id_unique').on('connectors').column('public_id').unique().execute();
  await db.schema
    .createIndex('connectors_team_order_idx')
    .on('connectors')
    .columns(['team_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('connector_external_ids')
    .addColumn('team_id', 'integer', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('connector_external_ids_value_unique')
    .on('connector_external_ids')
    .column('external_id')
    .unique()
    .execute();
}
