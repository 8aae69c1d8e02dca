import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HttpHeader } from '../../../core/vulnerabilities/vulnerability.types.ts';
import type { HttpExchange } from './guarded-http-client.ts';
import {
  cookieSafe,
  describePoint,
  injectionLocation,
  injectionPointKey,
  injectionPoints,
  injectPayload,
  jsonLeaves,
  routePattern,
  type InjectionPoint,
} from './injection.ts';
import { harmlessFile, multipartBody, parseMultipart } from './multipart.ts';

const origin = 'http://127.0.0.1:8080';

/** A crawled page: the request the crawler sent and the answer's status, type and Set-Cookie headers. */
function crawled(
  href: string,
  options: {
    method?: string;
    body?: string;
    requestHeaders?: HttpHeader[];
    status?: number;
    contentType?: string;
    setCookies?: string[];
  } = {},
): { url: URL; exchange: HttpExchange } {
  const url = new URL(href, origin);
  const headers: HttpHeader[] = [
    { name: 'content-type', value: options.contentType ?? 'text/html; charset=utf-8' },
    ...(options.setCookies ?? []).map((value) => ({ name: 'set-cookie', value })),
  ];
  return {
    url,
    exchange: {
      request: {
        method: options.method ?? 'GET',
        url,
        headers: [{ name: 'user-agent', value: 'perimeter-test' }, ...(options.requestHeaders ?? [])],
        ...(options.body === undefined ? {} : { body: options.body }),
      },
      status: options.status ?? 200,
      headers,
      body: '<p>ok</p>',
      isTruncated: false,
    },
  };
}

const byLocation = (points: InjectionPoint[], location: InjectionPoint['location']): InjectionPoint[] =>
  points.filter((p) => p.location === location);

describe('jsonLeaves', () => {
  it('names every string and number leaf by its key path, nested objects and arrays included, and skips other values', () => {
    const leaves = jsonLeaves({
      user: { name: 'ann', age: 41, admin: false },
      tags: ['a', { id: 7 }],
      note: null,
      empty: {},
    });
    assert.deepEqual(
      leaves.map((l) => [l.name, l.value, l.path]),
      [
        ['user.name', 'ann', ['user', 'name']],
        ['user.age', '41', ['user', 'age']],
        ['tags.0', 'a', ['tags', 0]],
        ['tags.1.id', '7', ['tags', 1, 'id']],
      ],
    );
    assert.deepEqual(jsonLeaves('just a string'), []);
    assert.deepEqual(jsonLeaves(undefined), []);
  });
});

describe('injectionPoints: JSON bodies', () => {
  const body = JSON.stringify({ filter: { category: 'shoes' }, limit: 10, flags: [true] });
  const page = crawled('/api/search', {
    method: 'POST',
    body,
    requestHeaders: [{ name: 'content-type', value: 'application/json' }],
    contentType: 'application/json',
  });

  it('makes each string or number leaf a point, and no form field of the JSON text', () => {
    const points = injectionPoints(page);
    assert.deepEqual(
      byLocation(points, 'json').map((p) => `${p.name}=${p.value}`),
      ['filter.category=shoes', 'limit=10'],
    );
    assert.deepEqual(byLocation(points, 'body'), []);
  });

  it('replaces or appends to the leaf and sends the document again as JSON', () => {
    const [category, limit] = byLocation(injectionPoints(page), 'json');
    const replaced = injectPayload(category!, '<x>');
    assert.equal(replaced.method, 'POST');
    assert.deepEqual(replaced.body, {
      contentType: 'application/json',
      text: JSON.stringify({ filter: { category: '<x>' }, limit: 10, flags: [true] }),
    });
    const appended = injectPayload(limit!, "'", 'append');
    assert.deepEqual(JSON.parse(appended.body!.text), { filter: { category: 'shoes' }, limit: "10'", flags: [true] });
  });

  it('locates and names a leaf by its dotted path', () => {
    const category = byLocation(injectionPoints(page), 'json')[0]!;
    assert.equal(injectionLocation(origin, category), `${origin}/api/search?json=filter.category`);
    assert.equal(describePoint(category), 'JSON field filter.category');
    assert.equal(injectionPointKey(category), `POST ${origin}/api/search json:filter.category`);
  });

  it('splits only an urlencoded body into form fields', () => {
    const form = crawled('/search', {
      method: 'POST',
      body: 'q=shoe&page=1',
      requestHeaders: [{ name: 'content-type', value: 'application/x-www-form-urlencoded' }],
    });
    assert.deepEqual(
      byLocation(injectionPoints(form), 'body').map((p) => p.name),
      ['q', 'page'],
    );
    const xml = crawled('/import', {
      method: 'POST',
      body: '<doc a="1&b=2"/>',
      requestHeaders: [{ name: 'content-type', value: 'application/xml' }],
    });
    assert.deepEqual(byLocation(injectionPoints(xml), 'body'), []);
    // Every point of the XML request still sends the body with its own type.
    assert.deepEqual(injectPayload(byLocation(injectionPoints(xml), 'header')[0]!, 'x').body, {
      contentType: 'application/xml',
      text: '<doc a="1&b=2"/>',
    });
  });
});

describe('injectionPoints: multipart bodies', () => {
  const sent = multipartBody(
    [
      ['caption', 'holiday'],
      ['upload', 'Upload'],
    ],
    [harmlessFile('picture')],
    'B0und',
  );
  const page = crawled('/upload', {
    method: 'POST',
    body: sent.text,
    requestHeaders: [{ name: 'content-type', value: sent.contentType }],
  });

  it('makes each text field a form field point, never the file part', () => {
    const points = byLocation(injectionPoints(page), 'body');
    assert.deepEqual(
      points.map((p) => `${p.name}=${p.value} ${p.bodyType}`),
      ['caption=holiday multipart', 'upload=Upload multipart'],
    );
    assert.equal(injectionLocation(origin, points[0]!), `${origin}/upload?body=caption`);
    assert.equal(describePoint(points[0]!), 'form field caption');
  });

  it('rebuilds the multipart body with the payload, the same boundary and the file part kept', () => {
    const caption = byLocation(injectionPoints(page), 'body')[0]!;
    const request = injectPayload(caption, '"><svg>\r\n', 'append');
    assert.equal(request.body?.contentType, sent.contentType);
    assert.deepEqual(parseMultipart(request.body!.text, request.body!.contentType), {
      fields: [
        ['caption', 'holiday"><svg>\r\n'],
        ['upload', 'Upload'],
      ],
      files: [harmlessFile('picture')],
    });
  });

  it("keys a form field by its body's field names too: the variants of a form are tested each, values never count", () => {
    const caption = byLocation(injectionPoints(page), 'body')[0]!;
    assert.equal(injectionPointKey(caption), `POST ${origin}/upload body:caption [caption&upload]`);
    const preview = crawled('/report', { method: 'POST', body: 'title=a&preview=1' });
    const publish = crawled('/report', { method: 'POST', body: 'title=b&publish=1' });
    const again = crawled('/report', { method: 'POST', body: 'title=c&preview=2' });
    const keyOf = (p: ReturnType<typeof crawled>): string =>
      injectionPointKey(byLocation(injectionPoints(p), 'body')[0]!);
    assert.notEqual(keyOf(preview), keyOf(publish));
    assert.equal(keyOf(preview), keyOf(again));
  });
});

describe('injectionPoints: request headers', () => {
  it('adds User-Agent, Referer and X-Forwarded-For once per route, with the values sent or plausible ones', () => {
    const points = byLocation(injectionPoints(crawled('/product/42?color=red')), 'header');
    assert.deepEqual(
      points.map((p) => `${p.name}: ${p.value}`),
      ['User-Agent: perimeter-test', `Referer: ${origin}/`, 'X-Forwarded-For: 198.51.100.7'],
    );
    const [agent] = points;
    assert.equal(injectionLocation(origin, agent!), `${origin}/product/{}?header=User-Agent`);
    assert.equal(describePoint(agent!), 'request header User-Agent');
    // Another product and another query are the same route: tested once.
    const other = byLocation(injectionPoints(crawled('/product/43?size=9')), 'header')[0]!;
    assert.equal(injectionPointKey(other), injectionPointKey(agent!));
  });

  it('sends the payload as the header, the rest of the request unchanged', () => {
    const agent = byLocation(injectionPoints(crawled('/visit?x=1')), 'header')[0]!;
    const request = injectPayload(agent, "'", 'append');
    assert.deepEqual(request.headers, [{ name: 'user-agent', value: "perimeter-test'" }]);
    assert.equal(request.url.href, `${origin}/visit?x=1`);
    assert.equal(request.body, undefined);
  });

  it('tests headers and cookies only on successful HTML or JSON answers', () => {
    assert.equal(
      byLocation(injectionPoints(crawled('/app.js', { contentType: 'text/javascript' })), 'header').length,
      0,
    );
    assert.equal(byLocation(injectionPoints(crawled('/missing', { status: 404 })), 'header').length, 0);
    assert.equal(
      byLocation(injectionPoints(crawled('/api/items', { contentType: 'application/json' })), 'header').length,
      3,
    );
  });
});

describe('injectionPoints: cookies', () => {
  const page = crawled('/banner', {
    requestHeaders: [{ name: 'cookie', value: 'lang=en; sid=profile-session; theme=dark' }],
    setCookies: [
      'cart=7; Path=/; HttpOnly',
      'old=; Max-Age=0',
      'gone=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
      'lang=fr; Path=/',
    ],
  });

  it("makes each cookie the site set a point: sent ones (not the profile's) and new ones, not deletions", () => {
    const points = byLocation(injectionPoints(page, { profileCookieNames: new Set(['sid']) }), 'cookie');
    assert.deepEqual(
      points.map((p) => `${p.name}=${p.value}`),
      ['lang=en', 'theme=dark', 'cart=7'],
    );
    assert.equal(injectionLocation(origin, points[0]!), `${origin}/banner?cookie=lang`);
    assert.equal(describePoint(points[0]!), 'cookie lang');
  });

  it('sends every cookie of the request with the tested one replaced, header-splitting characters encoded', () => {
    const [lang, , cart] = byLocation(injectionPoints(page, { profileCookieNames: new Set(['sid']) }), 'cookie');
    assert.deepEqual(injectPayload(lang!, "' AND '1'='1", 'append').headers, [
      { name: 'cookie', value: "lang=en' AND '1'='1; sid=profile-session; theme=dark" },
    ]);
    assert.deepEqual(injectPayload(cart!, ';sleep 4', 'append').headers, [
      { name: 'cookie', value: 'lang=en; sid=profile-session; theme=dark; cart=7%3Bsleep 4' },
    ]);
    assert.equal(cookieSafe('a;b,c\nd'), 'a%3Bb%2Cc%0Ad');
  });
});

describe('routePattern', () => {
  it('writes id-like segments as {} and keeps the others', () => {
    assert.equal(routePattern('/shop/item/42/reviews'), '/shop/item/{}/reviews');
    assert.equal(routePattern('/docs/intro.txt'), '/docs/{}');
    assert.equal(routePattern('/'), '/');
  });
});
