import type { Kysely, Migration, MigrationProvider, MigrationResultSet } from 'kysely';
import { Migrator, sql } from './kysely.ts';
import type { Database, Dialect } from './database.ts';
import * as m001 from './migrations/001-foundation.ts';
import * as m002 from './migrations/002-vulnerabilities.ts';
import * as m003 from './migrations/003-members-groups.ts';
import * as m004 from './migrations/004-jobs.ts';
import * as m005 from './migrations/005-zones.ts';
import * as m006 from './migrations/006-vulnerability-time-index.ts';
import * as m007 from './migrations/007-dns-names.ts';
import * as m008 from './migrations/008-scans.ts';
import * as m009 from './migrations/009-api-key-ids.ts';
import * as m010 from './migrations/010-ip-inventory.ts';
import * as m011 from './migrations/011-vulnerability-counts.ts';
import * as m012 from './migrations/012-surface-runs.ts';
import * as m013 from './migrations/013-port-technology-inventory.ts';
import * as m014 from './migrations/014-inventory-documents.ts';
import * as m015 from './migrations/015-document-compression.ts';
import * as m016 from './migrations/016-gone-order-indexes.ts';
import * as m017 from './migrations/017-policy-breaches.ts';
import * as m018 from './migrations/018-connectors.ts';
import * as m019 from './migrations/019-vulnerability-locations.ts';
import * as m020 from './migrations/020-vulnerability-cvss-3-0.ts';
import * as m021 from './migrations/021-render-cache.ts';
import * as m022 from './migrations/022-console-accounts.ts';
import * as m023 from './migrations/023-team-sso.ts';
import * as m024 from './migrations/024-events.ts';
import * as m025 from './migrations/025-webhooks.ts';
import * as m026 from './migrations/026-jira.ts';
import * as m027 from './migrations/027-imports.ts';
import * as m028 from './migrations/028-connector-runs.ts';

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
  '009-api-key-ids': m009,
  '010-ip-inventory': m010,
  '011-vulnerability-counts': m011,
  '012-surface-runs': m012,
  '013-port-technology-inventory': m013,
  '014-inventory-documents': m014,
  '015-document-compression': m015,
  '016-gone-order-indexes': m016,
  '017-policy-breaches': m017,
  '018-connectors': m018,
  '019-vulnerability-locations': m019,
  '020-vulnerability-cvss-3-0': m020,
  '021-render-cache': m021,
  '022-console-accounts': m022,
  '023-team-sso': m023,
  '024-events': m024,
  '025-webhooks': m025,
  '026-jira': m026,
  '027-imports': m027,
  '028-connector-runs': m028,
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

/**
 * The names in Kysely's migration table, read with one plain query; undefined when it cannot be
 * read (no table yet, or any other failure: the migrator then runs and reports the real one).
 */
async function appliedMigrations(database: Database): Promise<Set<string> | undefined> {
  const table =
    database.schema === undefined ? sql.table('kysely_migration') : sql.id(database.schema, 'kysely_migration');
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(database.db);
    return new Set(rows.map((r) => r.name));
  } catch {
    return undefined;
  }
}

/**
 * Applies every pending migration; safe to run from several processes (Kysely locks). A store
 * that has exactly the known migrations is left alone without starting the migrator, whose
 * table checks read the catalogue of every schema: that costs time on each command's start, and
 * on PostgreSQL it can fail while another process creates tables in some schema (a starting
 * pg-boss, another test's store). Afterwards the schema is final for this process
 * (Database.settle).
 */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const applied = await appliedMigrations(database);
  const known = Object.keys(migrations);
  if (applied !== undefined && applied.size === known.length && known.every((name) => applied.has(name))) {
    database.settle?.();
    return [];
  }
  const { error, results } = await withCatalogueRetry(() => migratorOf(database).migrateToLatest());
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
  // The schema is final for this process: repeated reads may keep their plans.
  database.settle?.();
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies the migrations up to and including `name` (tests of a migration start a store before it). */
export async function migrateTo(database: Database, name: string): Promise<void> {
  const { error } = await withCatalogueRetry(() => migratorOf(database).migrateTo(name));
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
}

/**
 * Runs the migrator again (up to three times) when it failed with PostgreSQL's undefined_table
 * (42P01): Kysely's table checks read the catalogue of every schema, and a table another
 * connection drops while that read runs (another process's migration, another test file's
 * schema) fails it, before any migration of ours ran. Migrations run in a transaction, so a run
 * that failed later left nothing behind either; a real missing table fails every attempt and is
 * reported.
 */
export async function withCatalogueRetry(run: () => Promise<MigrationResultSet>): Promise<MigrationResultSet> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await run();
    const code = (outcome.error as { code?: unknown } | undefined)?.code;
    if (code !== '42P01' || attempt === 3) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}

/** True when every known migration has been applied (used by /readyz). */
export async function isMigrated(database: Database): Promise<boolean> {
  const migrator = migratorOf(database);
  const all = await migrator.getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}
