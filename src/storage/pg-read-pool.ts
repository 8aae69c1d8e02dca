import { ReadPool } from './read-pool.ts';

/** Where the reader threads connect and how (see PgReadPool). */
export interface PgReaderOptions {
  url: string;
  /** Connections of each reader thread. */
  connections: number;
  /** The store's schema, when it is not the server's search path. */
  searchPath: string | undefined;
}

/**
 * Connections to PostgreSQL in worker threads, for list pages (read-pool.ts, pg-read-worker.mjs).
 * On the main thread a page cost the event loop the driver's parse of 101 rows and their
 * rendering, with every other request waiting behind it; here that runs on the other core. A
 * reader's connections see what committed before the query was posted, as the main pool's do.
 */
export class PgReadPool extends ReadPool {
  constructor(options: PgReaderOptions, size: number) {
    super(
      {
        workerUrl: new URL('./pg-read-worker.mjs', import.meta.url),
        workerData: (slab, slotSize) => ({ ...options, slab, slotSize }),
        error: (failure) =>
          Object.assign(new Error(failure.message), failure.code === undefined ? {} : { code: failure.code }),
      },
      size,
    );
  }
}
