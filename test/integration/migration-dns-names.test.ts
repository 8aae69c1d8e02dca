import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../src/storage/kysely.ts';
import type { Database } from '../../src/storage/database.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { openStoreAt, type MigrationStore } from '../support/migration-store.ts';

describe('migration 007: records move from dns_records to dns_names', () => {
  let store: MigrationStore;
  let database: Database;

  before(async () => {
    store = await openStoreAt('006-vulnerability-time-index');
    database = store.database;
  });
  after(async () => store.close());

  it('keeps every record, per source, under the name, and leaves the assets alone', async () => {
    const db = database.db;
    await sql`insert into teams (token, name, plan, verification_code, created) values ('t1', 'team', 'enterprise', 'code', 1)`.execute(
      db,
    );
    const asset = (name: string, token: string, isRoot: number, rootId: number | null, addedBy: string) =>
      sql`insert into assets (team_id, token, uuid, name, kind, port, is_root, root_id, status, added_by, monitored, settings, created, updated, discovered, last_seen)
          values (1, ${token}, ${`${token}-uuid`}, ${name}, 'domain', null, ${isRoot}, ${rootId}, 'verified', ${addedBy}, 0, null, 1000, 1000, 1000, 1000)`.execute(
        db,
      );
    await asset('old.test', 'a'.repeat(32), 1, null, '["manual"]');
    await asset('www.old.test', 'b'.repeat(32), 0, 1, '["zone-file","zone-transfer"]');
    const record = (assetId: number, type: string, data: string, source: string, seen: number) =>
      sql`insert into dns_records (team_id, asset_id, type, ttl, data, data_hash, source, first_seen, last_seen)
          values (1, ${assetId}, ${type}, 300, ${data}, ${`${type}${data}`}, ${source}, ${seen}, ${seen + 5})`.execute(
        db,
      );
    await record(1, 'NS', 'ns1.old.test.', 'zone-file', 100);
    await record(2, 'A', '192.0.2.1', 'zone-file', 200);
    await record(2, 'AAAA', '2001:db8::1', 'zone-transfer', 300);

    await migrateToLatest(database);

    const rows = await db.selectFrom('dns_names').selectAll().orderBy('rname').execute();
    assert.deepEqual(
      rows.map((r) => [
        r.rname,
        r.root_id,
        r.sources,
        r.shadowed,
        r.records_zone_file,
        r.records_zone_transfer,
        r.records_zone_lookup,
        Number(r.first_seen),
        Number(r.last_seen),
      ]),
      [
        ['test.old', 1, 1, 1, '[["NS",300,"ns1.old.test."]]', null, null, 100, 105],
        ['test.old.www', 1, 3, 1, '[["A",300,"192.0.2.1"]]', '[["AAAA",300,"2001:db8::1"]]', null, 200, 305],
      ],
    );
    const assets = await db.selectFrom('assets').select('name').orderBy('id').execute();
    assert.deepEqual(
      assets.map((a) => a.name),
      ['old.test', 'www.old.test'],
    );
    const tables =
      database.dialect === 'sqlite'
        ? await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'table' and name = 'dns_records'`.execute(db)
        : await sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_name = 'dns_records' and table_schema = current_schema()`.execute(
            db,
          );
    assert.deepEqual(tables.rows, []);
  });
});
