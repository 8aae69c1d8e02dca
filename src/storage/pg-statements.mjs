// Named (prepared) statements for PostgreSQL reads (see StatementNames). Plain JavaScript, so
// the store's reader threads (pg-read-worker.mjs) load it without the tsx loader;
// pg-statements.d.mts types it for the TypeScript side.
import { createHash } from 'node:crypto';

/**
 * Which PostgreSQL reads run as named (prepared) statements. An unnamed statement is parsed and
 * planned on every execution: for a list page that is 0.4–0.5 ms of the backend's CPU against
 * 0.3–0.7 ms for running it (1M-row vulnerability list, measured with log_min_duration_statement),
 * paid on every request. A named statement is parsed once per connection, and PostgreSQL keeps
 * its plan (custom plans first, then a generic one where that costs no more).
 *
 * Only reads are named, only after the schema is settled (migrations ran), only texts seen
 * twice, at most `capacity` of them (each is kept by every pooled connection), and never a
 * `select *`: a prepared statement whose result columns change under it (a later migration run by
 * a newer process) fails with "cached plan must not change result type", and a text that fails
 * that way is run unnamed from then on.
 */
export class StatementNames {
  names = new Map();
  seen = new Set();
  refused = new Set();
  settled = false;

  constructor(capacity = 128) {
    this.capacity = capacity;
  }

  /** From now on the schema does not change in this process (called after migrations). */
  settle() {
    this.settled = true;
  }

  /** The name to run a text under, or undefined to run it unnamed. */
  nameOf(text) {
    const named = this.names.get(text);
    if (named !== undefined || !this.settled) return named;
    if (this.names.size >= this.capacity || this.refused.has(text) || !isPlainRead(text)) return undefined;
    if (!this.seen.has(text)) {
      if (this.seen.size >= 4 * this.capacity) this.seen.clear();
      this.seen.add(text);
      return undefined;
    }
    this.seen.delete(text);
    const name = `perimeter_q_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    this.names.set(text, name);
    return name;
  }

  /** A named text failed because its plan went stale: run it unnamed from now on. */
  refuse(text) {
    this.names.delete(text);
    this.refused.add(text);
  }

  get size() {
    return this.names.size;
  }
}

function isPlainRead(text) {
  return (
    /^\s*select\s/i.test(text) &&
    !/select\s+\*|\.\s*\*/i.test(text) &&
    !/\bfor\s+(update|share|no key update|key share)\b/i.test(text)
  );
}

/** PostgreSQL's "cached plan must not change result type" (feature_not_supported). */
function isStalePlan(error) {
  return error?.code === '0A000' && /cached plan/i.test(String(error?.message));
}

/**
 * Runs `text` on `client` (a pool or a pooled client) under its name when it has one, else
 * unnamed; after a stale plan the text is run once more, unnamed (a connection that keeps the
 * stale statement never runs it again: the name is not given out any more).
 */
export async function queryNamed(client, names, text, values, rowMode) {
  const name = names.nameOf(text);
  const config = { text, values, ...(rowMode === undefined ? {} : { rowMode }) };
  if (name === undefined) return client.query(config);
  try {
    return await client.query({ ...config, name });
  } catch (error) {
    if (!isStalePlan(error)) throw error;
    names.refuse(text);
    return client.query(config);
  }
}

const int8Oid = 20;
const numericOid = 1700;

/**
 * The type parsers of every connection of the store (the main pool's and the reader threads'):
 * bigint and numeric columns hold epoch milliseconds, ids and counts, far below 2^53, so they
 * are read as numbers; every other type as the driver reads it (`pg` is the driver's module).
 */
export function storeTypes(pg) {
  return {
    getTypeParser: (oid, format) => {
      if (oid === int8Oid || oid === numericOid) return (value) => Number(value);
      return pg.types.getTypeParser(oid, format);
    },
  };
}

/**
 * The connection settings of every connection of the store (the main pool's and the reader
 * threads'): the URL, and its session `options` with the schema when the store has its own and
 * no parallel query. The API's queries are short index reads and counts run by many requests at
 * once; a parallel plan starts worker processes per query, which costs more than it saves when
 * the cores are already busy with other requests (a count of 168,000 index entries at 1M rows:
 * 19 ms serial against 58 ms with two workers on the 2-core development machine, and every
 * status change made the list's next count pay it again). `options` already in the URL come
 * first (a later `-c` wins); the driver would let the URL's replace ours, so they move here.
 */
export function connectionSettings(url, searchPath) {
  let connectionString = url;
  let fromUrl = [];
  try {
    const parsed = new URL(url);
    fromUrl = parsed.searchParams.getAll('options');
    if (fromUrl.length > 0) {
      parsed.searchParams.delete('options');
      connectionString = parsed.toString();
    }
  } catch {
    // Not a URL the WHATWG parser reads: the driver reads it as it is, with our options beside.
  }
  const own = [
    '-c max_parallel_workers_per_gather=0',
    ...(searchPath === undefined ? [] : [`-c search_path=${searchPath}`]),
  ];
  return { connectionString, options: [...fromUrl, ...own].join(' ') };
}

/**
 * The settings of every pool of the store (the main pool and each reader thread's): the
 * connection settings above and `size` connections, each kept once opened (the driver closes
 * idle ones after 10 s by default): a burst after a quiet spell would otherwise start backends,
 * warm their caches and prepare its statements again while it is being served (/ips at 50
 * connections right after 20 s of one: p99 35–46 ms closing idle connections, 22–40 ms keeping
 * them, six rounds each).
 */
export function poolSettings(url, searchPath, size) {
  return { ...connectionSettings(url, searchPath), max: size, min: size };
}
