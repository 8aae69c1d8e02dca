import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MigrationResultSet } from 'kysely';
import { withCatalogueRetry } from './migrate.ts';

/** A migrator run answering the given outcomes in turn, counting its calls. */
function runs(...outcomes: MigrationResultSet[]): { run: () => Promise<MigrationResultSet>; calls: () => number } {
  let calls = 0;
  return { run: async () => outcomes[Math.min(calls++, outcomes.length - 1)]!, calls: () => calls };
}

const undefinedTable: MigrationResultSet = {
  error: Object.assign(new Error('relation "other.dns_records" does not exist'), { code: '42P01' }),
};
const done: MigrationResultSet = { results: [] };

describe('migrations: a table dropped elsewhere while Kysely reads the catalogue', () => {
  it('runs the migrator again after undefined_table and answers the run that succeeded', async () => {
    const m = runs(undefinedTable, undefinedTable, done);
    assert.equal(await withCatalogueRetry(m.run), done);
    assert.equal(m.calls(), 3);
  });

  it('reports undefined_table after three attempts, and any other failure at once', async () => {
    const always = runs(undefinedTable);
    assert.equal(await withCatalogueRetry(always.run), undefinedTable);
    assert.equal(always.calls(), 3);
    const other: MigrationResultSet = { error: Object.assign(new Error('syntax error'), { code: '42601' }) };
    const once = runs(other, done);
    assert.equal(await withCatalogueRetry(once.run), other);
    assert.equal(once.calls(), 1);
  });
});
