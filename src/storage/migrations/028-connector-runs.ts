import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Connector runs (core/connectors/connector-run.service.ts).
 *
 * `connectors.run_requests`: counts the runs requested; the run job of request n carries n, so a
 * job of an older request never runs again, and a request made while the previous job closes gets
 * a job of its own.
 *
 * `connectors.next_run_at`: when the daily run is next due (epoch ms); the scheduler claims due
 * connectors by moving it a day on. Existing connectors are due at once. `last_run_completed_at`
 * may now be null while a run is queued or running (its status says which).
 *
 * `dns_names.records_connector`: the record set a connector run read for a name (source
 * `connector`, bit 9 of `sources`).
 *
 * `connector_assets`: every name and address a connector's runs brought in (zones, names of their
 * records, host names, addresses), with when a run first and last saw it and, once a later run
 * no longer sees it, when it went (`gone_at`; the asset itself is never deleted by a run).
 * Cascades from connectors and teams.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('connectors').addColumn('next_run_at', 'bigint').execute();
  await db.schema
    .alterTable('connectors')
    .addColumn('run_requests', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('dns_names').addColumn('records_connector', 'text').execute();
  await db.schema
    .createTable('connector_assets')
    .addColumn('connector_id', 'bigint', (c) => c.notNull().references('connectors.id').onDelete('cascade'))
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('gone_at', 'bigint')
    .addPrimaryKeyConstraint('connector_assets_pk', ['connector_id', 'kind', 'name'])
    .execute();
  await db.schema.createIndex('connectors_next_run_idx').on('connectors').column('next_run_at').execute();
}
