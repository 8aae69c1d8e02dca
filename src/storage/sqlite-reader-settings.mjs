// Settings of a read-only connection to the embedded store: the reader threads' (sqlite-read-
// worker.mjs) and the benchmarks' floor, which must read the file exactly as they do. Plain
// JavaScript: a worker does not inherit the tsx loader of the main thread.

/**
 * Waits up to 5 s for a lock, keeps a page cache of `cacheKb` KiB, and reads pages with read(2)
 * into it rather than through a mapping of the file: every commit of the writer (in WAL mode)
 * makes a reader drop its cache at its next statement, and the first statement after that was
 * much slower through the mapping (a count over 168,000 index entries 14–16 ms against 6 ms with
 * read(2), a page of 101 rows 0.80 against 0.57 ms; the same once warm). The kernel's page
 * cache holds the file either way.
 *
 * @param {import('better-sqlite3').Database} db
 * @param {number} cacheKb
 */
export function configureReader(db, cacheKb) {
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = -${cacheKb}`);
  db.pragma('mmap_size = 0');
}
