// One read-only connection to the embedded store, in a worker thread (see sqlite-read-pool.ts).
// Plain JavaScript: a worker does not inherit the tsx loader of the main thread, and this file
// needs nothing but better-sqlite3 and plain modules beside it.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { renderPageBytes } from '../shared/page-render.mjs';
import { configureReader } from './sqlite-reader-settings.mjs';

const { path, cacheKb, slab, slotSize } = workerData;
const db = new SQLite(path, { readonly: true, fileMustExist: true });
configureReader(db, cacheKb);

const statements = new Map();

function statement(sql, raw) {
  const key = raw ? `r${sql}` : `o${sql}`;
  let prepared = statements.get(key);
  if (prepared === undefined) {
    prepared = db.prepare(sql);
    if (!prepared.reader || !prepared.readonly)
      throw Object.assign(new Error('the read pool runs read-only queries only'), { code: 'PERIMETER_NOT_READ_ONLY' });
    if (raw) prepared.raw(true);
    if (statements.size >= 1000) statements.clear();
    statements.set(key, prepared);
  }
  return prepared;
}

parentPort.on('message', (message) => {
  if (message.close) {
    db.close();
    parentPort.close();
    return;
  }
  const { id, sql, parameters, raw, page, slot } = message;
  try {
    // Each statement runs to completion in its own read transaction: it sees every commit made
    // before the message was posted (the main thread posts only after a write has returned).
    // A page is rendered here, so the main thread receives its items as UTF-8 bytes instead of
    // row objects: written into the slot of the shared slab it lent for this query, or (no slot
    // free, or too big for one) in a buffer of their own, moved (not copied).
    if (page !== undefined) {
      const lent = slot === undefined ? undefined : { buffer: slab, offset: slot * slotSize, size: slotSize };
      const rendered = renderPageBytes(statement(sql, true).all(parameters), page, lent);
      if (rendered.items === undefined) parentPort.postMessage({ id, page: rendered });
      else parentPort.postMessage({ id, page: rendered }, [rendered.items.buffer]);
    } else parentPort.postMessage({ id, rows: statement(sql, raw).all(parameters) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error?.message ?? error), code: error?.code } });
  }
});
