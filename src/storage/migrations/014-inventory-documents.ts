import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { rewriteDocuments, type DocumentedTable } from '../repositories/inventory-documents.ts';
import type { Schema } from '../schema.ts';

const tables: DocumentedTable[] = ['ip_addresses', 'ports', 'technologies'];
const batch = 1000;

/**
 * A stored list document per inventory row (addresses, ports, technologies): the wire JSON of the
 * fields a v3 page shows but id and the ones every run changes (active or status, disappeared_at),
 * which the page read writes in front of it. A page then reads a few values and one string per
 * row instead of every column. Rows stored before are given theirs here, a thousand at a time.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  void dialect;
  const typed = db as unknown as Kysely<Schema>;
  for (const table of tables) {
    await db.schema
      .alterTable(table)
      .addColumn('document', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    let after = 0;
    for (;;) {
      const ids = (
        await typed.selectFrom(table).select('id').where('id', '>', after).orderBy('id').limit(batch).execute()
      ).map((r) => Number(r.id));
      if (ids.length === 0) break;
      await rewriteDocuments(typed, table, undefined, ids);
      after = ids[ids.length - 1]!;
    }
  }
}
