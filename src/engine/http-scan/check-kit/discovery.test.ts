import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractJsonCalls, extractJsonUrls, extractJsUrls, parseRobots, parseSitemap } from './discovery.ts';

describe('parseRobots', () => {
  it('takes Allow and Disallow paths (cut at wildcards) and Sitemap URLs, ignoring comments', () => {
    const hints = parseRobots(
      'User-agent: *\r\nDisallow: /admin/ # keep out\nAllow: /public\nDisallow: /tmp/*.bak\nDisallow: /exact$\nDisallow:\n# Disallow: /commented\nSitemap: http://h/sitemap.xml\nCrawl-delay: 5\nnonsense',
    );
    assert.deepEqual(hints.paths, ['/admin/', '/public', '/tmp/', '/exact']);
    assert.deepEqual(hints.sitemaps, ['http://h/sitemap.xml']);
  });
});

describe('parseSitemap', () => {
  it('reads pages of a urlset and sitemaps of an index, namespaced or not', () => {
    const urlset = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc> http://h/a?x=1&amp;y=2 </loc><lastmod>2024-01-01</lastmod></url><url><loc>http://h/b</loc></url></urlset>`;
    assert.deepEqual(parseSitemap(urlset), { pages: ['http://h/a?x=1&y=2', 'http://h/b'], sitemaps: [] });
    const index =
      '<sm:sitemapindex xmlns:sm="x"><sm:sitemap><sm:loc>http://h/s1.xml</sm:loc></sm:sitemap></sm:sitemapindex>';
    assert.deepEqual(parseSitemap(index), { pages: [], sitemaps: ['http://h/s1.xml'] });
    assert.deepEqual(parseSitemap('not xml at all <'), { pages: [], sitemaps: [] });
  });
});

describe('extractJsUrls', () => {
  it('finds routes and endpoints in string literals, not regexes, comments or substitutions', () => {
    const code = `fetch('/api/items?page=1'); const admin = {url: "/admin/users"}; go(\`./rel/path\`);
      const cdn = "https://cdn.example.com/lib.js"; const proto = '//static.example.com/x.css';
      const re = /ab+c/g; const d = '/'; const t = \`/api/\${id}\`; // '/commented/out' still a literal
      const mime = 'text/html'; const up = "../up";`;
    assert.deepEqual(extractJsUrls(code), [
      '/api/items?page=1',
      '/admin/users',
      './rel/path',
      'https://cdn.example.com/lib.js',
      '//static.example.com/x.css',
      '/commented/out',
      '../up',
    ]);
  });
});

describe('extractJsonUrls', () => {
  it('finds URL and path values at any depth, and nothing in invalid JSON', () => {
    const json = JSON.stringify({
      next: '/api/items?page=2',
      items: [{ href: 'http://h/item/1', name: 'not a path' }, { self: '/api/items/2' }],
      count: 2,
      empty: '/',
    });
    assert.deepEqual(extractJsonUrls(json), ['/api/items?page=2', 'http://h/item/1', '/api/items/2']);
    assert.deepEqual(extractJsonUrls('{broken'), []);
  });
});

describe('extractJsonCalls', () => {
  it('reads fetch() calls that POST a literal JSON body with a JSON content type, nested values and any other option included', () => {
    const code = `const search = () => fetch('/api/search', {
        method: 'POST', // the search API
        headers: {'Accept': 'application/json', "Content-Type": "application/json; charset=utf-8"},
        credentials: getMode(),
        body: JSON.stringify({filter: {category: 'shoes', "min-price": -1.5}, tags: ['a', \`b\`], exact: true, page: null}),
      });
      window.fetch(\`/api/stats\`, {method: "post", headers: {'content-type': 'application/json'}, body: '{"range":"week"}'});`;
    assert.deepEqual(extractJsonCalls(code), [
      {
        url: '/api/search',
        method: 'POST',
        body: JSON.stringify({
          filter: { category: 'shoes', 'min-price': -1.5 },
          tags: ['a', 'b'],
          exact: true,
          page: null,
        }),
      },
      { url: '/api/stats', method: 'POST', body: '{"range":"week"}' },
    ]);
  });

  it('skips calls it cannot read for sure: variables, spreads, computed URLs, other methods or types, no body', () => {
    const code = `fetch('/a', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(data)});
      fetch('/b', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({...base, q: 1})});
      fetch('/c', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({q: term})});
      fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({q: 1})});
      fetch(\`/d/\${id}\`, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({q: 1})});
      fetch('/e', {method: 'GET', headers: {'Content-Type': 'application/json'}});
      fetch('/f', {method: 'POST', headers: {'Content-Type': 'text/plain'}, body: JSON.stringify({q: 1})});
      fetch('/g', {method: 'POST', headers, body: JSON.stringify({q: 1})});
      fetch('/h', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: 'not json'});
      fetch('/i');
      prefetch('/j', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({q: 1})});`;
    assert.deepEqual(extractJsonCalls(code), []);
  });
});
