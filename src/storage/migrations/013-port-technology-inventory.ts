import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * The port and technology inventories of surface monitoring, listed by v3 /ports and
 * /technologies on the machinery of /ips (storage/repositories/inventory-page.ts).
 *
 * `ports`: one row per (root asset, address, port). `status` is OPEN while runs see the port open
 * and CLOSED once a run no longer does; a check constraint ties it to `disappeared_at` (null
 * exactly while OPEN), so the status filter is a condition on disappeared_at that the list
 * indexes carry. `technologies`: one row per (root asset, name, port, technology, version), a
 * null version being a value of its own (the unique index compares coalesce(version, '') and the
 * service never stores an empty version); `active` is tied to disappeared_at the same way.
 *
 * Indexes for the lists (keyset in (first_seen_at, id) order, at a million rows a team):
 * - (team_id, first_seen_at, id, disappeared_at[, port]): the list order; the first_seen
 *   filters and the cursor are one range of it, and the disappeared, status and port filters
 *   are checked inside it without reading rows.
 * - (team_id, disappeared_at, first_seen_at, id) over disappeared rows only: disappeared and
 *   CLOSED filters that few rows match.
 * - ports (team_id, port, first_seen_at, id, disappeared_at): a port filter that few rows match,
 *   read port by port in list order and merged.
 * - unique identity per asset: what a run reads and updates, and the cascade from assets.
 *
 * `inventory_versions` counts the changes a v3 reader can see, per team and list: pages are
 * cached under the version, so a run that changes a list makes its old pages unreachable.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await createPortsTable(db, dialect);
  await createPortsIndexes(db);
  await createTechnologiesTable(db, dialect);
  await createTechnologiesIndexes(db);
  await createInventoryVersionsTable(db);
}

/** The `ports` table, its status tied to disappeared_at by a check constraint. */
async function createPortsTable(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('ports'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('ip_address', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('domain_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('service', 'text', (c) => c.notNull())
    .addColumn('is_tls', 'integer', (c) => c.notNull())
    .addColumn('is_http', 'integer', (c) => c.notNull())
    .addColumn('banner', 'text')
    .addColumn('product', 'text')
    .addColumn('version', 'text')
    .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('disappeared_at', 'bigint')
    .addCheckConstraint(
      'ports_status_check',
      sql`(status = 'OPEN' and disappeared_at is null) or (status = 'CLOSED' and disappeared_at is not null)`,
    )
    .addCheckConstraint('ports_port_check', sql`port between 0 and 65535`)
    .execute();
}

/** The ports' unique identity per asset and the three list indexes. */
async function createPortsIndexes(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('ports_identity_unique')
    .on('ports')
    .columns(['asset_id', 'ip_address', 'port'])
    .unique()
    .execute();
  await db.schema
    .createIndex('ports_team_order_idx')
    .on('ports')
    .columns(['team_id', 'first_seen_at', 'id', 'disappeared_at', 'port'])
    .execute();
  await db.schema
    .createIndex('ports_team_port_idx')
    .on('ports')
    .columns(['team_id', 'port', 'first_seen_at', 'id', 'disappeared_at'])
    .execute();
  await db.schema
    .createIndex('ports_team_disappeared_idx')
    .on('ports')
    .columns(['team_id', 'disappeared_at', 'first_seen_at', 'id'])
    .where(sql<boolean>`disappeared_at is not null`)
    .execute();
}

/** The `technologies` table, `active` tied to disappeared_at by a check constraint. */
async function createTechnologiesTable(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await idColumn(db.schema.createTable('technologies'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('domain_name', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('version', 'text')
    .addColumn('service_protocol', 'text', (c) => c.notNull())
    .addColumn('categories', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('disappeared_at', 'bigint')
    .addCheckConstraint(
      'technologies_active_check',
      sql`(active = 1 and disappeared_at is null) or (active = 0 and disappeared_at is not null)`,
    )
    .execute();
}

/** The technologies' unique identity per asset (a null version a value of its own) and the two list indexes. */
async function createTechnologiesIndexes(db: Kysely<unknown>): Promise<void> {
  await sql`create unique index technologies_identity_unique on technologies (asset_id, domain_name, port, name, coalesce(version, ''))`.execute(
    db,
  );
  await db.schema
    .createIndex('technologies_team_order_idx')
    .on('technologies')
    .columns(['team_id', 'first_seen_at', 'id', 'disappeared_at'])
    .execute();
  await db.schema
    .createIndex('technologies_team_disappeared_idx')
    .on('technologies')
    .columns(['team_id', 'disappeared_at', 'first_seen_at', 'id'])
    .where(sql<boolean>`disappeared_at is not null`)
    .execute();
}

/** `inventory_versions`: the change count per team and list that v3 pages are cached under. */
async function createInventoryVersionsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inventory_versions')
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('list', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('inventory_versions_pk', ['team_id', 'list'])
    .execute();
}
