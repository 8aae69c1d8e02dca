import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database, Dialect } from './database.ts';
import * as m001 from './migrations/001-foundation.ts';
import * as m002 from './migrations/002-vulnerabilities.ts';
import * as m003 from './migrations/003-members-groups.ts';
import * as m004 from './migrations/004-jobs.ts';
import * as m005 from './migrations/005-zones.ts';
import * as m006 from './migrations/006-vulnerability-time-index.ts';
import * as m007 from './migrations/007-dns-names.ts';
import * as m008 from './migrations/008-scans.ts';

interface MigrationModule {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** Numbered, forward-only migrations, in order. */
const migrations: Record<string, MigrationModule> = {
  '001-foundation': m001,
  '002-vulnerabilities': m002,
  '003-members-groups': m003,
  '004-jobs': m004,
  '005-zones': m005,
  '006-vulnerability-time-index': m006,
  '007-dns-names': m007,
  '008-scans': m008,
};

class CodeMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, mod] of Object.entries(migrations)) {
      out[name] = { up: (db) => mod.up(db, this.dialect) };
    }
    return out;
  }
}

function migratorOf(database: Database): Migrator {
  // Naming the schema keeps Kysely's table checks inside it (tests run one schema per file).
  return new Migrator({
    db: database.db,
    provider: new CodeMigrationProvider(database.dialect),
    ...(database.schema === undefined ? {} : { migrationTableSchema: database.schema }),
  });
}

/** Applies every pending migration; safe to run from several processes (Kysely locks). */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const migrator = migratorOf(database);
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies the migrations up to and including `name` (tests of a migration start a store before it). */
export async function migrateTo(database: Database, name: string): Promise<void> {
  const { error } = await migratorOf(database).migrateTo(name);
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
}

/** True when every known migration has been applied (used by /readyz). */
export async function isMigrated(database: Database): Promise<boolean> {
  const migrator = migratorOf(database);
  const all = await migrator.getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}
