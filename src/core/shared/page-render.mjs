// Renders the rows of a list page into wire JSON where they are read: in a reader thread of the
// embedded store (sqlite-read-worker.mjs), or on the main thread for PostgreSQL and transactions.
// Plain JavaScript, so the reader threads load it without the tsx loader; page-render.d.mts types
// it for the TypeScript side.
//
// A row is [...keys, ...head, document]: the keys position the list (the last page row's keys
// become the cursor), the head values are the row's changing fields, rendered in front of its
// stored static document, a JSON object. Materialising a few values per row instead of every
// column, and handing one string to the main thread instead of row objects, is what makes a
// page cheap: a structured clone of 100 wide rows costs more than the rest of a request.

/** Wire form of a time: ISO 8601 UTC in whole seconds, as core/shared/time.ts toWireTime writes it. */
function wireTime(ms) {
  const second = Math.floor(Number(ms) / 1000);
  return `"${new Date(second * 1000).toISOString().slice(0, 19)}Z"`;
}

const kinds = {
  // Ids and other numbers written as strings need no escaping.
  string: (v) => (v === null || v === undefined ? 'null' : typeof v === 'number' ? `"${v}"` : JSON.stringify(String(v))),
  time: (v) => (v === null || v === undefined ? 'null' : wireTime(v)),
  bool: (v) => (v === null || v === undefined ? 'null' : v === true || v === 1 || v === '1' ? 'true' : 'false'),
  number: (v) => (v === null || v === undefined ? 'null' : String(Number(v))),
  json: (v) => (v === null || v === undefined ? 'null' : String(v)),
};

const compiled = new Map();

/** Room left around a page rendered as bytes: enough for any list's envelope (markers, a next URL with its filters). */
export const envelopeRoom = 4096;

/** The head of a spec as [prefix, formatter] pairs: `{"name":` for the first field, `,"name":` after. */
function compile(spec) {
  const key = JSON.stringify(spec.head);
  let head = compiled.get(key);
  if (head === undefined) {
    head = spec.head.map(([name, kind], i) => {
      const format = kinds[kind];
      if (format === undefined) throw new Error(`unknown field kind ${kind}`);
      return [`${i === 0 ? '{' : ','}${JSON.stringify(name)}:`, format];
    });
    if (compiled.size >= 100) compiled.clear();
    compiled.set(key, head);
  }
  return head;
}

/**
 * The pieces of the first `spec.limit` rows, in order (heads and documents without the opening
 * brace they share), how many rows were read, and the keys of the last rendered row when more rows
 * were read than rendered (the next page starts after it).
 */
function pieces(rows, spec) {
  const head = compile(spec);
  const keys = spec.keys;
  const documentAt = keys + head.length;
  const count = Math.min(rows.length, spec.limit);
  const parts = [];
  for (let r = 0; r < count; r++) {
    const row = rows[r];
    const document = String(row[documentAt]);
    let text = r > 0 ? ',' : '';
    if (head.length === 0) {
      parts.push(text, document);
      continue;
    }
    for (let f = 0; f < head.length; f++) text += head[f][0] + head[f][1](row[keys + f]);
    if (document.length > 2) parts.push(`${text},`, document.slice(1));
    else parts.push(`${text}}`);
  }
  const next = rows.length > spec.limit && count > 0 ? rows[count - 1].slice(0, keys) : undefined;
  return { parts, count: rows.length, next };
}

/** The page's items as comma-joined JSON text (see pieces). */
export function renderPage(rows, spec) {
  const { parts, count, next } = pieces(rows, spec);
  return { items: parts.join(''), count, next };
}

/**
 * The page's items as UTF-8 bytes in a buffer of their own (a reader thread moves it to the main
 * thread): each piece is encoded straight into the buffer, never joined into one string first.
 * The buffer keeps `spec.room` bytes free before and after the items, where the receiver writes
 * the envelope of the response around them without copying the page (see withEnvelope).
 */
export function renderPageBytes(rows, spec) {
  const { parts, count, next } = pieces(rows, spec);
  const room = spec.room ?? 0;
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part, 'utf8');
  const buffer = Buffer.allocUnsafeSlow(room + length + room);
  let at = room;
  for (const part of parts) at += buffer.write(part, at, 'utf8');
  return { items: new Uint8Array(buffer.buffer, room, length), count, next };
}

/**
 * A response body: `before`, the items and `after` as one buffer. Items rendered with room
 * around them (renderPageBytes) get the envelope written into that room: the page is not copied.
 */
export function withEnvelope(before, items, after) {
  if (typeof items === 'string') return Buffer.from(before + items + after);
  const head = Buffer.byteLength(before);
  const tail = Buffer.byteLength(after);
  const start = items.byteOffset - head;
  const end = items.byteOffset + items.byteLength + tail;
  if (start < 0 || end > items.buffer.byteLength) return Buffer.concat([Buffer.from(before), items, Buffer.from(after)]);
  const body = Buffer.from(items.buffer, start, end - start);
  body.write(before, 0, 'utf8');
  body.write(after, head + items.byteLength, 'utf8');
  return body;
}
