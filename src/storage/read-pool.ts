import { Worker } from 'node:worker_threads';
import {
  PageSlab,
  pageSlotSize,
  type PageSpec,
  type RenderedBytes,
  type RenderedPage,
} from '../shared/page-render.mjs';

interface Pending {
  resolve(rows: unknown): void;
  reject(error: Error): void;
}

interface Reader {
  worker: Worker;
  /** Queries posted to this reader and not yet answered. */
  pending: Map<number, Pending>;
  /** The memory this reader writes pages into, lent one slot per page query (see SqliteReadPool). */
  slab: PageSlab<SharedArrayBuffer>;
  /** Set while the pool closes: called once the last query in flight is answered. */
  drained?: (() => void) | undefined;
}

/** How long a closing pool waits for the queries in flight to be answered before it stops its readers anyway. */
export const drainTimeoutMs = 10_000;

interface Answer {
  id: number;
  rows?: unknown[];
  page?: RenderedBytes;
  error?: { message: string; code?: string };
}

/** Slots per reader: pages in flight (read, or being written to a client) before pages fall back to buffers of their own. */
export const pageSlots = 32;

/** What a reader thread is started with and how its errors come back (see ReadPool). */
export interface ReaderKind {
  /** The worker module: answers { id, sql, parameters, page, slot } messages (the SQLite reader also plain reads: { id, sql, parameters, raw }), { close: true } ends it. */
  workerUrl: URL;
  /** Its workerData, given the slab it renders pages into. */
  workerData(slab: SharedArrayBuffer, slotSize: number): Record<string, unknown>;
  /** The error a failed query rejects with, from the worker's { message, code }. */
  error(failure: { message: string; code?: string }): Error;
}

/**
 * Read connections in worker threads, for the reads a store serves most (list pages): the query,
 * the driver's parse of its rows and the rendering of the page run there, while the event loop
 * serves the rest. A query goes to the reader with the fewest queries in flight. A worker keeps
 * the process alive only while it has work (an idle pool never holds a command's exit).
 *
 * Pages come back in lent memory: each reader has a slab (a SharedArrayBuffer of pageSlots slots)
 * and a page query lends it a free slot, which the reader renders the page into; the main thread
 * reads it in place and writes the response from it, and the slot is free again once that
 * response is written or abandoned (page-render.mjs: leases). A new buffer per page instead,
 * moved from the reader, is memory outside V8's heap that V8 counts against its old-generation
 * limit until the next mark-compact: at a few thousand pages a second under concurrent load
 * that started a mark-compact every 100-150 ms, 10-20 % of the main thread. A page too big for a
 * slot, or read while every slot is lent, still comes in a buffer of its own.
 */
export class ReadPool {
  private readonly readers: Reader[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly kind: ReaderKind,
    size: number,
  ) {
    for (let i = 0; i < size; i++) this.readers.push(this.spawn());
  }
  /**
   * A list page of a read-only statement, rendered in the reader (see page-render.mjs): its items
   * in a slot lent to the reader (given back when the response carrying them is written, see
   * withLease) or in a buffer moved here; with their room either way.
   */
  async page(sql: string, parameters: readonly unknown[], spec: PageSpec): Promise<RenderedPage> {
    const reader = this.pick();
    if (reader === undefined) throw new Error('the store is closed');
    const slot = reader.slab.lend();
    let answer: RenderedBytes;
    try {
      answer = (await this.post({ sql, parameters, page: spec, slot }, reader)) as RenderedBytes;
    } catch (error) {
      if (slot !== undefined) reader.slab.giveBack(slot);
      throw error;
    }
    return reader.slab.received(slot, answer, spec.room ?? 0);
  }

  /** Slots lent to pages whose responses are not written yet (0 when every page went out). */
  slotsLent(): number {
    let lent = 0;
    for (const reader of this.readers) lent += reader.slab.lent;
    return lent;
  }

  /** The reader with the fewest queries in flight, of those the one with the most free slots (undefined once closed). */
  private pick(): Reader | undefined {
    if (this.closed) return undefined;
    let reader = this.readers[0]!;
    for (const candidate of this.readers) {
      const fewer = candidate.pending.size - reader.pending.size;
      if (fewer < 0 || (fewer === 0 && candidate.slab.lent < reader.slab.lent)) reader = candidate;
    }
    return reader;
  }

  protected post(
    message: { sql: string; parameters: readonly unknown[]; raw?: boolean; page?: PageSpec; slot?: number | undefined },
    reader = this.pick(),
  ): Promise<unknown> {
    if (this.closed || reader === undefined) return Promise.reject(new Error('the store is closed'));
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      if (reader.pending.size === 0) reader.worker.ref();
      reader.pending.set(id, { resolve, reject });
      reader.worker.postMessage({ id, ...message });
    });
  }

  /**
   * Stops the readers: no query is taken from now on, and the queries in flight are answered
   * first (a request still being served when the process stops gets its page), for at most
   * drainTimeoutMs; whatever is still unanswered then fails.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      this.readers.map(async (reader) => {
        if (reader.pending.size > 0) {
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            reader.drained = resolve;
            timer = setTimeout(resolve, drainTimeoutMs);
          });
          clearTimeout(timer);
        }
        const exited = new Promise<void>((resolve) => reader.worker.once('exit', () => resolve()));
        reader.worker.postMessage({ close: true });
        reader.worker.ref();
        await exited;
      }),
    );
  }

  private spawn(): Reader {
    // A replaced reader gets a new slab: pages still lent from the old one stay valid until written.
    const slab = new PageSlab(new SharedArrayBuffer(pageSlotSize * pageSlots));
    const worker = new Worker(this.kind.workerUrl, { workerData: this.kind.workerData(slab.buffer, pageSlotSize) });
    const reader: Reader = { worker, pending: new Map(), slab };
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const waiting = reader.pending.get(answer.id);
      if (waiting === undefined) return;
      reader.pending.delete(answer.id);
      if (reader.pending.size === 0) {
        worker.unref();
        reader.drained?.();
      }
      if (answer.error !== undefined) waiting.reject(this.kind.error(answer.error));
      else waiting.resolve(answer.page ?? answer.rows ?? []);
    });
    const fail = (error: Error) => {
      for (const waiting of reader.pending.values()) waiting.reject(error);
      reader.pending.clear();
      reader.drained?.();
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
