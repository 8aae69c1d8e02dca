// Renders the rows of a list page into wire JSON where they are read: in a reader thread of the
// embedded store (sqlite-read-worker.mjs), or on the main thread for PostgreSQL and transactions.
// Plain JavaScript, so the reader threads load it without the tsx loader; page-render.d.mts types
// it for the TypeScript side.
//
// A row is [...keys, ...head, document, ...tail]: the keys position the list (the last page
// row's keys become the cursor), the head and tail values are the row's changing fields, written
// in front of and behind its stored (or database-built) document, a JSON object. Materialising a few values per row instead of every
// column, and handing one string to the main thread instead of row objects, is what makes a
// page cheap: a structured clone of 100 wide rows costs more than the rest of a request.

const wireTimes = new Map();

/**
 * Wire form of a time, quoted: ISO 8601 UTC in whole seconds, as core/shared/time.ts toWireTime
 * writes it (which this file cannot import: reader threads load it without the TypeScript
 * loader). Memoised per second, as there: a page formats hundreds of times, most repeated.
 */
function wireTime(ms) {
  const second = Math.floor(Number(ms) / 1000);
  let text = wireTimes.get(second);
  if (text === undefined) {
    text = `"${new Date(second * 1000).toISOString().slice(0, 19)}Z"`;
    if (wireTimes.size >= 100_000) wireTimes.clear();
    wireTimes.set(second, text);
  }
  return text;
}

const kinds = {
  // Ids and other numbers written as strings need no escaping.
  string: (v) =>
    v === null || v === undefined ? 'null' : typeof v === 'number' ? `"${v}"` : JSON.stringify(String(v)),
  time: (v) => (v === null || v === undefined ? 'null' : wireTime(v)),
  bool: (v) => (v === null || v === undefined ? 'null' : v === true || v === 1 || v === '1' ? 'true' : 'false'),
  number: (v) => (v === null || v === undefined ? 'null' : String(Number(v))),
  json: (v) => (v === null || v === undefined ? 'null' : String(v)),
};

const compiled = new Map();

/** Room left around a page rendered as bytes: enough for any list's envelope (markers, a next URL with its filters). */
export const envelopeRoom = 4096;

/** A field list as [`"name":`, formatter] pairs. */
function fields(list) {
  return list.map(([name, kind]) => {
    const format = kinds[kind];
    if (format === undefined) throw new Error(`unknown field kind ${kind}`);
    return [`${JSON.stringify(name)}:`, format];
  });
}

/** The head and tail of a spec, compiled once per shape. */
function compile(spec) {
  const key = JSON.stringify([spec.head, spec.tail ?? []]);
  let shape = compiled.get(key);
  if (shape === undefined) {
    shape = { head: fields(spec.head), tail: fields(spec.tail ?? []) };
    if (compiled.size >= 100) compiled.clear();
    compiled.set(key, shape);
  }
  return shape;
}

/**
 * The pieces of the first `spec.limit` rows, in order, how many rows were read, the keys of the
 * last rendered row, and those keys again as `next` when more rows were read than rendered (the
 * next page starts after it).
 */
function pieces(rows, spec) {
  const { head, tail } = compile(spec);
  const keys = spec.keys;
  const documentAt = keys + head.length;
  const count = Math.min(rows.length, spec.limit);
  const parts = [];
  for (let r = 0; r < count; r++) {
    const row = rows[r];
    const document = String(row[documentAt]);
    const isEmpty = document.length <= 2;
    let text = r > 0 ? ',{' : '{';
    for (let f = 0; f < head.length; f++) text += (f > 0 ? ',' : '') + head[f][0] + head[f][1](row[keys + f]);
    if (head.length > 0 && !isEmpty) text += ',';
    let after = '';
    for (let f = 0; f < tail.length; f++) after += `,${tail[f][0]}${tail[f][1](row[documentAt + 1 + f])}`;
    // The document's fields go between its braces; a tail needs its closing brace cut off.
    if (isEmpty) parts.push(`${text}${head.length > 0 ? after : after.slice(1)}}`);
    else if (tail.length === 0) parts.push(text, document.slice(1));
    else parts.push(text, document.slice(1, -1), `${after}}`);
  }
  const last = count > 0 ? rows[count - 1].slice(0, keys) : undefined;
  return { parts, count: rows.length, last, next: rows.length > spec.limit ? last : undefined };
}

/** The page's items as comma-joined JSON text (see pieces). */
export function renderPage(rows, spec) {
  const { parts, ...page } = pieces(rows, spec);
  return { items: parts.join(''), ...page };
}

/**
 * The page's items as UTF-8 bytes (a reader thread hands them to the main thread): each piece is
 * encoded straight into the bytes, never joined into one string first, with `spec.room` bytes
 * left free before and after the items, where the receiver writes the envelope of the response
 * around them without copying the page (see withEnvelope).
 *
 * Given a `slot` (a part of a SharedArrayBuffer that the receiver lent for this page, see
 * read-pool.ts) and a page that fits, the bytes are written there and the answer says
 * where (`at`, `length`): nothing is allocated for the page on either side. Otherwise they go to
 * a buffer of their own (`items`), to be moved to the receiver.
 */
export function renderPageBytes(rows, spec, slot) {
  const { parts, ...page } = pieces(rows, spec);
  const room = spec.room ?? 0;
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part, 'utf8');
  if (slot !== undefined && room + length + room <= slot.size) {
    const bytes = Buffer.from(slot.buffer, slot.offset, room + length + room);
    let at = room;
    for (const part of parts) at += bytes.write(part, at, 'utf8');
    return { at: slot.offset + room, length, ...page };
  }
  const buffer = Buffer.allocUnsafeSlow(room + length + room);
  let at = room;
  for (const part of parts) at += buffer.write(part, at, 'utf8');
  return { items: new Uint8Array(buffer.buffer, room, length), ...page };
}

/** Views received with free room around their items (see withRoom), and how much. */
const rooms = new WeakMap();

/**
 * Declares that the items were rendered by renderPageBytes with `room` free bytes before and
 * after them, in memory this thread owns (a buffer moved to it, or a slot it lent): withEnvelope
 * may write there, once. Only the thread that received the bytes can say so; any other view is
 * never written around. A buffer of its own must be exactly items plus room (so a view of
 * Node's shared pool never qualifies).
 */
export function withRoom(items, room) {
  const start = items.byteOffset - room;
  const end = items.byteOffset + items.byteLength + room;
  const exact = start === 0 && end === items.buffer.byteLength;
  const lent = items.buffer instanceof SharedArrayBuffer && start >= 0 && end <= items.buffer.byteLength;
  if (exact || lent) rooms.set(items, room);
  return items;
}

/**
 * Bytes in lent memory (a slot of a reader's SharedArrayBuffer) and how that memory goes back:
 * once, when the response that carries them has been written or abandoned (see takeRelease).
 * Memory that stays lent until it is written is what spares the main thread a new buffer outside
 * its heap per page, whose churn kept V8's mark-compactor running under concurrent load.
 */
const leases = new WeakMap();

/** Declares `view` to be lent memory that `release` gives back (see leases). */
export function withLease(view, release) {
  leases.set(view, { release, claims: 0, takes: 0, returns: 0, released: false });
  return view;
}

/** Gives a lease's memory back, once. */
function giveBack(lease) {
  if (lease.released) return;
  lease.released = true;
  lease.release();
}

/** Gives the memory behind `view` back now (a copy of it was made, or it will not be sent). */
function releaseNow(view) {
  const lease = leases.get(view);
  if (lease === undefined) return;
  leases.delete(view);
  giveBack(lease);
}

/** Whether `view` is lent memory still to be given back. */
export function isLent(view) {
  return leases.has(view);
}

/**
 * The release of a response body in lent memory, taken by whoever writes it out: once per holder
 * (every request that claimed the body, or the one request it was built for), undefined past
 * that and for a body of its own. The writer calls it when the response is finished or closed;
 * the memory goes back when the last holder's release is called.
 */
export function takeRelease(body) {
  const lease = leases.get(body);
  if (lease === undefined || lease.released) return undefined;
  const holders = Math.max(1, lease.claims);
  if (lease.takes >= holders) return undefined;
  lease.takes += 1;
  let isDone = false;
  return () => {
    if (isDone) return;
    isDone = true;
    lease.returns += 1;
    if (lease.returns >= holders) giveBack(lease);
  };
}

/**
 * A body in lent memory as one holder may keep it: every request that shared one page build
 * holds the same lent bytes (the response is written from them, never written into), and the
 * memory goes back after the last of them is written (takeRelease). All holders of one build
 * claim it in the same turn of the event loop, before any response can be written, so the count
 * of holders is complete before the first release; a claim of memory already given back fails
 * loudly here (it would be another page's bytes). Copying the body for each further holder cost
 * the main thread a tenth of its time when many requests asked for the same pages at once.
 */
export function claimBody(body) {
  const lease = leases.get(body);
  if (lease === undefined) return body;
  if (lease.released) throw new Error('a page was given back before every request that shared it took it');
  lease.claims += 1;
  return body;
}

/** A body that outlives its response (a cache entry): a copy of lent memory, which is given back at once; any other body as it is. */
export function ownedBody(body) {
  if (!leases.has(body)) return body;
  // Not Buffer.from: from a view of shared memory V8 copies element by element, at half the
  // speed of set() (55 against 25 µs for a 191 KB page; 13 % of the main thread under load).
  const copy = Buffer.allocUnsafeSlow(body.length);
  copy.set(body);
  releaseNow(body);
  return copy;
}

/**
 * Keeps a rendered page in the page cache (anything with `accepts(size)` and `set(key, value)`)
 * and answers the body to send. A page in lent memory is copied into the cache, which outlives
 * any response, and the copy is sent; one the cache cannot keep (the cache is off, or the page
 * too big) is sent from the lent memory.
 */
export function cachePage(cache, key, page) {
  if (isLent(page) && !cache.accepts(page.length)) return page;
  const owned = ownedBody(page);
  cache.set(key, owned);
  return owned;
}

/**
 * A response body: `before`, the items and `after` as one buffer. Items declared with room
 * around them (withRoom) get the envelope written into that room: the page is not copied, and
 * lent memory stays lent to the body. Otherwise the parts are copied and lent items given back.
 */
export function withEnvelope(before, items, after) {
  if (typeof items === 'string') return textBody(before, items, after);
  const head = Buffer.byteLength(before);
  const tail = Buffer.byteLength(after);
  const room = rooms.get(items);
  rooms.delete(items);
  if (room === undefined || head > room || tail > room) {
    const body = Buffer.concat([Buffer.from(before), items, Buffer.from(after)]);
    releaseNow(items);
    return body;
  }
  const start = items.byteOffset - head;
  const end = items.byteOffset + items.byteLength + tail;
  const body = Buffer.from(items.buffer, start, end - start);
  body.write(before, 0, 'utf8');
  body.write(after, head + items.byteLength, 'utf8');
  const lease = leases.get(items);
  if (lease !== undefined) {
    leases.delete(items);
    leases.set(body, lease);
  }
  return body;
}

/** Bytes of one slot of page memory: a page of 100 vulnerabilities at their longest documents fits, with its envelope room. */
export const pageSlotSize = 256 * 1024;

/**
 * Page memory: a buffer (a SharedArrayBuffer for a store reader, see read-pool.ts; an
 * ArrayBuffer for this thread's own pages) cut into slots of pageSlotSize, each lent to one page
 * at a time and given back through its lease.
 */
export class PageSlab {
  constructor(buffer) {
    this.buffer = buffer;
    this.slots = Math.floor(buffer.byteLength / pageSlotSize);
    this.free = Array.from({ length: this.slots }, (_, i) => this.slots - 1 - i);
  }

  /** A free slot's number, or undefined when every slot is lent. */
  lend() {
    return this.free.pop();
  }

  /** A slot free again (its page was copied, failed or written out). */
  giveBack(slot) {
    this.free.push(slot);
  }

  /** Where a slot starts in the buffer. */
  offset(slot) {
    return slot * pageSlotSize;
  }

  /** `view` (in `slot`) as lent memory, whose release gives the slot back. */
  lease(view, slot) {
    return withLease(view, () => this.giveBack(slot));
  }

  /**
   * A page rendered as bytes (renderPageBytes' answer) for `slot` (undefined: none was lent), as
   * a page whose items have their room declared: in the slot, leased; in a buffer of their own,
   * with the slot given back at once.
   */
  received(slot, page, room) {
    const { at, length, items, ...rest } = page;
    if (items !== undefined) {
      if (slot !== undefined) this.giveBack(slot);
      return { ...rest, items: withRoom(items, room) };
    }
    return { ...rest, items: this.lease(withRoom(new Uint8Array(this.buffer, at, length), room), slot) };
  }

  /** Slots lent now. */
  get lent() {
    return this.slots - this.free.length;
  }
}

/** The main thread's page memory, 64 slots, allocated on first use (shared memory, like a reader's, so withRoom knows it). */
let mainSlab;

function mainPageMemory() {
  mainSlab ??= new PageSlab(new SharedArrayBuffer(pageSlotSize * 64));
  return mainSlab;
}

/**
 * renderPage for rows read on this thread (PostgreSQL's), its items written as bytes straight
 * into a slot of this thread's page memory with room for the envelope, and lent to the response
 * like a reader's slot: no joined string, no second copy into the body. A page too big for a
 * slot gets a buffer of its own; with every slot lent, the page is text (see textBody).
 */
export function renderPageLent(rows, spec) {
  const slab = mainPageMemory();
  const slot = slab.lend();
  if (slot === undefined) return renderPage(rows, spec);
  let page;
  try {
    page = renderPageBytes(rows, spec, { buffer: slab.buffer, offset: slab.offset(slot), size: pageSlotSize });
  } catch (error) {
    slab.giveBack(slot);
    throw error;
  }
  return slab.received(slot, page, spec.room ?? 0);
}

/**
 * A body of text items (pages rendered on this thread: PostgreSQL's, or read inside a
 * transaction) written into a slot of this thread's own page memory, lent to the response like a
 * reader's slot (see leases): as there, a new buffer per page would be memory outside V8's heap
 * whose churn keeps the mark-compactor running. Too big for a slot, or none free: a buffer of
 * its own.
 */
function textBody(before, items, after) {
  const most = (before.length + items.length + after.length) * 3;
  const length =
    most <= pageSlotSize ? undefined : Buffer.byteLength(before) + Buffer.byteLength(items) + Buffer.byteLength(after);
  if ((length ?? 0) > pageSlotSize) return Buffer.from(before + items + after);
  const slab = mainPageMemory();
  const slot = slab.lend();
  if (slot === undefined) return Buffer.from(before + items + after);
  const memory = Buffer.from(slab.buffer, slab.offset(slot), pageSlotSize);
  let at = memory.write(before, 0, 'utf8');
  at += memory.write(items, at, 'utf8');
  at += memory.write(after, at, 'utf8');
  return slab.lease(memory.subarray(0, at), slot);
}

/** Slots of the main thread's page memory lent to bodies not yet written out. */
export function mainSlotsLent() {
  return mainSlab?.lent ?? 0;
}

/** Runs of comma-joined items as one run: the run itself when there is one (bytes stay bytes), text when all are text. */
export function joinRuns(runs) {
  if (runs.length === 1) return runs[0];
  if (runs.every((run) => typeof run === 'string')) return runs.join(',');
  const parts = [];
  runs.forEach((run, i) => {
    if (i > 0) parts.push(comma);
    parts.push(typeof run === 'string' ? Buffer.from(run) : run);
  });
  const joined = Buffer.concat(parts);
  for (const run of runs) if (typeof run !== 'string') releaseNow(run);
  return joined;
}

const comma = Buffer.from(',');
