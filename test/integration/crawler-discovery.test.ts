import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ScanLimits, ScanSink } from '../../src/core/scans/scan-engine.ts';
import { defaultScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { createHttpScanEngine } from '../../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';

const engine = createHttpScanEngine({ guard: new EgressGuard(['127.0.0.0/8']), resolver: createDnsResolver([]) });
const limits: ScanLimits = { maxPages: 200, maxDepth: 10, maxDurationMs: 20_000, requestTimeoutMs: 2000 };
const html = { 'content-type': 'text/html' };

const INDEX = `<!doctype html><html><head><title>Discovery</title><script src="/static/app.js"></script>
<script>document.addEventListener('load', () => fetch('/api/inline'));</script>
<script type="application/ld+json">{"url": "/not-javascript"}</script></head><body>
<a href="/logout">Log out</a> <a href="/dir/">Dir</a> <a href="/dir">Dir again</a>
<a href="/page?id=1#top">One</a> <a href="/page?id=2">Two</a>
<form action="/comment" method="post"><input name="text"><input type="email" name="mail"><input type="submit" value="Send"></form>
<form action="/account/delete" method="post"><input type="hidden" name="confirm" value="yes"></form>
</body></html>`;

describe('crawler discovery', () => {
  let site: TestHttpServer;
  before(async () => {
    site = await startHttpServer({
      '/': { status: 200, body: INDEX, headers: html },
      '/robots.txt': 'User-agent: *\nDisallow: /hidden/\nSitemap: /sitemap-index.xml\n',
      '/static/app.js': {
        status: 200,
        body: 'const api = "/api/items"; const re = /a+b/g;',
        headers: { 'content-type': 'application/javascript' },
      },
      '/api/inline': { status: 200, body: '{}', headers: { 'content-type': 'application/json' } },
      '/api/items': {
        status: 200,
        body: JSON.stringify({ next: '/api/items?page=2', items: [{ href: '/api/item/1' }] }),
        headers: { 'content-type': 'application/json' },
      },
      '/api/items?page=2': { status: 200, body: '{"items": []}', headers: { 'content-type': 'application/json' } },
      '/api/item/1': { status: 200, body: '{"id": 1}', headers: { 'content-type': 'application/json' } },
      '/hidden/': { status: 200, body: '<p>hidden</p>', headers: html },
      '/from-sitemap': { status: 200, body: '<p>listed</p>', headers: html },
      '/dir/': { status: 200, body: '<p>dir</p>', headers: html },
      '/dir': { status: 200, body: '<p>dir</p>', headers: html },
      '/comment': { status: 200, body: '<p>thanks</p>', headers: html },
    });
    const origin = `http://127.0.0.1:${site.port}`;
    site.routes.set('/sitemap-index.xml', {
      status: 200,
      body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemap-pages.xml</loc></sitemap></sitemapindex>`,
      headers: { 'content-type': 'application/xml' },
    });
    site.routes.set('/sitemap-pages.xml', {
      status: 200,
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/from-sitemap</loc></url></urlset>`,
      headers: { 'content-type': 'application/xml' },
    });
  });
  after(() => site.stop());

  it('finds pages through robots.txt, sitemaps, scripts, JSON and POST forms, and keeps away from logout and destructive forms', async () => {
    const warnings: string[] = [];
    const sink: ScanSink = {
      finding: async () => undefined,
      progress: () => undefined,
      warning: (w) => warnings.push(w),
    };
    const outcome = await engine.scan(
      { scheme: 'http', host: '127.0.0.1', port: site.port, scopeName: '127.0.0.1' },
      { ...defaultScanProfileSettings },
      limits,
      sink,
      new AbortController().signal,
    );
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(warnings, []);
    const requests = site.requests.map((r) => r.split(' ').slice(0, 2).join(' '));
    for (const expected of [
      'GET /robots.txt',
      'GET /sitemap.xml',
      'GET /hidden/',
      'GET /sitemap-index.xml',
      'GET /sitemap-pages.xml',
      'GET /from-sitemap',
      'GET /static/app.js',
      'GET /api/inline',
      'GET /api/items',
      'GET /api/items?page=2',
      'GET /api/item/1',
      'POST /comment',
    ]) {
      assert.ok(requests.includes(expected), `${expected} was requested (${requests.join(', ')})`);
    }
    assert.ok(!requests.some((r) => r.includes('/logout')), 'a logout link is never followed');
    assert.ok(!requests.some((r) => r.includes('/account/delete')), 'a destructive form is never submitted');
    assert.ok(!requests.some((r) => r.includes('/not-javascript')), 'a JSON-LD script is not read as JavaScript');
    // Distinct requests: active checks re-send a page they test as their baseline.
    const distinct = new Set(requests);
    assert.equal(
      ['GET /dir', 'GET /dir/'].filter((r) => distinct.has(r)).length,
      1,
      'trailing-slash variants are one page',
    );
    assert.equal(
      ['GET /page?id=1', 'GET /page?id=2'].filter((r) => distinct.has(r)).length,
      1,
      'query-value variants are one page',
    );
  });

  it('resolves a relative link against each page that carries it, and a link from the root or the network the same on every page', async () => {
    const pages = await startHttpServer({});
    try {
      const links = `<a href="next">next</a> <a href="/shared">shared</a> <a href="//127.0.0.1:${pages.port}/by-network-path">network path</a>`;
      for (const [path, body] of Object.entries({
        '/': '<a href="/a/">a</a> <a href="/b/">b</a>',
        '/a/': links,
        '/b/': links,
        '/a/next': '',
        '/b/next': '',
        '/shared': '',
        '/by-network-path': '',
      })) {
        pages.routes.set(path, { status: 200, body: `<html><body>${body}</body></html>`, headers: html });
      }
      const sink: ScanSink = { finding: async () => undefined, progress: () => undefined, warning: () => undefined };
      const outcome = await engine.scan(
        { scheme: 'http', host: '127.0.0.1', port: pages.port, scopeName: '127.0.0.1' },
        { ...defaultScanProfileSettings },
        limits,
        sink,
        new AbortController().signal,
      );
      assert.equal(outcome.status, 'completed');
      const requested = new Set(pages.requests.map((r) => r.split(' ').slice(0, 2).join(' ')));
      for (const expected of ['GET /a/next', 'GET /b/next', 'GET /shared', 'GET /by-network-path'])
        assert.ok(requested.has(expected), `${expected} was requested (${[...requested].join(', ')})`);
    } finally {
      await pages.stop();
    }
  });
});
