import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from './kysely.ts';
import { CoalescedRead } from './coalesced-read.ts';
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
   * Capability of the embedded store: the team data version read by a prepared statement
   * (every list request reads it; a query-builder round trip would cost more than the read).
   */
  readTeamVersion?: (teamId: number) => number | Promise<number>;
  /**
   * Capability of the embedded store: runs a compiled query and answers its rows as arrays.
   * better-sqlite3 builds an object per row at a cost that dominates wide list pages.
   */
  rawRows?: (sql: string, parameters: readonly unknown[]) => unknown[][];
  /**
   * Capability of the embedded store: a prepared statement on its one connection (so it runs
   * inside whatever transaction is open). Bulk writes of many small rows (zone indexing) use
   * it: building a multi-row insert through the query builder costs more than the writes.
   */
  prepare?: (sql: string) => SQLite.Statement;
  /** Human description for logs, never containing a password. */
  description: string;
  close(): Promise<void>;
}

/** Options to open a database. */
export interface OpenOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** PostgreSQL schema to use (tests give each file its own); created when missing. */
  pgSchema?: string;
  /** SQLite file name inside dataDir; `:memory:` for a private in-memory store. */
  sqliteFile?: string;
  poolSize?: number;
  /** SQLite page cache, in MB (default 32). */
  cacheMb?: number;
}

/** Opens PostgreSQL when a URL is given, else the embedded SQLite file in dataDir (WAL mode). */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl !== undefined) return openPostgres(options.databaseUrl, options);
  return openSqlite(options);
}

function openSqlite(options: OpenOptions): Database {
  const file = options.sqliteFile ?? 'perimeter.db';
  let path = file;
  if (file !== ':memory:') {
    mkdirSync(options.dataDir, { recursive: true });
    path = join(options.dataDir, file);
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
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  // Prepared on first use: the table exists only once migrations ran.
  let versionStatement: SQLite.Statement | undefined;
  const rawStatements = new Map<string, SQLite.Statement>();
  return {
    db,
    dialect: 'sqlite',
    prepare: (source) => sqlite.prepare(source),
    rawRows: (source, parameters) => {
      let statement = rawStatements.get(source);
      if (statement === undefined) {
        statement = sqlite.prepare(source).raw(true);
        if (rawStatements.size >= 200) rawStatements.clear();
        rawStatements.set(source, statement);
      }
      return statement.all(...parameters) as unknown[][];
    },
    readTeamVersion: (teamId) => {
      versionStatement ??= sqlite.prepare('select vuln_version from teams where id = ?').pluck();
      return Number(versionStatement.get(teamId) ?? 0);
    },
    description: `sqlite ${path}`,
    close: () => db.destroy(),
  };
}

/**
 * Kysely's SQLite driver prepares every query anew; this keeps the prepared statements of
 * recent SQL texts. better-sqlite3 runs a statement synchronously to completion, so reuse is
 * safe as long as nothing streams (nothing here uses Kysely's stream()).
 */
function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const statements = new Map<string, SQLite.Statement>();
  const prepare = (source: string): SQLite.Statement => {
    let statement = statements.get(source);
    if (statement === undefined) {
      statement = sqlite.prepare(source);
      if (statements.size >= 1000) statements.clear();
      statements.set(source, statement);
    }
    return statement;
  };
  return new Proxy(sqlite, {
    get(target, property) {
      if (property === 'prepare') return prepare;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const int8Oid = 20;
const numericOid = 1700;

async function openPostgres(url: string, options: OpenOptions): Promise<Database> {
  // The driver is loaded only by processes on PostgreSQL: the embedded store never needs it.
  const { default: pg } = await import('pg');
  // bigint columns hold epoch milliseconds and ids: far below 2^53, so numbers are exact.
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') => {
      if (oid === int8Oid || oid === numericOid) return (value: string) => Number(value);
      return pg.types.getTypeParser(oid, format);
    },
  };
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
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 20,
    types,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  await sql`select 1`.execute(db);
  const versions = new CoalescedRead(async (teamId) => {
    const result = await pool.query<{ vuln_version: number }>({ name: 'perimeter_team_version', text: 'select vuln_version from teams where id = $1', values: [Number(teamId)] });
    return Number(result.rows[0]?.vuln_version ?? 0);
  });
  const parsed = new URL(url);
  return {
    db,
    dialect: 'postgres',
    schema,
    // A named statement, parsed once per connection; concurrent requests share reads that
    // started after they arrived (CoalescedRead), so a burst costs two round trips, not fifty.
    readTeamVersion: (teamId) => versions.get(String(teamId)),
    description: `postgres ${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}${schema ? ` schema ${schema}` : ''}`,
    close: () => db.destroy(),
  };
}
