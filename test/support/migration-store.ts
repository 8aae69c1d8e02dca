import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/storage/database.ts';
import { sql } from '../../src/storage/kysely.ts';
import { migrateTo } from '../../src/storage/migrate.ts';
import { openTestDatabase, testSchemaName } from './harness.ts';

/** A store of its own (SQLite folder or PostgreSQL schema) migrated up to `version`: where a migration test starts. */
export interface MigrationStore {
  database: Database;
  close(): Promise<void>;
}

/** Opens a fresh store and applies the migrations up to and including `version`. */
export async function openStoreAt(version: string): Promise<MigrationStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perimeter-migration-'));
  const database = await openTestDatabase(dataDir, testSchemaName('m'));
  await migrateTo(database, version);
  return {
    database,
    async close() {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One team and its verified root domain `example.com`, as the columns stood up to migration 020; their ids. */
export async function insertTeamAndAsset(database: Database): Promise<{ teamId: number; assetId: number }> {
  const db = database.db;
  await sql`insert into teams (token, name, plan, verification_code, created) values ('team-token', 'team', 'enterprise', 'code', 1)`.execute(
    db,
  );
  const teamId = Number((await sql<{ id: number }>`select id from teams`.execute(db)).rows[0]!.id);
  await sql`insert into assets (team_id, token, uuid, name, kind, port, is_root, root_id, status, added_by, monitored, settings, created, updated, discovered, last_seen)
    values (${teamId}, 'asset-token', 'u1', 'example.com', 'domain', null, 1, null, 'verified', '["manual"]', 1, null, 1, 1, 1, 1)`.execute(
    db,
  );
  const assetId = Number((await sql<{ id: number }>`select id from assets`.execute(db)).rows[0]!.id);
  return { teamId, assetId };
}
