import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from './kysely.ts';
import { CoalescedRead } from './coalesced-read.ts';
import { renderPage, renderPageLent, type PageSpec, type RenderedPage } from '../shared/page-render.mjs';
import { TableStatistics, type GrowingTable } from './table-statistics.ts';
import { PooledSqliteDialect } from './sqlite-driver.ts';
import { PgReadPool } from './pg-read-pool.ts';
import { SqliteReadPool } from './sqlite-read-pool.ts';
import { namingPool } from './pg-named-statements.ts';
import { poolSettings, queryNamed, StatementNames, storeTypes } from './pg-statements.mjs';
import type { Schema } from './schema.ts';

/** Which SQL dialect a database speaks; only storage/ branches on it. */
export type Dialect = 'sqlite' | 'postgres';

/** An open database: the query builder, its dialect and how to close it. */
export interface Database {
  db: Kysely<Schema>;
  dialect: Dialect;
  /** PostgreSQL schema holding the tables, when not the default one. */
  schema?: string | undefined;
  /**
   * A team's data version of a list, read outside transactions without the query builder: every
   * list request reads one (it keys the page cache), and a query-builder round trip would cost
   * more than the read. The embedded store reads it with a prepared statement on its writer,
   * PostgreSQL with a named statement, concurrent reads coalesced.
   */
  readVersion: (list: VersionedData, teamId: number) => number | Promise<number>;
  /**
   * Capability of the embedded store: runs a compiled read-only query outside any transaction
   * (on the read pool when there is one) and answers its rows as arrays. better-sqlite3 builds
   * an object per row at a cost that dominates wide list pages.
   */
  rawRows?: (sql: string, parameters: readonly unknown[]) => Promise<unknown[][]>;
  /**
   * Runs a compiled read-only list query outside any transaction and renders its rows as wire
   * JSON (page-render.mjs) where they are read: in a reader thread of the embedded store, so the
   * event loop receives one string, or from PostgreSQL's array rows.
   */
  readPage: (sql: string, parameters: readonly unknown[], spec: PageSpec) => Promise<RenderedPage>;
  /**
   * Capability of the embedded store: a prepared statement on its one connection (so it runs
   * inside whatever transaction is open). Bulk writes of many small rows (zone indexing) use
   * it: building a multi-row insert through the query builder costs more than the writes.
   */
  prepare?: (sql: string) => SQLite.Statement;
  /** Slots of the reader threads' page memory lent to pages not yet written out (see read-pool.ts). */
  pageSlotsLent?: () => number;
  /**
   * The schema is final for this process (migrations ran): PostgreSQL may keep the plans of
   * repeated reads from now on (pg-named-statements.ts).
   */
  settle?: () => void;
  /**
   * PostgreSQL: `rows` rows of a bulk-written table were written; the store analyzes the table
   * once they add up to a fifth of it (table-statistics.ts). Absent on the embedded store.
   */
  tableChanged?: (table: GrowingTable, rows: number) => void;
  /** Human description for logs, never containing a password. */
  description: string;
  close(): Promise<void>;
}

/** The data whose per-team version keys cached pages. */
export type VersionedData = 'vulnerabilities' | 'ips' | 'ports' | 'technologies';

/** The statement reading each version (one parameter: the team id). */
const versionSql: Record<VersionedData, string> = {
  vulnerabilities: 'select vuln_version from teams where id = ?',
  ips: 'select version from ip_inventory_versions where team_id = ?',
  ports: "select version from inventory_versions where team_id = ? and list = 'ports'",
  technologies: "select version from inventory_versions where team_id = ? and list = 'technologies'",
};

/** Options to open a database. */
export interface OpenOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** PostgreSQL schema to use (tests give each file its own); created when missing. */
  pgSchema?: string;
  /** SQLite file name inside dataDir; `:memory:` for a private in-memory store. */
  sqliteFile?: string;
  /** PostgreSQL: connections of this process (default defaultPoolSize()). */
  poolSize?: number;
  /** SQLite page cache, in MB (default 32). */
  cacheMb?: number;
  /**
   * Reader threads (default: one per core, 2 to 4; 0 for none). SQLite: read-only connections
   * that serve plain reads outside transactions; without them every query runs on the one
   * connection; a `:memory:` store has none (its data is private to its connection).
   * PostgreSQL: list pages outside transactions are read and rendered there, over connections
   * of their own (the pool size split between them), once migrations ran.
   */
  readers?: number;
  /** Reports what went wrong in the background (a failed ANALYZE of table-statistics.ts). */
  onBackgroundError?: (message: string, error: unknown) => void;
}

/** Page cache of each reader of the pool, in KB: pages are read into it with read(2) (sqlite-reader-settings.mjs). */
export const readerCacheKb = 8 * 1024;

/** The embedded store's file in dataDir when none is named. */
export const defaultSqliteFile = 'perimeter.db';

/**
 * Makes the data directory (0700 when it creates it) and the store's file readable by its owner
 * alone (0600): SQLite creates the `-wal` and `-shm` files with the mode of the database file, so
 * they are 0600 too. Files of an older store are brought to 0600 as well.
 */
export function createPrivateFile(dataDir: string, path: string): void {
  if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

/** Opens PostgreSQL when a URL is given, else the embedded SQLite file in dataDir (WAL mode). */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl !== undefined) return openPostgres(options.databaseUrl, options);
  return openSqlite(options);
}

function openSqlite(options: OpenOptions): Database {
  const file = options.sqliteFile ?? defaultSqliteFile;
  let path = file;
  if (file !== ':memory:') {
    path = join(options.dataDir, file);
    createPrivateFile(options.dataDir, path);
  }
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // The file is mapped (up to 4 GB): reading a page is a memory access, not a read(2), and
  // clean pages live in the kernel's page cache. SQLite's own cache holds mostly pages being
  // written; a large write (a 50 MB lookup list, a big zone) spills to the WAL past it instead
  // of growing the process by the size of the write.
  sqlite.pragma(`cache_size = -${(options.cacheMb ?? 32) * 1024}`);
  sqlite.pragma('mmap_size = 4294967296');
  const readers = file === ':memory:' ? 0 : (options.readers ?? defaultReaders());
  const pool = readers > 0 ? new SqliteReadPool(path, readers, readerCacheKb) : undefined;
  const db = new Kysely<Schema>({ dialect: new PooledSqliteDialect(sqlite, statementCache(sqlite), pool) });
  // Prepared on first use: the tables exist only once migrations ran.
  const versionStatements = new Map<VersionedData, SQLite.Statement>();
  const rawStatements = new Map<string, SQLite.Statement>();
  const rawStatement = (source: string) => {
    let statement = rawStatements.get(source);
    if (statement === undefined) {
      statement = sqlite.prepare(source).raw(true);
      if (rawStatements.size >= 200) rawStatements.clear();
      rawStatements.set(source, statement);
    }
    return statement;
  };
  return {
    db,
    dialect: 'sqlite',
    prepare: (source) => sqlite.prepare(source),
    rawRows: async (source, parameters) => {
      if (pool !== undefined) return (await pool.query(source, parameters, true)) as unknown[][];
      return rawStatement(source).all(...parameters) as unknown[][];
    },
    pageSlotsLent: () => pool?.slotsLent() ?? 0,
    readPage: async (source, parameters, spec) => {
      if (pool !== undefined) return pool.page(source, parameters, spec);
      return renderPage(rawStatement(source).all(...parameters) as unknown[][], spec);
    },
    readVersion: (list, teamId) => {
      const source = versionSql[list];
      // While some flow holds a transaction open on the writer, its bumped version is not
      // committed: read the committed one from the pool, which the page and count were read from.
      if (pool !== undefined && sqlite.inTransaction)
        return pool.query(source, [teamId], true).then((rows) => Number((rows[0] as unknown[] | undefined)?.[0] ?? 0));
      let statement = versionStatements.get(list);
      if (statement === undefined) versionStatements.set(list, (statement = sqlite.prepare(source).pluck()));
      return Number(statement.get(teamId) ?? 0);
    },
    description: `sqlite ${path}`,
    close: async () => {
      await db.destroy();
      // Kysely destroys only a driver it has used: a store read only through rawRows or
      // readPage would keep its readers and its file open.
      await pool?.close();
      if (sqlite.open) sqlite.close();
    },
  };
}

/**
 * The writer's prepared statements of recent SQL texts (Kysely would prepare every query
 * anew). better-sqlite3 runs a statement synchronously to completion, so reuse is safe as long
 * as nothing streams (the driver refuses stream()).
 */
function statementCache(sqlite: SQLite.Database): (source: string) => SQLite.Statement {
  const statements = new Map<string, SQLite.Statement>();
  return (source) => {
    let statement = statements.get(source);
    if (statement === undefined) {
      statement = sqlite.prepare(source);
      if (statements.size >= 1000) statements.clear();
      statements.set(source, statement);
    }
    return statement;
  };
}

/** Reader threads of either store when not configured: one per core, 2 to 4. */
export function defaultReaders(): number {
  return Math.min(4, Math.max(2, availableParallelism()));
}

/**
 * PostgreSQL connections of a process by default: two per core, at least 4. More queries in
 * flight than the process can turn into responses only add backends competing for the same
 * cores: with PostgreSQL on the machine (2 cores), the asset list at 50 connections kept its
 * throughput (2,000–2,260 requests/s) while its p99 went from 125–150 ms with 20 connections to
 * 76–90 with 8 and 39–54 with 4. A remote server with cores of its own may warrant more
 * (PERIMETER_STORE_POOL_SIZE).
 */
export function defaultPoolSize(): number {
  return Math.max(4, 2 * availableParallelism());
}

async function openPostgres(url: string, options: OpenOptions): Promise<Database> {
  // The driver is loaded only by processes on PostgreSQL: the embedded store never needs it.
  const { default: pg } = await import('pg');
  const types = storeTypes(pg);
  const schema = options.pgSchema;
  if (schema !== undefined) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await client.end();
    }
  }
  const poolSize = options.poolSize ?? defaultPoolSize();
  const readerCount = options.readers ?? defaultReaders();
  let readers: PgReadPool | undefined;
  const pool = new pg.Pool({
    ...poolSettings(url, schema, poolSize),
    types,
  });
  const names = new StatementNames();
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: namingPool(pool, names) }) });
  await sql`select 1`.execute(db);
  const versions = new CoalescedRead(async (key) => {
    const [list, teamId] = key.split(':') as [VersionedData, string];
    const result = await pool.query({
      name: `perimeter_version_${list}`,
      text: versionSql[list].replace('?', '$1'),
      values: [Number(teamId)],
      rowMode: 'array',
    });
    return Number((result.rows[0] as unknown[] | undefined)?.[0] ?? 0);
  });
  const statistics = new TableStatistics(
    async (table) => {
      await pool.query(`analyze ${table}`);
      const result = await pool.query({
        text: 'select reltuples from pg_class where oid = to_regclass($1)',
        values: [table],
        rowMode: 'array',
      });
      return Number((result.rows[0] as unknown[] | undefined)?.[0] ?? 0);
    },
    (table, error) => options.onBackgroundError?.(`could not analyze ${table} after bulk writes`, error),
  );
  const parsed = new URL(url);
  return {
    db,
    dialect: 'postgres',
    schema,
    // A named statement, parsed once per connection; concurrent requests share reads that
    // started after they arrived (CoalescedRead), so a burst costs two round trips, not fifty.
    readVersion: (list, teamId) => versions.get(`${list}:${teamId}`),
    // Read and rendered by a reader thread into its page memory once the schema is settled (see
    // below), else here into this thread's; lent to the response either way (page-render.mjs).
    readPage: async (text, values, spec) => {
      if (readers !== undefined) return readers.page(text, values, spec);
      return renderPageLent((await queryNamed(pool, names, text, [...values], 'array')).rows as unknown[][], spec);
    },
    pageSlotsLent: () => readers?.slotsLent() ?? 0,
    settle: () => {
      names.settle();
      // The reader threads start once migrations ran: they name their statements from the start.
      if (readers === undefined && readerCount > 0)
        readers = new PgReadPool(
          { url, connections: Math.max(1, Math.ceil(poolSize / readerCount)), searchPath: schema },
          readerCount,
        );
    },
    description: `postgres ${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}${schema ? ` schema ${schema}` : ''}`,
    tableChanged: (table, rows) => statistics.changed(table, rows),
    close: async () => {
      await statistics.idle();
      await readers?.close();
      await db.destroy();
    },
  };
}
