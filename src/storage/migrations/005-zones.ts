import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/** DNS records indexed under assets, and zone lookup jobs with their uploaded lists. */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('dns_records'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('ttl', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    // A hash of type and data keys the row: RDATA can exceed what a PostgreSQL btree entry holds.
    .addColumn('data_hash', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('dns_records_asset_hash_unique', ['asset_id', 'data_hash'])
    .execute();
  await db.schema.createIndex('dns_records_team_idx').on('dns_records').columns(['team_id', 'asset_id']).execute();

  await idColumn(db.schema.createTable('zone_lookup_jobs'), dialect)
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('succeeded', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('chunks', 'integer', (c) => c.notNull())
    .addColumn('next_chunk', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('started', 'bigint')
    .addColumn('finished', 'bigint')
    .execute();
  await db.schema.createIndex('zone_lookup_jobs_created_idx').on('zone_lookup_jobs').columns(['created']).execute();

  await db.schema
    .createTable('zone_lookup_chunks')
    .addColumn('job_id', 'bigint', (c) => c.notNull().references('zone_lookup_jobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('zone_lookup_chunks_pk', ['job_id', 'seq'])
    .execute();

  await db.schema
    .createTable('zone_lookup_seen')
    .addColumn('job_id', 'bigint', (c) => c.notNull().references('zone_lookup_jobs.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('zone_lookup_seen_pk', ['job_id', 'name'])
    .execute();
}
