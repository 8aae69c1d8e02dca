import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  claimBody,
  isLent,
  joinRuns,
  mainSlotsLent,
  ownedBody,
  renderPage,
  renderPageBytes,
  renderPageLent,
  takeRelease,
  withEnvelope,
  withLease,
  withRoom,
  type PageSpec,
} from './page-render.mjs';

const spec: PageSpec = {
  keys: 2,
  head: [
    ['id', 'string'],
    ['active', 'bool'],
    ['disappeared_at', 'time'],
  ],
  limit: 2,
};
const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

/** Wire form of a time as core/shared/time.ts writes it (shared/ imports nothing of the core): ISO 8601 UTC, whole seconds. */
const toWireTime = (at: Date | number) => `${new Date(at).toISOString().slice(0, 19)}Z`;

describe('page rendering (page-render.mjs)', () => {
  it('writes the head fields in front of each document and joins the first `limit` rows', () => {
    const rows = [
      [at, 7, 7, 1, null, '{"name":"a \\"quoted\\" one","n":1}'],
      [at + 1, 9, 9, 0, at, '{"name":"b"}'],
      [at + 2, 11, 11, 1, null, '{"name":"c"}'],
    ];
    const page = renderPage(rows, spec);
    assert.equal(page.count, 3);
    assert.deepEqual(page.next, [at + 1, 9], 'more rows than the page: the keys of its last item');
    assert.deepEqual(JSON.parse(`[${page.items}]`), [
      { id: '7', active: true, disappeared_at: null, name: 'a "quoted" one', n: 1 },
      { id: '9', active: false, disappeared_at: toWireTime(at), name: 'b' },
    ]);
    assert.equal(toWireTime(at), '2026-01-02T03:04:05Z', 'whole seconds, as every wire time');
  });

  it('tells the last page by no next, and renders an empty page as no items', () => {
    const last = renderPage([[at, 1, 1, true, null, '{"x":1}']], spec);
    assert.equal(last.next, undefined);
    assert.deepEqual(JSON.parse(`[${last.items}]`), [{ id: '1', active: true, disappeared_at: null, x: 1 }]);
    assert.deepEqual(renderPage([], spec), { items: '', count: 0, last: undefined, next: undefined });
  });

  it('renders every kind, nulls as null, strings escaped, and an empty document without a dangling comma', () => {
    const all: PageSpec = {
      keys: 0,
      head: [
        ['s', 'string'],
        ['t', 'time'],
        ['b', 'bool'],
        ['n', 'number'],
        ['j', 'json'],
        ['z', 'string'],
      ],
      limit: 10,
    };
    const page = renderPage([['line\nbreak "and" \\ back', at, 0, 42, '["x",{"y":null}]', null, '{}']], all);
    assert.deepEqual(JSON.parse(`[${page.items}]`), [
      { s: 'line\nbreak "and" \\ back', t: toWireTime(at), b: false, n: 42, j: ['x', { y: null }], z: null },
    ]);
  });

  it('writes tail fields behind the document, with or without a head, empty documents included', () => {
    const tailOnly: PageSpec = {
      keys: 1,
      head: [],
      tail: [
        ['created', 'time'],
        ['n', 'number'],
      ],
      limit: 5,
    };
    const page = renderPage(
      [
        [1, '{"a":1}', at, 3],
        [2, '{}', at, 4],
      ],
      tailOnly,
    );
    assert.equal(page.items, `{"a":1,"created":"${toWireTime(at)}","n":3},{"created":"${toWireTime(at)}","n":4}`);
    const both: PageSpec = { keys: 0, head: [['h', 'bool']], tail: [['t', 'string']], limit: 5 };
    assert.deepEqual(
      JSON.parse(
        `[${
          renderPage(
            [
              [1, '{"a":[1,{"b":2}]}', 'x'],
              [0, '{}', null],
            ],
            both,
          ).items
        }]`,
      ),
      [
        { h: true, a: [1, { b: 2 }], t: 'x' },
        { h: false, t: null },
      ],
    );
  });

  it('passes documents through as they are when there is no head', () => {
    const page = renderPage([['{"a":1}'], ['{"b":2}']], { keys: 0, head: [], limit: 5 });
    assert.equal(page.items, '{"a":1},{"b":2}');
  });

  it('renders the same page as UTF-8 bytes, whatever the characters', () => {
    const rows = [
      [at, 1, 1, 1, null, '{"name":"ünïcødé ✓ 𝄞 \u2028"}'],
      [at, 2, 2, 0, at, '{"name":"plain"}'],
      [at, 3, 3, 1, null, '{}'],
    ];
    const text = renderPage(rows, spec);
    const bytes = renderPageBytes(rows, spec);
    assert.equal(Buffer.from(bytes.items).toString('utf8'), text.items);
    assert.equal(bytes.items.byteLength, Buffer.byteLength(text.items));
    assert.deepEqual(bytes.next, text.next);
    assert.equal(bytes.count, text.count);
  });

  it('writes the envelope into the room around bytes without copying them, and copies when there is no room', () => {
    const rows = [[at, 1, 1, 1, null, '{"x":"é"}']];
    const roomy = renderPageBytes(rows, { ...spec, room: 64 });
    const unclaimed = withEnvelope('{"items":[', roomy.items, '],"next":"ü"}');
    assert.notEqual(unclaimed.buffer, roomy.items.buffer, 'a buffer nobody declared its own is never written around');
    const body = withEnvelope('{"items":[', withRoom(roomy.items, 64), '],"next":"ü"}');
    assert.equal(body.buffer, roomy.items.buffer, 'the same memory');
    assert.deepEqual(JSON.parse(body.toString()), {
      items: [{ id: '1', active: true, disappeared_at: null, x: 'é' }],
      next: 'ü',
    });
    const tight = renderPageBytes(rows, { ...spec, room: 4 });
    const copied = withEnvelope('{"items":[', withRoom(tight.items, 4), '],"next":"ü"}');
    assert.notEqual(copied.buffer, tight.items.buffer);
    assert.equal(copied.toString(), body.toString());
    assert.equal(
      withEnvelope('[', renderPage(rows, spec).items, ']').toString(),
      `[${body.toString().slice(10, -13)}]`,
    );
    // A small buffer of Node's shared pool: the bytes before it belong to other buffers, never written.
    Buffer.from('x'.repeat(32));
    const pooled = Buffer.from('{"a":1}');
    const neighbour = () => Buffer.from(pooled.buffer, pooled.byteOffset - 16, 16).toString('hex');
    const was = neighbour();
    assert.equal(withEnvelope('[', withRoom(pooled, 0), ']').toString(), '[{"a":1}]');
    assert.equal(neighbour(), was);
  });

  it('renders into a lent slot when the page fits, else into a buffer of its own', () => {
    const rows = [[at, 1, 1, 1, null, '{"x":"é"}']];
    const slab = new SharedArrayBuffer(1024);
    const lentSlot = { buffer: slab, offset: 512, size: 512 };
    const inSlot = renderPageBytes(rows, { ...spec, room: 64 }, lentSlot);
    assert.equal(inSlot.items, undefined);
    assert.equal(inSlot.at, 512 + 64, 'after the room, inside the slot');
    const view = new Uint8Array(slab, inSlot.at, inSlot.length);
    assert.equal(Buffer.from(view).toString(), renderPage(rows, spec).items);
    assert.equal(inSlot.count, 1);
    const tooBig = renderPageBytes(rows, { ...spec, room: 64 }, { buffer: slab, offset: 0, size: 100 });
    assert.equal(tooBig.at, undefined);
    assert.ok(tooBig.items instanceof Uint8Array && !(tooBig.items.buffer instanceof SharedArrayBuffer));
    assert.equal(Buffer.from(tooBig.items).toString(), renderPage(rows, spec).items);
    // Room is only declared inside the slab's bounds.
    assert.equal(
      withEnvelope('[', withRoom(new Uint8Array(slab, 2, 10), 4), ']').buffer instanceof SharedArrayBuffer,
      false,
      'no room before the view: copied',
    );
  });

  it('keeps lent memory lent from the page to its body, and gives it back exactly once, when the body is written', () => {
    const slab = new SharedArrayBuffer(256);
    const released: string[] = [];
    const lentPage = (name: string) =>
      withLease(withRoom(new Uint8Array(slab, 32, 8).fill(0x31), 32), () => released.push(name));
    const items = lentPage('a');
    const body = withEnvelope('[', items, ']');
    assert.equal(body.buffer, slab, 'written around in place');
    assert.equal(body.toString(), '[11111111]');
    assert.ok(isLent(body) && !isLent(items), 'the lease moved to the body');
    const release = takeRelease(body)!;
    assert.equal(takeRelease(body), undefined, 'taken once');
    release();
    release();
    assert.deepEqual(released, ['a']);
    // Copied (no room for the envelope): given back at once.
    const tight = lentPage('b');
    const copied = withEnvelope('x'.repeat(40), tight, ']');
    assert.notEqual(copied.buffer, slab);
    assert.deepEqual(released, ['a', 'b']);
    // Runs joined into one buffer are copies: every lent run goes back; a single run stays lent.
    const single = lentPage('c');
    assert.equal(joinRuns([single]), single);
    assert.ok(isLent(single));
    const joined = joinRuns([lentPage('d'), 'x', lentPage('e')]);
    assert.equal(Buffer.from(joined as Uint8Array).toString(), '11111111,x,11111111');
    assert.deepEqual(released, ['a', 'b', 'd', 'e']);
  });

  it('shares one lent body between the requests of one build, given back after the last is written, and caches a copy', () => {
    const slab = new SharedArrayBuffer(256);
    let released = 0;
    const body = withEnvelope(
      '[',
      withLease(withRoom(new Uint8Array(slab, 32, 3).fill(0x32), 32), () => released++),
      ']',
    );
    const first = claimBody(body);
    const second = claimBody(body);
    const third = claimBody(body);
    assert.ok(first === body && second === body && third === body, 'no copy');
    assert.equal(body.toString(), '[222]');
    const releases = [takeRelease(first)!, takeRelease(second)!, takeRelease(third)!];
    assert.equal(takeRelease(body), undefined, 'one release per holder');
    releases[1]!();
    releases[1]!();
    releases[0]!();
    assert.equal(released, 0, 'a holder is still writing');
    releases[2]!();
    assert.equal(released, 1);
    // A cache entry outlives the response: a copy, and the lent memory goes back at once.
    const again = withEnvelope(
      '[',
      withLease(withRoom(new Uint8Array(slab, 32, 3).fill(0x33), 32), () => released++),
      ']',
    );
    const kept = ownedBody(again);
    assert.equal(kept.toString(), '[333]');
    assert.notEqual(kept.buffer, slab);
    assert.equal(released, 2);
    assert.equal(ownedBody(kept), kept, 'a body of its own is kept as it is');
    // Memory already given back is never sent nor copied: that would be another page's bytes.
    const late = withEnvelope(
      '[',
      withLease(withRoom(new Uint8Array(slab, 32, 3), 32), () => released++),
      ']',
    );
    assert.equal(claimBody(late), late);
    takeRelease(late)!();
    assert.equal(released, 3);
    assert.throws(() => claimBody(late), /given back before every request that shared it took it/);
  });

  it("writes bodies of text items into the main thread's page memory, lent until written; a body too big for a slot in a buffer of its own", () => {
    const before = mainSlotsLent();
    const text = renderPage([[at, 1, 1, 1, null, '{"x":"é 𝄞"}']], spec).items;
    const body = withEnvelope('{"items":[', text, ']}');
    assert.deepEqual(JSON.parse(body.toString()), {
      items: [{ id: '1', active: true, disappeared_at: null, x: 'é 𝄞' }],
    });
    assert.ok(isLent(body));
    assert.equal(mainSlotsLent(), before + 1);
    takeRelease(body)!();
    assert.equal(mainSlotsLent(), before);
    // Characters of three bytes near the slot's size: measured exactly, not estimated.
    const wide = 'é'.repeat(100_000);
    const near = withEnvelope('"', wide, '"');
    assert.equal(near.length, 200_002);
    assert.equal(JSON.parse(near.toString()), wide);
    takeRelease(near)?.();
    const big = withEnvelope('"', 'x'.repeat(300_000), '"');
    assert.ok(!isLent(big));
    assert.equal(big.length, 300_002);
    assert.equal(mainSlotsLent(), before);
  });

  it('renders rows read on this thread into a lent slot of its page memory, the same JSON as renderPage; too big for a slot, or no slot free, without one', () => {
    const before = mainSlotsLent();
    const rows = [
      [at, 7, 7, 1, null, '{"name":"a \\"quoted\\" one","x":"é 𝄞"}'],
      [at + 1, 9, 9, 0, at, '{"name":"b"}'],
      [at + 2, 11, 11, 1, null, '{"name":"c"}'],
    ];
    const roomy = { ...spec, room: 64 };
    const page = renderPageLent(rows, roomy);
    assert.ok(page.items instanceof Uint8Array && isLent(page.items));
    assert.equal(mainSlotsLent(), before + 1);
    assert.equal(Buffer.from(page.items).toString(), renderPage(rows, spec).items);
    assert.deepEqual([page.count, page.last, page.next], [3, [at + 1, 9], [at + 1, 9]]);
    // The envelope goes into the room around the items: no copy, and the lease moves to the body.
    const body = withEnvelope('{"items":[', page.items, ']}');
    assert.equal(body.buffer, (page.items as Uint8Array).buffer);
    assert.equal(JSON.parse(body.toString()).items.length, 2);
    takeRelease(body)!();
    assert.equal(mainSlotsLent(), before);

    const huge = renderPageLent([[at, 1, 1, 1, null, `{"x":"${'y'.repeat(300_000)}"}`]], { ...roomy, limit: 1 });
    assert.ok(huge.items instanceof Uint8Array && !isLent(huge.items), 'too big: a buffer of its own');
    assert.equal(mainSlotsLent(), before, 'its slot went back at once');
    const hugeBody = withEnvelope('[', huge.items, ']');
    assert.equal(hugeBody.buffer, (huge.items as Uint8Array).buffer, 'and still written around without a copy');
    assert.equal(JSON.parse(hugeBody.toString())[0].x.length, 300_000);

    const held = Array.from({ length: 64 - before }, () => renderPageLent(rows, roomy));
    assert.equal(mainSlotsLent(), 64);
    const text = renderPageLent(rows, roomy);
    assert.equal(typeof text.items, 'string', 'every slot lent: text');
    for (const h of held) takeRelease(withEnvelope('[', h.items, ']'))!();
    assert.equal(mainSlotsLent(), before);
  });

  it('refuses a spec with an unknown kind', () => {
    assert.throws(
      () => renderPage([[1, '{}']], { keys: 0, head: [['x', 'date' as never]], limit: 1 }),
      /unknown field kind date/,
    );
  });
});
