// The floor of a PostgreSQL-backed list page in Node, run as its own processes by pg-floor.ts:
// node:http in a cluster of worker processes, each with a pg pool, answering GET /<i> with page i
// of a fixed list of statements: the rows' stored `document` column joined into a JSON array. No
// routing, auth, cursor, validation or rendering of changing fields; the same statement text
// (named, so prepared once per connection) and the same pool settings as the service's store;
// concurrent requests for one page share its read.
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import pg from 'pg';

const spec = JSON.parse(readFileSync(process.env.PG_FLOOR_SPEC, 'utf8'));

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
  const pool = new pg.Pool({ connectionString: spec.databaseUrl, max: spec.poolSize, min: spec.poolSize, options: '-c max_parallel_workers_per_gather=0' });
  // Open every connection before the first request, as the store's pools do.
  await Promise.all(Array.from({ length: spec.poolSize }, () => pool.connect().then((c) => c.release())));
  const tail = '],"pagination":{"next":null}}';
  // Concurrent requests for one page share its read, as the service's single-flight does (the
  // floor shares any read in flight; the service only one that started after the request came).
  const inFlight = new Map();
  const read = (i) => {
    let body = inFlight.get(i);
    if (body === undefined) {
      const page = spec.pages[i];
      body = pool
        .query({ name: page.name, text: page.text, values: page.values })
        .then((result) => Buffer.from(`{"items":[${result.rows.slice(0, spec.limit).map((row) => row.document).join(',')}${tail}`))
        .finally(() => inFlight.delete(i));
      inFlight.set(i, body);
    }
    return body;
  };
  const server = createServer((request, response) => {
    request.resume();
    read(Number(request.url.slice(1)) % spec.pages.length).then(
      (body) => {
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) });
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
