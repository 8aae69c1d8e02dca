import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Database } from './database.ts';
import { sql } from './kysely.ts';
import { envelopeRoom, pageSlotSize, takeRelease, withEnvelope } from '../shared/page-render.mjs';
import { pageSlots } from './sqlite-read-pool.ts';

interface Row {
  id: number;
  value: string;
}

describe('embedded store: reads on a pool of worker threads', () => {
  let dataDir: string;
  let database: Database;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'perimeter-pool-'));
    database = await openDatabase({ dataDir, readers: 2 });
    await sql`create table items (id integer primary key, value text not null)`.execute(database.db);
    await sql`create table teams (id integer primary key, vuln_version integer not null)`.execute(database.db);
    await sql`insert into teams (id, vuln_version) values (1, 0)`.execute(database.db);
  });
  after(async () => {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const values = async (): Promise<string[]> =>
    (
      await database.db
        .selectFrom('items' as never)
        .select('value' as never)
        .orderBy('id' as never)
        .execute()
    ).map((r) => (r as Row).value);

  it('sees every write that returned before the read was issued (read-your-writes across the pool)', async () => {
    for (let i = 0; i < 200; i++) {
      await sql`insert into items (value) values (${`v${i}`})`.execute(database.db);
      const seen = await values();
      assert.equal(seen.length, i + 1);
      assert.equal(seen[i], `v${i}`);
      await sql`update items set value = ${`w${i}`} where id = ${i + 1}`.execute(database.db);
      const { rows } = await sql<Row>`select value from items where id = ${i + 1}`.execute(database.db);
      assert.equal(rows[0]!.value, `w${i}`);
    }
    await sql`delete from items`.execute(database.db);
    assert.deepEqual(await values(), []);
  });

  it('does not wait for, nor see into, a transaction open in another flow; the transaction sees its own writes', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inside: string[] = [];
    const transaction = database.db.transaction().execute(async (trx) => {
      await sql`insert into items (value) values ('uncommitted')`.execute(trx);
      await sql`update teams set vuln_version = vuln_version + 1 where id = 1`.execute(trx);
      inside = (await sql<Row>`select value from items`.execute(trx)).rows.map((r) => r.value);
      await held;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The transaction holds the writer: a read served by the writer would wait for it (and
    // time out here) or, read directly, see its row.
    assert.deepEqual(inside, ['uncommitted']);
    assert.deepEqual(await values(), []);
    assert.equal(
      await database.readVersion('vulnerabilities', 1),
      0,
      'the version is read from committed state while a transaction is open',
    );
    release();
    await transaction;
    assert.deepEqual(await values(), ['uncommitted']);
    assert.equal(await database.readVersion('vulnerabilities', 1), 1);
    await sql`delete from items`.execute(database.db);
  });

  it('runs a long read off the event loop', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    const { rows } = await sql<{
      n: number;
    }>`with recursive c(i) as (select 1 union all select i + 1 from c where i < 1000000) select count(*) as n from c`.execute(
      database.db,
    );
    const elapsed = performance.now() - started;
    clearInterval(timer);
    assert.equal(Number(rows[0]!.n), 1_000_000);
    // The query took tens of milliseconds on another thread; the 5 ms timer kept firing.
    assert.ok(elapsed > 30, `the query took ${elapsed} ms`);
    assert.ok(ticks >= Math.floor(elapsed / 5 / 3), `${ticks} ticks in ${elapsed.toFixed(0)} ms`);
  });

  it('answers raw rows from the pool and reports a failing read as the store error', async () => {
    await sql`insert into items (value) values ('a'), ('b')`.execute(database.db);
    assert.deepEqual(await database.rawRows!('select value, length(value) from items order by id', []), [
      ['a', 1],
      ['b', 1],
    ]);
    await assert.rejects(
      sql`select nope from items`.execute(database.db),
      (error: Error & { code?: string }) => error.code === 'SQLITE_ERROR' && /no such column/.test(error.message),
    );
    await sql`delete from items`.execute(database.db);
  });

  it('reads pages with read(2) on every reader, not through a mapping of the file (each commit made the next mapped read slow)', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => database.rawRows!('pragma mmap_size', [])));
    assert.deepEqual(
      answers,
      Array.from({ length: 8 }, () => [[0]]),
    );
  });

  it('renders pages into slots lent to the readers, given back with the response; too big or none free: a buffer of its own', async () => {
    await sql`delete from items`.execute(database.db);
    await sql`insert into items (value) values ('{"a":1}'), ('{"a":2}')`.execute(database.db);
    const spec = { keys: 1, head: [['n', 'number']] as Array<[string, 'number']>, limit: 10, room: envelopeRoom };
    const read = () => database.readPage('select id, id, value from items order by id', [], spec);
    const releases: Array<() => void> = [];
    for (let i = 0; i < 2 * pageSlots; i++) {
      const page = await read();
      const body = withEnvelope('[', page.items, ']');
      assert.equal(body.toString(), '[{"n":1,"a":1},{"n":2,"a":2}]');
      assert.ok(body.buffer instanceof SharedArrayBuffer, `page ${i} in lent memory`);
      releases.push(takeRelease(body)!);
    }
    assert.equal(database.pageSlotsLent!(), 2 * pageSlots, 'every slot of both readers lent');
    const own = await read();
    assert.ok(
      !(own.items as Uint8Array).buffer.constructor.name.startsWith('Shared'),
      'no slot free: a buffer of its own',
    );
    assert.equal(takeRelease(withEnvelope('[', own.items, ']')), undefined);
    for (const release of releases) release();
    assert.equal(database.pageSlotsLent!(), 0);
    // A page bigger than a slot.
    await sql`insert into items (value) values (${JSON.stringify({ big: 'x'.repeat(pageSlotSize) })})`.execute(
      database.db,
    );
    const big = await read();
    assert.equal(Buffer.from(big.items as Uint8Array).length > pageSlotSize, true);
    assert.ok(!((big.items as Uint8Array).buffer instanceof SharedArrayBuffer));
    assert.equal(database.pageSlotsLent!(), 0, 'the slot lent for it came back');
    // A failing read gives its slot back.
    await assert.rejects(database.readPage('select id, id, value from no_such_table', [], spec), /no such table/);
    assert.equal(database.pageSlotsLent!(), 0);
    await sql`delete from items`.execute(database.db);
  });

  it('answers the reads in flight when it closes, and refuses reads once closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perimeter-pool-'));
    const closing = await openDatabase({ dataDir: dir, readers: 2 });
    try {
      // A read that takes a while on a reader, then close while it runs.
      const slow = closing.rawRows!(
        'with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000000) select count(*) from c',
        [],
      );
      await new Promise((r) => setTimeout(r, 20));
      const closed = closing.close();
      assert.deepEqual(await slow, [[2000000]]);
      await closed;
      await assert.rejects(closing.rawRows!('select 1', []), /closed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs the same on one connection when asked for no readers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perimeter-pool-'));
    const single = await openDatabase({ dataDir: dir, readers: 0 });
    try {
      await sql`create table t (x integer)`.execute(single.db);
      await sql`insert into t (x) values (1), (2)`.execute(single.db);
      assert.deepEqual((await sql<{ x: number }>`select x from t order by x`.execute(single.db)).rows, [
        { x: 1 },
        { x: 2 },
      ]);
      assert.deepEqual(await single.rawRows!('select x from t order by x', []), [[1], [2]]);
    } finally {
      await single.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
