import type { SiteModule, SiteRequest, SiteResponse, Spot } from './types.ts';
import { spotsOf } from './types.ts';

/**
 * Injection spots that need more than a query parameter: reflections in every HTML context
 * (attribute values with each quote, a script string, a URL attribute, a POSTed field), a
 * time-based blind SQL injection, and SQL injection through a JSON API field, a request header
 * and a cookie the site sets. Nothing runs SQL: each vulnerable route answers what the flawed
 * code would (an error, a delay), and its safe twin encodes or validates for its context.
 * `/ctx/xss/encoded` is safe on both twins: it HTML-encodes inside attributes, and a scanner
 * reporting it has a false positive.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const json = { 'content-type': 'application/json' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string): SiteResponse => ({
  status: 200,
  headers: html,
  body: `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`,
});
const queryOf = (request: SiteRequest, name: string): string => request.url.searchParams.get(name) ?? '';
const spot = spotsOf('injection');

/** A cookie value as a framework that URL-decodes cookies (PHP, Express) reads it. */
function cookieOf(request: SiteRequest, name: string): string | undefined {
  for (const part of (request.req.headers.cookie ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index < 0 || part.slice(0, index).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(index + 1).trim());
    } catch {
      return part.slice(index + 1).trim();
    }
  }
  return undefined;
}

/** The body of a JSON request, or undefined when it is not one. */
function jsonBody(request: SiteRequest): Record<string, unknown> | undefined {
  if (request.method !== 'POST' || !(request.req.headers['content-type'] ?? '').includes('application/json'))
    return undefined;
  try {
    const body = JSON.parse(request.body) as unknown;
    return body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A safe href: relative URLs and http(s) only (what `new URL` resolves the scheme to, as a browser does). */
function isSafeHref(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value, 'http://fixture.invalid/').protocol);
  } catch {
    return false;
  }
}

const APP_SCRIPT = `const search = (category) => fetch('/ctx/api/search', {
  method: 'POST',
  headers: {'Accept': 'application/json', 'Content-Type': 'application/json'},
  credentials: 'same-origin',
  body: JSON.stringify({filter: {category: 'shoes'}, limit: 10}),
});
// A call the crawler cannot read for sure (the body is a variable): never posted.
const save = (data) => fetch('/ctx/api/save', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(data)});`;

const STATS_SCRIPT = `export function loadStats() {
  return fetch("/ctx/api/stats", { method: "POST", headers: { "Content-Type": "application/json; charset=utf-8" }, body: JSON.stringify({ range: "week", n: 1 }) }).then((r) => r.json());
}`;

const routes: Record<string, (request: SiteRequest) => SiteResponse> = {
  '/ctx/xss/attr-dq': (request) => {
    const q = queryOf(request, 'q');
    return page(
      'Search',
      `<form><input name="q" value="${request.isSafe ? escapeHtml(q) : q}"><input type="submit"></form>`,
    );
  },
  '/ctx/xss/attr-sq': (request) => {
    const color = queryOf(request, 'color');
    return page('Colour', `<div class='swatch ${request.isSafe ? escapeHtml(color) : color}'>Colour</div>`);
  },
  '/ctx/xss/script': (request) => {
    const user = queryOf(request, 'user');
    // The flawed code escapes `<` (no </script> breakout) but not the quote; the fix JSON-encodes and escapes `<`.
    const literal = request.isSafe ? JSON.stringify(user).replace(/</g, '\\u003c') : `'${user.replace(/</g, '\\x3c')}'`;
    return page('Profile', `<p>Profile</p><script>var user = ${literal}; document.title = 'Hi ' + user;</script>`);
  },
  '/ctx/xss/link': (request) => {
    const url = queryOf(request, 'url');
    // Both twins HTML-encode the attribute; only the fix also refuses schemes other than http(s).
    const href = request.isSafe && !isSafeHref(url) ? '/' : url;
    return page('Continue', `<p><a href="${escapeHtml(href)}">Continue</a></p>`);
  },
  '/ctx/xss/comment-form': () =>
    page(
      'Feedback',
      '<form method="post" action="/ctx/xss/comment"><input name="message" value="Nice shop"><input type="hidden" name="topic" value="general"><input type="submit" value="Send"></form>',
    ),
  '/ctx/xss/comment': (request) => {
    const message = new URLSearchParams(request.body).get('message') ?? '';
    return page(
      'Feedback',
      `<p>Thanks for your comment:</p><blockquote>${request.isSafe ? escapeHtml(message) : message}</blockquote>`,
    );
  },
  '/ctx/xss/encoded': (request) => {
    const term = queryOf(request, 'term');
    return page(
      'Encoded',
      `<input name="term" value="${escapeHtml(term)}"><span title='${escapeHtml(term)}'>${escapeHtml(term)}</span>`,
    );
  },
  '/ctx/sqli/track': (request) => {
    const ref = queryOf(request, 'ref');
    // SELECT … WHERE ref = '${ref}' on PostgreSQL, errors swallowed: only the time the query takes shows.
    const sleep = request.isSafe ? null : /'\|\|pg_sleep\((\d+)\)--$/.exec(ref);
    return {
      ...page('Tracking', '<p>Thanks, noted.</p>'),
      delayMs: sleep === null ? 0 : Math.min(10, Number(sleep[1])) * 1000,
    };
  },
  '/ctx/sqli/visit': (request) => {
    // INSERT INTO visits (agent) VALUES ('${User-Agent}') on SQL Server.
    const agent = request.req.headers['user-agent'] ?? '';
    if (!request.isSafe && agent.includes("'"))
      return {
        status: 500,
        headers: html,
        body: `<p>Unclosed quotation mark after the character string '${escapeHtml(agent)}'.</p>`,
      };
    return page('Visit', '<p>Your visit was recorded.</p>');
  },
  '/ctx/prefs': (request) => ({
    ...page('Preferences', '<p>Language set.</p><a href="/ctx/prefs/banner">See the banner</a>'),
    headers: {
      ...html,
      'set-cookie': `lang=en; Path=/; HttpOnly; SameSite=Lax${request.scheme === 'https' ? '; Secure' : ''}`,
    },
  }),
  '/ctx/prefs/banner': (request) => {
    // SELECT text FROM banners WHERE lang = '${lang}' on SQLite.
    const lang = cookieOf(request, 'lang') ?? 'en';
    if (!request.isSafe && lang.includes("'"))
      return { status: 500, headers: html, body: `<p>SQLITE_ERROR: unrecognized token: "${escapeHtml(lang)}"</p>` };
    return page('Banner', `<p>Banner for ${escapeHtml(lang)}</p>`);
  },
  '/ctx/api/app': () =>
    page('App', `<div id="app"></div><script>${APP_SCRIPT}</script><script src="/ctx/api/stats.js"></script>`),
  '/ctx/api/stats.js': () => ({ status: 200, headers: { 'content-type': 'text/javascript' }, body: STATS_SCRIPT }),
  '/ctx/api/search': (request) => {
    const body = jsonBody(request);
    if (body === undefined) return { status: 415, headers: json, body: '{"error":"POST a JSON body"}' };
    const filter = body['filter'];
    const category =
      filter !== null && typeof filter === 'object'
        ? String((filter as Record<string, unknown>)['category'] ?? '')
        : '';
    // SELECT … WHERE category = '${category}' on MySQL.
    if (!request.isSafe && category.includes("'")) {
      return {
        status: 500,
        headers: json,
        body: JSON.stringify({
          error: `You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '${category}'' at line 1`,
        }),
      };
    }
    return {
      status: 200,
      headers: json,
      body: JSON.stringify({ items: category === 'shoes' ? [{ name: 'Blue shoe' }] : [] }),
    };
  },
  '/ctx/api/stats': (request) =>
    jsonBody(request) === undefined
      ? { status: 415, headers: json, body: '{"error":"POST a JSON body"}' }
      : { status: 200, headers: json, body: '{"visits":42}' },
};

const spots: Spot[] = [
  spot(
    'xss-attribute-double',
    'reflected-xss',
    '/ctx/xss/attr-dq?q=',
    'q is reflected unencoded in a double-quoted attribute value',
  ),
  spot(
    'xss-attribute-single',
    'reflected-xss',
    '/ctx/xss/attr-sq?color=',
    'color is reflected unencoded in a single-quoted attribute value',
  ),
  spot(
    'xss-script-string',
    'reflected-xss',
    '/ctx/xss/script?user=',
    'user is put into a single-quoted script string, only < escaped',
  ),
  spot(
    'xss-url-attribute',
    'reflected-xss',
    '/ctx/xss/link?url=',
    'url is HTML-encoded into href, but a javascript: scheme is not refused',
  ),
  spot(
    'xss-post-field',
    'reflected-xss',
    '/ctx/xss/comment?body=message',
    'the POSTed message is reflected unencoded in the HTML body',
  ),
  spot(
    'sqli-time-postgres',
    'sql-injection',
    '/ctx/sqli/track?ref=',
    "time-based blind: '||pg_sleep(n)-- delays the answer, no error and no content difference",
  ),
  spot(
    'sqli-json-field',
    'sql-injection',
    '/ctx/api/search?json=filter.category',
    'MySQL error for a quote in the nested JSON field of an API call found in a page script',
  ),
  spot(
    'sqli-header',
    'sql-injection',
    '/ctx/sqli/visit?header=User-Agent',
    'SQL Server error for a quote in the User-Agent the page logs',
  ),
  spot(
    'sqli-cookie',
    'sql-injection',
    '/ctx/prefs/banner?cookie=lang',
    'SQLite error for a quote in the lang cookie the site set',
  ),
];

/** The injection-contexts module of the fixture site. */
export const injectionContextsModule: SiteModule = {
  name: 'injection-contexts',
  spots,
  links: [
    '/ctx/xss/attr-dq?q=shoe',
    '/ctx/xss/attr-sq?color=blue',
    '/ctx/xss/script?user=guest',
    '/ctx/xss/link?url=/welcome',
    '/ctx/xss/comment-form',
    '/ctx/xss/encoded?term=shoe',
    '/ctx/sqli/track?ref=home',
    '/ctx/sqli/visit',
    '/ctx/prefs',
    '/ctx/api/app',
  ],
  handle: (request) => routes[request.url.pathname]?.(request),
};
