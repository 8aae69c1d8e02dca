import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/** Teams, API keys and the asset inventory. */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('teams'), dialect)
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('verification_code', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();

  await idColumn(db.schema.createTable('api_keys'), dialect)
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_hint', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text')
    .addColumn('secret_enc', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('revoked', 'bigint')
    .execute();

  await db.schema
    .createTable('api_key_teams')
    .addColumn('key_id', 'integer', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('api_key_teams_pk', ['key_id', 'team_id'])
    .execute();

  await idColumn(db.schema.createTable('assets'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('port', 'integer')
    .addColumn('is_root', 'integer', (c) => c.notNull())
    .addColumn('root_id', 'integer', (c) => c.references('assets.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('added_by', 'text', (c) => c.notNull())
    .addColumn('monitored', 'integer', (c) => c.notNull())
    .addColumn('settings', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addColumn('discovered', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addColumn('verified_at', 'bigint')
    .addColumn('checked_at', 'bigint')
    .addUniqueConstraint('assets_team_name_unique', ['team_id', 'name'])
    .execute();
  await db.schema.createIndex('assets_team_root_id_idx').on('assets').columns(['team_id', 'is_root', 'id']).execute();
  await db.schema.createIndex('assets_root_id_idx').on('assets').columns(['root_id', 'id']).execute();
  await db.schema.createIndex('assets_team_monitored_idx').on('assets').columns(['team_id', 'monitored']).execute();
}
