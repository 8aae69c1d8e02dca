import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * Surface monitoring: one row per run of a monitored root domain (at most one live run per
 * asset, enforced by a partial unique index, so two schedulers cannot start the same due run),
 * and the record set that monitoring saw for each discovered name (dns_names gains a column,
 * as each zone source has one).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('surface_runs'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('warnings', 'text', (c) => c.notNull())
    .addColumn('progress', 'text', (c) => c.notNull())
    .addColumn('summary', 'text')
    .addColumn('job_id', 'text')
    .addColumn('runner', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('started', 'bigint')
    .addColumn('ended', 'bigint')
    .execute();
  await db.schema.createIndex('surface_runs_asset_idx').on('surface_runs').columns(['asset_id', 'id']).execute();
  await db.schema.createIndex('surface_runs_team_idx').on('surface_runs').columns(['team_id', 'id']).execute();
  await db.schema
    .createIndex('surface_runs_live_unique')
    .on('surface_runs')
    .column('asset_id')
    .unique()
    .where(sql<boolean>`status in ('queued', 'running', 'stopping')`)
    .execute();
  await db.schema.alterTable('dns_names').addColumn('records_surface', 'text').execute();
}
