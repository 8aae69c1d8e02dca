import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { withRoom, type PageSpec, type RenderedPage } from '../core/shared/page-render.mjs';

interface Pending {
  resolve(rows: unknown): void;
  reject(error: Error): void;
}

interface Reader {
  worker: Worker;
  /** Queries posted to this reader and not yet answered. */
  pending: Map<number, Pending>;
}

interface Answer {
  id: number;
  rows?: unknown[];
  page?: RenderedPage;
  error?: { message: string; code?: string };
}

const workerUrl = new URL('./sqlite-read-worker.mjs', import.meta.url);

/**
 * Read-only connections to the embedded store, one per worker thread. better-sqlite3 runs a
 * query synchronously, so on the main thread a page read of a cold working set holds every
 * other request; here it runs on another core while the event loop serves the rest. WAL lets
 * these readers run beside the one writer: each statement reads the last committed state at
 * the moment it starts, and a query is posted only once the caller's earlier writes returned,
 * so a read issued after a commit sees it.
 *
 * A query goes to the reader with the fewest queries in flight. A worker keeps the process
 * alive only while it has work (an idle pool never holds a command's exit).
 */
export class SqliteReadPool {
  private readonly readers: Reader[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly path: string,
    size: number,
    private readonly cacheKb: number,
  ) {
    for (let i = 0; i < size; i++) this.readers.push(this.spawn());
  }

  /** Rows of a read-only statement: objects, or arrays when `raw`. */
  query(sql: string, parameters: readonly unknown[], raw = false): Promise<unknown[]> {
    return this.post({ sql, parameters, raw }) as Promise<unknown[]>;
  }

  /** A list page of a read-only statement, rendered in the reader (see page-render.mjs); its bytes are moved here, with their room. */
  async page(sql: string, parameters: readonly unknown[], spec: PageSpec): Promise<RenderedPage> {
    const page = (await this.post({ sql, parameters, page: spec })) as RenderedPage & { items: Uint8Array };
    withRoom(page.items, spec.room ?? 0);
    return page;
  }

  private post(message: { sql: string; parameters: readonly unknown[]; raw?: boolean; page?: PageSpec }): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    let reader = this.readers[0]!;
    for (const candidate of this.readers) if (candidate.pending.size < reader.pending.size) reader = candidate;
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      if (reader.pending.size === 0) reader.worker.ref();
      reader.pending.set(id, { resolve, reject });
      reader.worker.postMessage({ id, ...message });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      this.readers.map(async (reader) => {
        const exited = new Promise<void>((resolve) => reader.worker.once('exit', () => resolve()));
        reader.worker.postMessage({ close: true });
        reader.worker.ref();
        await exited;
      }),
    );
  }

  private spawn(): Reader {
    const worker = new Worker(workerUrl, { workerData: { path: this.path, cacheKb: this.cacheKb } });
    const reader: Reader = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const waiting = reader.pending.get(answer.id);
      if (waiting === undefined) return;
      reader.pending.delete(answer.id);
      if (reader.pending.size === 0) worker.unref();
      if (answer.error !== undefined) waiting.reject(new SQLite.SqliteError(answer.error.message, answer.error.code ?? 'SQLITE_ERROR'));
      else waiting.resolve(answer.page ?? answer.rows ?? []);
    });
    const fail = (error: Error) => {
      for (const waiting of reader.pending.values()) waiting.reject(error);
      reader.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      fail(new Error(`a store reader stopped (exit code ${code})`));
      if (this.closed) return;
      // A reader that died (out of memory, say) is replaced; its queries failed above.
      const index = this.readers.indexOf(reader);
      if (index >= 0) this.readers[index] = this.spawn();
    });
    return reader;
  }
}
