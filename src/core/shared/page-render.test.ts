import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toWireTime } from './time.ts';
import { renderPage, renderPageBytes, withEnvelope, withRoom, type PageSpec } from './page-render.mjs';

const spec: PageSpec = { keys: 2, head: [['id', 'string'], ['active', 'bool'], ['disappeared_at', 'time']], limit: 2 };
const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

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
    const all: PageSpec = { keys: 0, head: [['s', 'string'], ['t', 'time'], ['b', 'bool'], ['n', 'number'], ['j', 'json'], ['z', 'string']], limit: 10 };
    const page = renderPage([['line\nbreak "and" \\ back', at, 0, 42, '["x",{"y":null}]', null, '{}']], all);
    assert.deepEqual(JSON.parse(`[${page.items}]`), [{ s: 'line\nbreak "and" \\ back', t: toWireTime(at), b: false, n: 42, j: ['x', { y: null }], z: null }]);
  });

  it('writes tail fields behind the document, with or without a head, empty documents included', () => {
    const tailOnly: PageSpec = { keys: 1, head: [], tail: [['created', 'time'], ['n', 'number']], limit: 5 };
    const page = renderPage([[1, '{"a":1}', at, 3], [2, '{}', at, 4]], tailOnly);
    assert.equal(page.items, `{"a":1,"created":"${toWireTime(at)}","n":3},{"created":"${toWireTime(at)}","n":4}`);
    const both: PageSpec = { keys: 0, head: [['h', 'bool']], tail: [['t', 'string']], limit: 5 };
    assert.deepEqual(JSON.parse(`[${renderPage([[1, '{"a":[1,{"b":2}]}', 'x'], [0, '{}', null]], both).items}]`), [
      { h: true, a: [1, { b: 2 }], t: 'x' },
      { h: false, t: null },
    ]);
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
    assert.deepEqual(JSON.parse(body.toString()), { items: [{ id: '1', active: true, disappeared_at: null, x: 'é' }], next: 'ü' });
    const tight = renderPageBytes(rows, { ...spec, room: 4 });
    const copied = withEnvelope('{"items":[', withRoom(tight.items, 4), '],"next":"ü"}');
    assert.notEqual(copied.buffer, tight.items.buffer);
    assert.equal(copied.toString(), body.toString());
    assert.equal(withEnvelope('[', renderPage(rows, spec).items, ']').toString(), `[${body.toString().slice(10, -13)}]`);
    // A small buffer of Node's shared pool: the bytes before it belong to other buffers, never written.
    Buffer.from('x'.repeat(32));
    const pooled = Buffer.from('{"a":1}');
    const neighbour = () => Buffer.from(pooled.buffer, pooled.byteOffset - 16, 16).toString('hex');
    const was = neighbour();
    assert.equal(withEnvelope('[', withRoom(pooled, 0), ']').toString(), '[{"a":1}]');
    assert.equal(neighbour(), was);
  });

  it('refuses a spec with an unknown kind', () => {
    assert.throws(() => renderPage([[1, '{}']], { keys: 0, head: [['x', 'date' as never]], limit: 1 }), /unknown field kind date/);
  });
});
