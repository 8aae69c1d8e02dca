import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/storage/database.ts';
import { sql } from '../../src/storage/kysely.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { openStoreAt, type MigrationStore } from '../support/migration-store.ts';

describe('migration 009: API keys get a public id and a last use', () => {
  let store: MigrationStore;
  let database: Database;

  before(async () => {
    store = await openStoreAt('008-scans');
    database = store.database;
  });
  after(async () => store.close());

  it('gives every existing key its own id, never used, and refuses a duplicate id afterwards', async () => {
    const db = database.db;
    await sql`insert into teams (token, name, plan, verification_code, created) values ('t1', 'team', 'enterprise', 'code', 1)`.execute(
      db,
    );
    for (const [hash, revoked] of [
      ['h1', null],
      ['h2', 5],
      ['h3', null],
    ] as const) {
      await sql`insert into api_keys (key_hash, key_hint, kind, permissions, secret_enc, created, revoked) values (${hash}, 'abcdef', 'v2', null, null, 1, ${revoked})`.execute(
        db,
      );
    }

    await migrateToLatest(database);

    const rows = await db
      .selectFrom('api_keys')
      .select(['key_hash', 'public_id', 'last_used', 'revoked'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.key_hash, r.last_used, r.revoked === null ? null : Number(r.revoked)]),
      [
        ['h1', null, null],
        ['h2', null, 5],
        ['h3', null, null],
      ],
    );
    for (const row of rows) assert.match(row.public_id, /^key_[0-9a-hjkmnp-tv-z]{10}$/);
    assert.equal(new Set(rows.map((r) => r.public_id)).size, 3);
    await assert.rejects(
      sql`insert into api_keys (key_hash, key_hint, kind, created, public_id) values ('h4', 'abcdef', 'v2', 1, ${rows[0]!.public_id})`.execute(
        db,
      ),
      /unique|UNIQUE/,
    );
  });
});
