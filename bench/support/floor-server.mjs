// The floor of a list page in Node, run as its own processes by floor.ts: node:http in a cluster
// of worker processes, each with its own connections to the store (a pg pool, or one read-only
// better-sqlite3 connection), answering GET /<i> with page i of a fixed list of statements: the
// rows' stored `document` column joined into a JSON array. No routing, auth, cursor, validation
// or rendering of changing fields; the same statement text and the same connection settings as
// the service's store (PostgreSQL: named, so prepared once per connection).
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const spec = JSON.parse(readFileSync(process.env.FLOOR_SPEC, 'utf8'));
const tail = '],"pagination":{"next":null}}';
const bodyOf = (rows) =>
  Buffer.from(
    `{"items":[${rows
      .slice(0, spec.limit)
      .map((row) => row.document)
      .join(',')}${tail}`,
  );

/** A page reader over PostgreSQL: concurrent requests for one page share its read, as the service's single-flight does. */
async function postgresReader(store) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: store.databaseUrl,
    max: store.poolSize,
    min: store.poolSize,
    options: '-c max_parallel_workers_per_gather=0',
  });
  // Open every connection before the first request, as the store's pools do.
  await Promise.all(Array.from({ length: store.poolSize }, () => pool.connect().then((c) => c.release())));
  const inFlight = new Map();
  return (i) => {
    let body = inFlight.get(i);
    if (body === undefined) {
      const page = spec.pages[i];
      body = pool
        .query({ name: page.name, text: page.text, values: page.values })
        .then((result) => bodyOf(result.rows))
        .finally(() => inFlight.delete(i));
      inFlight.set(i, body);
    }
    return body;
  };
}

/** A page reader over the embedded store: one read-only connection per process, set as the store's reader threads set theirs; a read runs to completion. */
async function sqliteReader(store) {
  const { default: SQLite } = await import('better-sqlite3');
  const { configureReader } = await import('../../src/storage/sqlite-reader-settings.mjs');
  const db = new SQLite(store.path, { readonly: true, fileMustExist: true });
  configureReader(db, store.cacheKb);
  const statements = new Map();
  return async (i) => {
    const page = spec.pages[i];
    let statement = statements.get(page.text);
    if (statement === undefined) statements.set(page.text, (statement = db.prepare(page.text)));
    return bodyOf(statement.all(page.values));
  };
}

if (cluster.isPrimary) {
  for (let i = 0; i < spec.processes; i++) cluster.fork();
  let ready = 0;
  cluster.on('message', (_worker, message) => {
    if (message === 'ready' && ++ready === spec.processes) process.send?.('ready');
  });
  cluster.on('exit', (_worker, code) => {
    if (code !== 0) process.exit(code ?? 1);
  });
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
} else {
  const read = spec.store.kind === 'postgres' ? await postgresReader(spec.store) : await sqliteReader(spec.store);
  const server = createServer((request, response) => {
    request.resume();
    read(Number(request.url.slice(1)) % spec.pages.length).then(
      (body) => {
        response.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(body.length),
        });
        response.end(body);
      },
      (error) => {
        response.writeHead(500);
        response.end(String(error));
      },
    );
  });
  server.listen(spec.port, '127.0.0.1', () => process.send?.('ready'));
}
