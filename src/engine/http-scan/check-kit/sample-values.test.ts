import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CrawledPage } from './page-check.ts';
import { extractPageLinks } from './html-links.ts';
import { formControlValues, needsOtherValues, SampleValues, sampleValuesOf } from './sample-values.ts';

/** A crawled HTML page with the links the crawler would have extracted. */
function pageOf(html: string): CrawledPage {
  const url = new URL('http://127.0.0.1:8080/shop');
  return {
    url,
    origin: { scheme: 'http', host: '127.0.0.1', port: 8080 },
    originText: 'http://127.0.0.1:8080',
    exchange: {
      request: { method: 'GET', url: url.href, headers: [] },
      status: 200,
      headers: [{ name: 'content-type', value: 'text/html' }],
      body: html,
    },
    isHtml: true,
    links: extractPageLinks(html),
  } as unknown as CrawledPage;
}

describe('sample values', () => {
  it("collects the site's own values: link queries, input values, every option of a select", () => {
    const pool = new SampleValues();
    pool.observe(
      pageOf(
        '<a href="/item?id=42&amp;cat=tools">x</a><a href="/item?id=7#top">y</a>' +
          '<form><input name="q" value="shoe"><input type="password" name="pw" value="secret"><input name="empty">' +
          '<select name="cat"><option value="home">Home</option><option>garden</option></select>' +
          '<input type="submit" name="go" value="Go"></form>',
      ),
    );
    assert.deepEqual(pool.valuesFor('id'), ['42', '7']);
    assert.deepEqual(pool.valuesFor('cat'), ['tools', 'home', 'garden']);
    assert.deepEqual(pool.valuesFor('cat', 'home'), ['tools', 'garden']);
    assert.deepEqual(pool.valuesFor('q'), ['shoe']);
    assert.deepEqual(pool.valuesFor('pw'), []);
    assert.deepEqual(pool.valuesFor('go'), []);
    assert.deepEqual(pool.valuesFor('empty'), []);
    assert.ok(pool.isSiteValue('id', '42'));
    assert.ok(!pool.isSiteValue('id', 'perimeter'));
  });

  it('keeps a few distinct values per name, reads a page once, and shares one pool per scan', () => {
    const pool = new SampleValues();
    for (const value of ['a', 'b', 'a', ' ', 'c', 'd', 'e', 'x'.repeat(200)]) pool.add('k', value);
    assert.deepEqual(pool.valuesFor('k'), ['a', 'b', 'c', 'd']);
    const page = pageOf('<a href="/p?n=1">1</a>');
    pool.observe(page);
    pool.observe(page);
    assert.deepEqual(pool.valuesFor('n'), ['1']);
    const session = {};
    assert.equal(sampleValuesOf(session), sampleValuesOf(session));
    assert.notEqual(sampleValuesOf(session), sampleValuesOf({}));
  });

  it('asks for other values only where the crawler made the value up, in a query or form field', () => {
    const pool = new SampleValues();
    pool.add('brand', 'acme');
    assert.ok(needsOtherValues({ location: 'body', name: 'brand', value: 'perimeter' }, pool));
    assert.ok(needsOtherValues({ location: 'query', name: 'id', value: 'perimeter' }, pool));
    assert.ok(!needsOtherValues({ location: 'query', name: 'brand', value: 'acme' }, pool));
    assert.ok(!needsOtherValues({ location: 'header', name: 'User-Agent', value: 'x' }, pool));
    assert.ok(!needsOtherValues({ location: 'path', name: '0', value: '12' }, pool));
  });

  it('reads no form control from a page without one', () => {
    assert.deepEqual(formControlValues('<p>Hello</p>'), []);
    assert.deepEqual(formControlValues('<select name="s"><option value="1">one<option value="2">two</select>'), [
      ['s', '1'],
      ['s', '2'],
    ]);
  });
});
