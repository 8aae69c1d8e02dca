import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * Application scanning: scan profiles (with their schedule), scans (each one is also the
 * report of that scan) and the vulnerabilities each scan saw. At most one live scan
 * (starting, running or stopping) per profile, enforced by a partial unique index.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('scan_profiles'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id'))
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    // Normalised endpoint: the unique key within the team (2605).
    .addColumn('endpoint_key', 'text', (c) => c.notNull())
    // The origin that answered endpoint validation.
    .addColumn('scheme', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('schedule_frequency', 'text', (c) => c.notNull().defaultTo('never'))
    .addColumn('schedule_first', 'bigint')
    .addColumn('schedule_next', 'bigint')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('scan_profiles_team_endpoint_unique', ['team_id', 'endpoint_key'])
    .execute();
  await db.schema
    .createIndex('scan_profiles_team_asset_idx')
    .on('scan_profiles')
    .columns(['team_id', 'asset_id'])
    .execute();
  await db.schema
    .createIndex('scan_profiles_schedule_idx')
    .on('scan_profiles')
    .columns(['schedule_next'])
    .where(sql<boolean>`schedule_next is not null`)
    .execute();

  await idColumn(db.schema.createTable('scans'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('profile_id', 'bigint', (c) => c.notNull().references('scan_profiles.id').onDelete('cascade'))
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('profile_name', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('warnings', 'text', (c) => c.notNull())
    .addColumn('progress', 'text', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('highest_cvss', 'real', (c) => c.notNull().defaultTo(0))
    .addColumn('job_id', 'text')
    .addColumn('runner', 'text')
    .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('heartbeat', 'bigint')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('started', 'bigint')
    .addColumn('ended', 'bigint')
    .execute();
  await db.schema.createIndex('scans_profile_idx').on('scans').columns(['profile_id', 'id']).execute();
  await db.schema
    .createIndex('scans_live_unique')
    .on('scans')
    .column('profile_id')
    .unique()
    .where(sql<boolean>`status in ('starting', 'running', 'stopping')`)
    .execute();
  await db.schema
    .createIndex('scans_live_idx')
    .on('scans')
    .columns(['status', 'team_id'])
    .where(sql<boolean>`status in ('starting', 'running', 'stopping')`)
    .execute();

  await db.schema
    .createTable('scan_findings')
    .addColumn('scan_id', 'bigint', (c) => c.notNull().references('scans.id').onDelete('cascade'))
    .addColumn('vulnerability_id', 'bigint', (c) => c.notNull().references('vulnerabilities.id').onDelete('cascade'))
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('cvss', 'real', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_findings_pk', ['scan_id', 'vulnerability_id'])
    .execute();
  await db.schema
    .createIndex('scan_findings_vulnerability_idx')
    .on('scan_findings')
    .column('vulnerability_id')
    .execute();
}
