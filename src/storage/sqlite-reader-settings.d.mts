import type { Database } from 'better-sqlite3';

/** Settings of a read-only connection to the embedded store (see sqlite-reader-settings.mjs). */
export function configureReader(db: Database, cacheKb: number): void;
