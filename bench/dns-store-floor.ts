import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/storage/database.ts';
import { migrateToLatest } from '../src/storage/migrate.ts';
import { upsertSql } from '../src/storage/repositories/zone.repository.ts';

/**
 * The floor of indexing `count` names into the embedded store: the store's own upsert statement
 * run `count` times in one transaction, rows prebuilt, nothing else (no parsing, grouping or
 * serialising). Whatever the indexing around it costs comes on top. Returns milliseconds.
 */
export async function storeUpsertFloor(count: number): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perimeter-bench-floor-'));
  const database = await openDatabase({ dataDir });
  try {
    await migrateToLatest(database);
    await database.db
      .insertInto('teams')
      .values({
        token: 'f'.repeat(32),
        name: 'floor',
        plan: 'enterprise',
        verification_code: 'floor',
        created: Date.now(),
      })
      .execute();
    const keys = Array.from({ length: count }, (_, i) => `test.floor.host${i}`);
    const sets = keys.map((_, i) => `[["A",300,"198.51.${(i >> 8) & 255}.${i & 255}"]]`);
    const upsert = database.prepare!(upsertSql('zone-transfer'));
    const begin = database.prepare!('begin');
    const commit = database.prepare!('commit');
    const ms = Date.now();
    const startedAt = performance.now();
    begin.run();
    for (let i = 0; i < count; i++) upsert.run(1, keys[i], 1, 2, 0, ms, ms, ms, sets[i]);
    commit.run();
    return performance.now() - startedAt;
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
