import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * The IP inventory: one row per (root asset, address), active while monitoring runs see it,
 * with the offline enrichment (autonomous system, country) taken when the row was inserted.
 *
 * Indexes for the v3 list (keyset in (first_seen_at, id) order, at a million rows a team):
 * - (team_id, first_seen_at, id, disappeared_at): the list order itself, so a page and the
 *   first_seen filters are one index range; it carries disappeared_at, so a disappeared filter
 *   is checked inside the index without reading rows.
 * - (team_id, disappeared_at, first_seen_at, id) over disappeared rows only: a disappeared
 *   filter that few rows match is read through it instead of along the list order.
 * - unique (asset_id, ip_address): what a run reads and updates, and the cascade from assets.
 *
 * `ip_inventory_versions` counts the changes a v3 reader can see, per team: list pages are
 * cached under the version, so a run that changes the inventory makes old pages unreachable.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('ip_addresses'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('ip_address', 'text', (c) => c.notNull())
    .addColumn('ip_version', 'text', (c) => c.notNull())
    .addColumn('domain_name', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('disappeared_at', 'bigint')
    .addColumn('enriched', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('as_number', 'bigint')
    .addColumn('as_name', 'text')
    .addColumn('as_domain', 'text')
    .addColumn('continent', 'text')
    .addColumn('continent_name', 'text')
    .addColumn('country', 'text')
    .addColumn('country_name', 'text')
    .execute();
  await db.schema
    .createIndex('ip_addresses_asset_address_unique')
    .on('ip_addresses')
    .columns(['asset_id', 'ip_address'])
    .unique()
    .execute();
  await db.schema
    .createIndex('ip_addresses_team_order_idx')
    .on('ip_addresses')
    .columns(['team_id', 'first_seen_at', 'id', 'disappeared_at'])
    .execute();
  await db.schema
    .createIndex('ip_addresses_team_disappeared_idx')
    .on('ip_addresses')
    .columns(['team_id', 'disappeared_at', 'first_seen_at', 'id'])
    .where(sql<boolean>`disappeared_at is not null`)
    .execute();
  await db.schema
    .createTable('ip_inventory_versions')
    .addColumn('team_id', 'integer', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
}
