import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * Policy breaches (core/policies), listed by v3 /breaches: one row per (root
 * asset, policy, host name). `status` is NEW while the policy is breached and RESOLVED once a
 * run no longer finds it; a check constraint ties it to `active` and `disappeared_at` (null
 * exactly while NEW). `status_updated_at` is when status last changed (first seen, resolved,
 * breached again).
 *
 * Indexes: the list order (team_id, first_seen_at, id) carries the first-seen bounds and the
 * cursor, with disappeared_at and status_updated_at inside it so their bounds are checked
 * without reading rows; the unique identity per asset is what an evaluation reads and updates,
 * and the cascade from assets.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('breaches'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('policy_id', 'text', (c) => c.notNull())
    .addColumn('policy_name', 'text', (c) => c.notNull())
    .addColumn('asset_name', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('evidence', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('status_updated_at', 'bigint', (c) => c.notNull())
    .addColumn('disappeared_at', 'bigint')
    .addCheckConstraint(
      'breaches_status_check',
      sql`(status = 'NEW' and active = 1 and disappeared_at is null) or (status = 'RESOLVED' and active = 0 and disappeared_at is not null)`,
    )
    .execute();
  await db.schema
    .createIndex('breaches_identity_unique')
    .on('breaches')
    .columns(['asset_id', 'policy_id', 'asset_name'])
    .unique()
    .execute();
  await db.schema
    .createIndex('breaches_team_order_idx')
    .on('breaches')
    .columns(['team_id', 'first_seen_at', 'id', 'disappeared_at', 'status_updated_at'])
    .execute();
}
