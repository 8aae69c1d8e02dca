import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * The embedded store's durable job queue. Only SQLite gets it: on PostgreSQL, jobs live in
 * pg-boss's own schema. At most one queued-or-active job per (kind, singleton key).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await idColumn(db.schema.createTable('jobs'), dialect)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('singleton_key', 'text')
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_token', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['state', 'run_at', 'id']).execute();
  await db.schema.createIndex('jobs_lease_idx').on('jobs').columns(['state', 'lease_until']).execute();
  await db.schema
    .createIndex('jobs_singleton_unique')
    .on('jobs')
    .columns(['kind', 'singleton_key'])
    .unique()
    .where(sql<boolean>`state in ('queued', 'active') and singleton_key is not null`)
    .execute();
}
