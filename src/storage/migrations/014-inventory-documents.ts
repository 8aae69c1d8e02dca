import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

const tables = ['ip_addresses', 'ports', 'technologies'] as const;

/**
 * A stored list document per inventory row (addresses, ports, technologies): the wire JSON of the
 * fields a v3 page shows but id and the ones every run changes (active or status, disappeared_at),
 * which the page read writes in front of it. A page then reads a few values and one string per
 * row instead of every column.
 *
 * The documents are a render cache (http/v3/inventory.render.ts): this migration only adds the
 * column. Rows stored before it keep `{}`, which migration 021 marks as never rendered, and the
 * store renders them from their columns when it opens (storage/render-cache.ts). It imports no
 * live code, so it does what it did when released whatever the wire shape becomes.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  void dialect;
  for (const table of tables)
    await db.schema
      .alterTable(table)
      .addColumn('document', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
}
