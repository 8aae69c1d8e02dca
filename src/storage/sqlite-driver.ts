import type {
  CompiledQuery as CompiledQueryType,
  DatabaseConnection,
  Driver,
  QueryCompiler,
  QueryResult,
} from 'kysely';
import type SQLite from 'better-sqlite3';
import { CompiledQuery, SqliteDialect } from './kysely.ts';
import type { SqliteReadPool } from './sqlite-read-pool.ts';

/** Prepares (and caches) a statement on the writer connection. */
export type Prepare = (sql: string) => SQLite.Statement;

/**
 * Kysely's SQLite dialect over one writer connection and, when given, a pool of readers in
 * worker threads. A plain SELECT outside a transaction goes to the pool (off the event loop);
 * everything else runs on the writer: writes, DDL, pragmas, and every query of a transaction,
 * which must see its own uncommitted changes. The writer is held by one transaction or one
 * statement at a time (as Kysely's own driver does), so a statement outside a transaction
 * never joins another flow's open transaction nor reads its uncommitted rows.
 */
export class PooledSqliteDialect extends SqliteDialect {
  constructor(
    private readonly writer: SQLite.Database,
    private readonly prepare: Prepare,
    private readonly pool: SqliteReadPool | undefined,
  ) {
    super({ database: writer });
  }

  override createDriver(): Driver {
    return new PooledSqliteDriver(this.writer, this.prepare, this.pool);
  }
}

/** Hands the writer to one holder at a time, in the order they asked. */
class WriterLock {
  private tail: Promise<void> = Promise.resolve();

  async acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    return release;
  }
}

const readOnlyText = /^\s*(select|with)\b/i;

class PooledSqliteDriver implements Driver {
  private readonly lock = new WriterLock();

  constructor(
    private readonly writer: SQLite.Database,
    private readonly prepare: Prepare,
    private readonly pool: SqliteReadPool | undefined,
  ) {}

  async init(): Promise<void> {}

  /** A connection costs nothing until it runs something: the lock is taken per statement or per transaction. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return new PooledConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const pooled = connection as PooledConnection;
    pooled.release = await this.lock.acquire();
    try {
      this.run(CompiledQuery.raw('begin'));
    } catch (error) {
      this.endTransaction(pooled);
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      this.run(CompiledQuery.raw('commit'));
    } finally {
      // A failed commit leaves the transaction open in SQLite only for errors Kysely answers
      // with a rollback, which it sends on this same connection before releasing it.
      if (!this.writer.inTransaction) this.endTransaction(connection as PooledConnection);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      if (this.writer.inTransaction) this.run(CompiledQuery.raw('rollback'));
    } finally {
      this.endTransaction(connection as PooledConnection);
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.savepointCommand(connection, `savepoint ${name}`, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.savepointCommand(connection, `rollback to ${name}`, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.savepointCommand(connection, `release ${name}`, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // Kysely releases after commit or rollback; a connection still holding the writer here
    // would hold it forever.
    this.endTransaction(connection as PooledConnection);
  }

  async destroy(): Promise<void> {
    await this.pool?.close();
    this.writer.close();
  }

  /** Runs a query of this connection: in its transaction, on the pool, or alone on the writer. */
  async execute<R>(connection: PooledConnection, query: CompiledQueryType): Promise<QueryResult<R>> {
    if (connection.release !== undefined) return this.run(query);
    if (this.pool !== undefined && this.isPlainRead(query))
      return { rows: (await this.pool.query(query.sql, query.parameters)) as R[] };
    const release = await this.lock.acquire();
    try {
      return this.run(query);
    } finally {
      release();
    }
  }

  private isPlainRead(query: CompiledQueryType): boolean {
    if (query.query.kind === 'SelectQueryNode') return true;
    // Text queries (sql`…`): a SELECT (or WITH … SELECT) that SQLite itself says writes nothing.
    if (!readOnlyText.test(query.sql)) return false;
    const statement = this.prepare(query.sql);
    return statement.reader && statement.readonly;
  }

  private run<R>(query: CompiledQueryType): QueryResult<R> {
    const statement = this.prepare(query.sql);
    if (statement.reader) return { rows: statement.all(query.parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(query.parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  private async savepointCommand(
    connection: DatabaseConnection,
    text: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    void compile;
    await this.execute(connection as PooledConnection, CompiledQuery.raw(text));
  }

  private endTransaction(connection: PooledConnection): void {
    const release = connection.release;
    connection.release = undefined;
    release?.();
  }
}

class PooledConnection implements DatabaseConnection {
  /** Set while this connection holds the writer for a transaction. */
  release: (() => void) | undefined;

  constructor(private readonly driver: PooledSqliteDriver) {}

  executeQuery<R>(query: CompiledQueryType): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, query);
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on the embedded store');
  }
}
