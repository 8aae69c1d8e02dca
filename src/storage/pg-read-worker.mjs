// Connections to PostgreSQL in a worker thread, for list pages (see read-pool.ts and
// database.ts): the query runs as a named statement once seen twice (pg-statements.mjs), the
// driver parses its rows here and the page is rendered here, so the main thread receives the
// page's bytes instead of parsing and rendering 101 rows per request. Plain JavaScript: a worker
// does not inherit the tsx loader of the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { renderPageBytes } from '../shared/page-render.mjs';
import { poolSettings, queryNamed, StatementNames, storeTypes } from './pg-statements.mjs';

const { url, connections, searchPath, slab, slotSize } = workerData;
const pool = new pg.Pool({ ...poolSettings(url, searchPath, connections), types: storeTypes(pg) });
// A connection that breaks is dropped from the pool; its query fails and the next one reconnects.
pool.on('error', () => undefined);
// Every connection is opened now, while the process starts, not by the first pages it serves (a
// backend to start and authenticate); the pool keeps them. One that fails to open here is
// opened again by the first query that needs it, which then reports the failure.
for (let i = 0; i < connections; i++)
  void pool.connect().then(
    (client) => client.release(),
    () => undefined,
  );
// Started once migrations ran (database.ts settle): the schema is final for this process.
const names = new StatementNames();
names.settle();

parentPort.on('message', (message) => {
  if (message.close) {
    void pool.end().finally(() => parentPort.close());
    return;
  }
  void answer(message);
});

async function answer({ id, sql, parameters, page, slot }) {
  try {
    const { rows } = await queryNamed(pool, names, sql, parameters, 'array');
    const lent = slot === undefined ? undefined : { buffer: slab, offset: slot * slotSize, size: slotSize };
    const rendered = renderPageBytes(rows, page, lent);
    if (rendered.items === undefined) parentPort.postMessage({ id, page: rendered });
    else parentPort.postMessage({ id, page: rendered }, [rendered.items.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error?.message ?? error), code: error?.code } });
  }
}
