import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';

/**
 * The rows of each inventory that disappeared, in list order: (team_id, first_seen_at, id,
 * disappeared_at[, port]) where disappeared_at is set. A page filtered on disappearance (a
 * disappeared bound, or closed ports) is first looked for along the list order; along this index
 * that probe passes only the rows that are gone (a quarter in the benchmark's inventories) instead
 * of every row, so it finds a page's matches in about a quarter of the index entries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const tables: Array<[table: string, extra: string[]]> = [
    ['ip_addresses', []],
    ['ports', ['port']],
    ['technologies', []],
  ];
  for (const [table, extra] of tables) {
    await db.schema
      .createIndex(`${table}_team_gone_order_idx`)
      .on(table)
      .columns(['team_id', 'first_seen_at', 'id', 'disappeared_at', ...extra])
      .where(sql<boolean>`disappeared_at is not null`)
      .execute();
  }
}
