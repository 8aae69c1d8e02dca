import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../src/storage/kysely.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { openDatabase, type Database } from '../../src/storage/database.ts';
import { finding, scan, scanTarget } from '../support/findings.ts';
import { createHarness, openTestDatabase, postgresTestUrl, testSchemaName, testStore } from '../support/harness.ts';

/**
 * PostgreSQL runs repeated plain reads as named statements once the schema is settled
 * (pg-named-statements.ts), on a real server: the statement is prepared on the connection, and a
 * statement whose result type changes under it (a newer process's migration) is answered anyway.
 */
describe('named statements on PostgreSQL', { skip: testStore !== 'postgres' ? 'PostgreSQL only' : false }, () => {
  let database: Database;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'perimeter-named-'));
    database = await openTestDatabase(dataDir, testSchemaName('named'));
    await migrateToLatest(database);
    await sql`create table named_probe (id integer primary key, label text not null)`.execute(database.db);
    await sql`insert into named_probe values (1, 'one'), (2, 'two')`.execute(database.db);
  });
  after(async () => {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const probe = (db: Database['db']) =>
    db
      .selectFrom('named_probe' as never)
      .select(['id', 'label'] as never)
      .where('id' as never, '>', 0 as never)
      .orderBy('id' as never)
      .execute();

  it('prepares a read seen twice on the connection and answers from it', async () => {
    await database.db.connection().execute(async (db) => {
      for (let i = 0; i < 3; i++)
        assert.deepEqual(await probe(db), [
          { id: 1, label: 'one' },
          { id: 2, label: 'two' },
        ]);
      const prepared = await sql<{
        name: string;
        statement: string;
      }>`select name, statement from pg_prepared_statements where name like 'perimeter_q_%'`.execute(db);
      assert.ok(
        prepared.rows.some((r) => r.statement.includes('named_probe')),
        `the probe is prepared: ${JSON.stringify(prepared.rows.map((r) => r.name))}`,
      );
    });
  });

  it('answers a prepared read whose result type changed under it, and runs it unnamed from then on', async () => {
    await database.db.connection().execute(async (db) => {
      for (let i = 0; i < 3; i++) await probe(db);
      await sql`alter table named_probe alter column label type varchar(20)`.execute(db);
      await sql`update named_probe set label = 'uno' where id = 1`.execute(db);
      // PostgreSQL refuses the prepared statement ("cached plan must not change result type").
      assert.deepEqual(await probe(db), [
        { id: 1, label: 'uno' },
        { id: 2, label: 'two' },
      ]);
      assert.deepEqual(await probe(db), [
        { id: 1, label: 'uno' },
        { id: 2, label: 'two' },
      ]);
    });
  });
});

/** Migration 015: the vulnerabilities' documents are lz4-compressed where the server has lz4. */
describe('document compression on PostgreSQL', { skip: testStore !== 'postgres' ? 'PostgreSQL only' : false }, () => {
  it('stores a long list document lz4-compressed, and lists it whole', async () => {
    const h = await createHarness();
    try {
      const { key } = await h.team('alpha');
      const target = await scanTarget(h, 'alpha', 'alpha.example');
      const title = `Long one: ${'a long title, '.repeat(400)}`;
      await scan(h, target, [finding('long', { host: 'alpha.example', title })], {
        at: new Date(Date.UTC(2026, 9, 1)),
      });
      const supported = await sql<{
        ok: boolean;
      }>`select 'lz4' = any(enumvals) as ok from pg_settings where name = 'default_toast_compression'`.execute(
        h.runtime.database.db,
      );
      const stored = await sql<{
        method: string | null;
        length: number;
      }>`select pg_column_compression(document) as method, length(document) as length from vulnerabilities`.execute(
        h.runtime.database.db,
      );
      assert.equal(stored.rows.length, 1);
      assert.ok(
        stored.rows[0]!.length > 4000,
        `a document long enough to be compressed (${stored.rows[0]!.length} characters)`,
      );
      assert.equal(stored.rows[0]!.method, supported.rows[0]?.ok === true ? 'lz4' : 'pglz');
      const listed = (await h.send('GET', '/rest/v2/vulnerabilities/', { key })).json();
      assert.equal(listed.vulnerabilities[0].title, title);
    } finally {
      await h.close();
    }
  });
});

/**
 * The store analyzes the tables it writes in bulk once this process's writes reach a fifth of
 * them (table-statistics.ts): with autovacuum off, as on this machine's server, nothing else would,
 * and the plans kept for named statements would stay those of an empty table.
 */
describe(
  'planner statistics of bulk-written tables on PostgreSQL',
  { skip: testStore !== 'postgres' ? 'PostgreSQL only' : false },
  () => {
    it('analyzes vulnerabilities once 1,000 rows were written to it, not before', async () => {
      const h = await createHarness();
      try {
        await h.team('alpha');
        const target = await scanTarget(h, 'alpha', 'alpha.example');
        const analyzed = async () =>
          (
            await sql<{
              n: number;
              rows: number;
            }>`select coalesce(s.analyze_count, 0)::int as n, c.reltuples::int as rows from pg_class c left join pg_stat_user_tables s on s.relid = c.oid where c.oid = to_regclass('vulnerabilities')`.execute(
              h.runtime.database.db,
            )
          ).rows[0]!;
        const findings = (from: number) =>
          Array.from({ length: 600 }, (_, i) => finding(`check-${from + i}`, { host: 'alpha.example' }));
        await scan(h, target, findings(0));
        // Nothing in flight to wait for: 600 rows stay below the threshold.
        assert.equal((await analyzed()).n, 0, 'not analyzed after 600 rows');
        await scan(h, target, findings(600), { profile: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' });
        let state = await analyzed();
        for (const deadline = Date.now() + 10_000; state.n === 0 && Date.now() < deadline; state = await analyzed())
          await new Promise((r) => setTimeout(r, 50));
        assert.equal(state.n, 1, 'analyzed once after 1,200 rows');
        // Started after the commit of the batch that crossed 1,000 (ingestion writes in batches).
        assert.ok(state.rows >= 1000 && state.rows <= 1200, `the planner knows the committed rows (${state.rows})`);
      } finally {
        await h.close();
      }
    });
  },
);

/**
 * Every connection of the store runs without parallel query (pg-statements.mjs:
 * connectionSettings): a parallel plan's worker start-up cost a count three times its serial
 * time on the 2-core machine. Session options in the URL are kept beside the store's own.
 */
describe(
  'session settings of the store on PostgreSQL',
  { skip: testStore !== 'postgres' ? 'PostgreSQL only' : false },
  () => {
    it("turns parallel query off, keeps the URL's own options and the schema", async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'perimeter-session-'));
      const url = new URL(postgresTestUrl);
      url.searchParams.set('options', '-c statement_timeout=12345');
      const schema = testSchemaName('session');
      const database = await openDatabase({ databaseUrl: url.toString(), dataDir, pgSchema: schema, poolSize: 2 });
      try {
        for (let i = 0; i < 3; i++) {
          // Every connection of the pool: three reads at once take more than one.
          const rows = await Promise.all(
            [0, 1, 2].map(() =>
              sql<{
                parallel: string;
                timeout: string;
                path: string;
              }>`select current_setting('max_parallel_workers_per_gather') as parallel, current_setting('statement_timeout') as timeout, current_setting('search_path') as path`.execute(
                database.db,
              ),
            ),
          );
          for (const {
            rows: [row],
          } of rows)
            assert.deepEqual(row, { parallel: '0', timeout: '12345ms', path: schema });
        }
      } finally {
        await database.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it(
      "keeps the connections it opened across an idle spell longer than the driver's 10 s",
      { timeout: 30_000 },
      async () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'perimeter-kept-'));
        const database = await openDatabase({
          databaseUrl: postgresTestUrl,
          dataDir,
          pgSchema: testSchemaName('kept'),
          poolSize: 2,
        });
        // Two reads at once hold both connections; each answers the process id of its backend.
        const backends = async () => {
          const rows = await Promise.all(
            [0, 1].map(() => sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(database.db)),
          );
          return rows.map((r) => r.rows[0]!.pid).sort((a, b) => a - b);
        };
        try {
          const before = await backends();
          assert.equal(new Set(before).size, 2, 'two connections');
          await new Promise((resolve) => setTimeout(resolve, 11_000));
          assert.deepEqual(await backends(), before, 'the same two backends after 11 s idle');
        } finally {
          await database.close();
          rmSync(dataDir, { recursive: true, force: true });
        }
      },
    );
  },
);
