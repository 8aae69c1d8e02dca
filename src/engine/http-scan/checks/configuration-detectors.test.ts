import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { corsPathPattern, corsVerdict } from './cors.check.ts';
import { insecureSubresources } from './mixed-content.check.ts';
import { parsePageMarkup } from './page-markup.ts';
import { findVersionBanner } from './version-disclosure.check.ts';

const withHeaders = (headers: Record<string, string>): HttpExchange => ({
  request: { method: 'GET', url: new URL('http://127.0.0.1/api'), headers: [] },
  status: 200,
  headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
  body: '{}',
  isTruncated: false,
});

describe('configuration detectors', () => {
  it('recognises product/version banners', () => {
    const banner = (header: string, value: string): string | undefined => {
      const found = findVersionBanner(header, value);
      return found === undefined ? undefined : `${found.product} ${found.version} @${found.offset} ${found.token}`;
    };
    assert.equal(banner('server', 'nginx/1.18.0'), 'nginx 1.18.0 @0 nginx/1.18.0');
    assert.equal(banner('server', 'Apache/2.4.41 (Ubuntu)'), 'Apache 2.4.41 @0 Apache/2.4.41');
    assert.equal(banner('x-powered-by', 'PHP/7.4.3'), 'PHP 7.4.3 @0 PHP/7.4.3');
    assert.equal(banner('x-powered-by', 'PHP/8.1.2-1ubuntu2.14'), 'PHP 8.1.2 @0 PHP/8.1.2');
    assert.equal(banner('server', 'Microsoft-IIS/10.0'), 'Microsoft-IIS 10.0 @0 Microsoft-IIS/10.0');
    assert.equal(banner('server', 'Jetty(9.4.43.v20210629)'), 'Jetty 9.4.43 @0 Jetty(9.4.43');
    assert.equal(banner('server', 'Werkzeug/2.3.7 Python/3.11.4'), 'Werkzeug 2.3.7 @0 Werkzeug/2.3.7');
    assert.equal(banner('x-aspnet-version', '4.0.30319'), 'ASP.NET 4.0.30319 @0 4.0.30319');
    assert.equal(banner('x-generator', 'WordPress 6.4.2'), 'WordPress 6.4.2 @0 WordPress 6.4.2');
  });

  it('does not take product names, ids or a bare major version for a version', () => {
    for (const [header, value] of [
      ['server', 'nginx'],
      ['server', 'Apache'],
      ['server', 'cloudflare'],
      ['server', 'ECS (dcb/7F83)'],
      ['x-powered-by', 'Express'],
      ['x-powered-by', 'ASP.NET'],
      ['x-generator', 'Drupal 10 (https://www.drupal.org)'],
      ['server', 'served by 10.0.0.5'],
      ['x-aspnet-version', 'hidden'],
    ] as const) {
      assert.equal(findVersionBanner(header, value), undefined, `${header}: ${value}`);
    }
  });

  it('calls a CORS answer allowing only an explicit echo of the probe origin (or null), not *', () => {
    const origin = 'https://perimeter-cors-check.invalid';
    assert.deepEqual(
      corsVerdict(
        withHeaders({ 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' }),
        origin,
      ),
      { isAllowed: true, hasCredentials: true, allowOrigin: origin },
    );
    assert.equal(corsVerdict(withHeaders({ 'access-control-allow-origin': origin }), origin).hasCredentials, false);
    assert.equal(
      corsVerdict(
        withHeaders({ 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' }),
        origin,
      ).isAllowed,
      false,
    );
    assert.equal(
      corsVerdict(withHeaders({ 'access-control-allow-origin': 'https://shop.example' }), origin).isAllowed,
      false,
    );
    assert.equal(corsVerdict(withHeaders({ 'access-control-allow-origin': 'null' }), 'null').isAllowed, true);
    assert.equal(corsVerdict(withHeaders({ 'access-control-allow-origin': 'null' }), origin).isAllowed, false);
    assert.equal(corsVerdict(withHeaders({}), 'null').isAllowed, false);
  });

  it('groups id-like path segments into one CORS probe', () => {
    assert.equal(corsPathPattern('/api/items/42'), '/api/items/{id}');
    assert.equal(corsPathPattern('/api/users/3f2b9c1e-0d4a-4b8e-9c7d-1a2b3c4d5e6f/orders'), '/api/users/{id}/orders');
    assert.equal(corsPathPattern('/api/v2/items'), '/api/v2/items');
  });

  it('lists active content and form actions over http:// on a page, not links or https', () => {
    const markup = parsePageMarkup(
      '<link rel="stylesheet" href="http://cdn.test/a.css"><link rel="icon" href="http://cdn.test/f.ico"><script src="http://cdn.test/a.js"></script><script src="//cdn.test/b.js"></script>' +
        '<iframe src="HTTP://video.test/1"></iframe><img src="http://img.test/p.png"><a href="http://elsewhere.test/">x</a><form action="http://news.test/s"><input type="password" name="p" autocomplete="ON"></form><object data="/local.swf"></object>',
    );
    const insecure = insecureSubresources(markup.subresources, new URL('https://shop.test/page'));
    assert.deepEqual(
      insecure.map((r) => `${r.tag} ${r.url}`),
      [
        'link http://cdn.test/a.css',
        'script http://cdn.test/a.js',
        'iframe HTTP://video.test/1',
        'form http://news.test/s',
      ],
    );
    assert.equal(markup.hasPasswordInput, true);
    assert.deepEqual(markup.forms[0]?.inputs[0], {
      name: 'p',
      type: 'password',
      value: undefined,
      autocomplete: 'on',
      isChecked: false,
    });
  });
});
