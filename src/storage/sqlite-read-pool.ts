import SQLite from 'better-sqlite3';
import { ReadPool } from './read-pool.ts';

export { pageSlots } from './read-pool.ts';

/**
 * Read-only connections to the embedded store, one per worker thread (read-pool.ts).
 * better-sqlite3 runs a query synchronously, so on the main thread a page read of a cold working
 * set holds every other request; here it runs on another core while the event loop serves the
 * rest. WAL lets these readers run beside the one writer: each statement reads the last
 * committed state at the moment it starts, and a query is posted only once the caller's earlier
 * writes returned, so a read issued after a commit sees it.
 */
export class SqliteReadPool extends ReadPool {
  constructor(path: string, size: number, cacheKb: number) {
    super(
      {
        workerUrl: new URL('./sqlite-read-worker.mjs', import.meta.url),
        workerData: (slab, slotSize) => ({ path, cacheKb, slab, slotSize }),
        error: (failure) => new SQLite.SqliteError(failure.message, failure.code ?? 'SQLITE_ERROR'),
      },
      size,
    );
  }

  /** Rows of a read-only statement: objects, or arrays when `raw`. */
  query(sql: string, parameters: readonly unknown[], raw = false): Promise<unknown[]> {
    return this.post({ sql, parameters, raw }) as Promise<unknown[]>;
  }
}
