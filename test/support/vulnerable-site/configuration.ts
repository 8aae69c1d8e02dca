import { spotsOf, type SiteModule, type SiteRequest, type SiteResponse, type Spot } from './types.ts';

/**
 * The configuration spots of the fixture site: weak security headers on the home page, CORS
 * that trusts any origin, mixed content on HTTPS pages, TRACE and PUT enabled, a frameable form,
 * and version numbers in banners. The safe twin answers the same paths fixed, with near misses a
 * scanner must not report: `Access-Control-Allow-Origin: *` without credentials, a PUT that
 * answers 201 but stores nothing, 'unsafe-inline' next to a nonce, a Referrer-Policy fallback
 * list, banners without versions, plain http:// links (not loads) on HTTPS pages.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const json = { 'content-type': 'application/json' };
const page = (title: string, body: string, headers: Record<string, string> = {}): SiteResponse => ({
  status: 200,
  headers: { ...html, ...headers },
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}<p><a href="/">Home</a></p></body></html>`,
});

/**
 * The security headers index.ts adds to a response (the response's own headers win): the full
 * hardened set on every response of the safe twin; on the vulnerable site only the home page
 * gets headers, weak ones (the security-headers check judges an origin on its first HTML page,
 * the home page), and X-Frame-Options stays missing.
 */
export function fixtureSecurityHeaders(
  request: Pick<SiteRequest, 'isSafe' | 'scheme' | 'url'>,
): Record<string, string> {
  const isHttps = request.scheme === 'https';
  if (request.isSafe) {
    return {
      // 'unsafe-inline' next to a nonce is ignored by browsers (a near miss).
      'content-security-policy':
        "default-src 'self'; script-src 'self' 'nonce-fixture2026' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      // A fallback list: browsers apply the last policy they know.
      'referrer-policy': 'no-referrer, strict-origin-when-cross-origin',
      ...(isHttps ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
    };
  }
  if (request.url.pathname !== '/') return {};
  return {
    'content-security-policy': "default-src 'self'; script-src 'self' 'unsafe-inline'",
    'x-content-type-options': 'no-sniff',
    'referrer-policy': 'unsafe-url',
    ...(isHttps ? { 'strict-transport-security': 'max-age=86400' } : {}),
  };
}

/** The origin the safe twin's API trusts. */
const TRUSTED_ORIGIN = 'https://shop.fixture.example';

type CorsPolicy = (origin: string | undefined, isSafe: boolean) => Record<string, string>;

const NONE: Record<string, string> = {};
/** The headers that allow `origin`, with or without credentials. */
const allow = (origin: string, hasCredentials: boolean): Record<string, string> => ({
  'access-control-allow-origin': origin,
  ...(hasCredentials ? { 'access-control-allow-credentials': 'true' } : {}),
  vary: 'Origin',
});

/** API endpoints and how each answers an Origin header, vulnerable and safe. */
const CORS_APIS: Record<string, { body: unknown; policy: CorsPolicy }> = {
  // Reflects any origin with credentials; safe: only the trusted origin.
  '/api/account': {
    body: { email: 'jane@fixture.example', csrf: 'c0ffee' },
    policy: (origin, isSafe) =>
      origin !== undefined && (!isSafe || origin === TRUSTED_ORIGIN) ? allow(origin, true) : NONE,
  },
  // Reflects any origin without credentials; safe: a deliberate `*` for public data.
  '/api/catalogue': {
    body: { items: [{ id: 1, name: 'shoe' }] },
    policy: (origin, isSafe) =>
      isSafe ? { 'access-control-allow-origin': '*' } : origin !== undefined ? allow(origin, false) : NONE,
  },
  // Allows the null origin (sandboxed frames, data: pages) with credentials; an arbitrary origin is refused.
  '/api/orders': {
    body: { orders: [{ id: 7, total: '12.00' }] },
    policy: (origin, isSafe) => (!isSafe && origin === 'null' ? allow('null', true) : NONE),
  },
};

/** A reference that is plain HTTP on the vulnerable site and HTTPS on the safe twin (hosts never resolve: .invalid). */
const ref = (request: SiteRequest, hostPath: string): string => `${request.isSafe ? 'https' : 'http'}://${hostPath}`;

const PAGES: Record<string, (request: SiteRequest) => SiteResponse> = {
  // Mixed content (on HTTPS): a script and a stylesheet over http://; a plain link to http:// is never mixed content.
  '/pay/checkout': (r) =>
    page(
      'Checkout',
      `<link rel="stylesheet" href="${ref(r, 'cdn.fixture.invalid/pay.css')}"><script src="${ref(r, 'cdn.fixture.invalid/pay.js')}"></script><p>Pay safely. <a href="http://help.fixture.invalid/">Help</a></p>`,
    ),
  '/help/video': (r) =>
    page(
      'Video help',
      `<iframe src="${ref(r, 'video.fixture.invalid/embed/1')}" title="help"></iframe><img src="http://img.fixture.invalid/poster.png" alt="poster">`,
    ),
  '/newsletter': (r) =>
    page(
      'Newsletter',
      `<form method="post" action="${ref(r, 'news.fixture.invalid/subscribe')}"><input type="email" name="email"><input type="submit" value="Subscribe"></form>`,
    ),
  // Clickjacking: a state-changing form; frameable on the vulnerable site (the safe twin gets X-Frame-Options and frame-ancestors).
  '/account/settings': (r) =>
    r.method === 'POST'
      ? page('Settings saved', '<p>Saved.</p>')
      : page(
          'Settings',
          '<form method="post" action="/account/settings"><input type="email" name="email" value="jane@fixture.example"><input type="submit" value="Change e-mail"></form>',
        ),
  // A preferences cookie without HttpOnly and SameSite (and without Secure on HTTPS); the safe twin sets all three.
  '/account/preferences': (r) =>
    page('Preferences', '<p>Your preferences are saved in a cookie.</p>', {
      'set-cookie': r.isSafe
        ? `prefs=compact; Path=/; HttpOnly; SameSite=Lax${r.scheme === 'https' ? '; Secure' : ''}`
        : 'prefs=compact; Path=/',
    }),
  // Version banners; the safe twin names products without versions (near misses).
  '/intranet/report.php': (r) =>
    page(
      'Report',
      '<p>Quarterly report</p>',
      r.isSafe ? { server: 'Apache' } : { server: 'Apache/2.4.41 (Ubuntu)', 'x-powered-by': 'PHP/7.4.3' },
    ),
  '/intranet/Default.aspx': (r) =>
    page(
      'Intranet',
      '<p>Welcome</p>',
      r.isSafe ? { 'x-powered-by': 'ASP.NET' } : { 'x-aspnet-version': '4.0.30319', 'x-powered-by': 'ASP.NET' },
    ),
};

// PUT canaries stored by the vulnerable site, per server port and path.
const stored = new Map<string, string>();

/** TRACE and PUT on the scanner's own paths: the vulnerable site echoes TRACE and stores PUT bodies. */
function methods(request: SiteRequest): SiteResponse | undefined {
  const { req, url, method, isSafe } = request;
  if (url.pathname.startsWith('/perimeter-trace-')) {
    if (method !== 'TRACE' || isSafe)
      return { status: 405, headers: { allow: 'GET, HEAD, POST' }, body: 'Method Not Allowed' };
    const lines = [`TRACE ${req.url ?? '/'} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    return { status: 200, headers: { 'content-type': 'message/http' }, body: `${lines.join('\r\n')}\r\n\r\n` };
  }
  if (!url.pathname.startsWith('/perimeter-put-')) return undefined;
  const key = `${req.socket.localPort ?? 0} ${url.pathname}`;
  // The safe twin answers 201 Created but stores nothing: only reading the canary back tells.
  if (method === 'PUT') {
    if (!isSafe) stored.set(key, request.body);
    return { status: 201, headers: { 'content-type': 'text/plain' }, body: '' };
  }
  const body = stored.get(key);
  return body === undefined
    ? { status: 404, headers: html, body: '<p>Not found</p>' }
    : { status: 200, headers: { 'content-type': 'text/plain' }, body };
}

function handle(request: SiteRequest): SiteResponse | undefined {
  const path = request.url.pathname;
  const api = CORS_APIS[path];
  if (api !== undefined) {
    const origin = request.req.headers.origin;
    return { status: 200, headers: { ...json, ...api.policy(origin, request.isSafe) }, body: JSON.stringify(api.body) };
  }
  return PAGES[path]?.(request) ?? methods(request);
}

const spot = spotsOf('configuration');

const spots: Spot[] = [
  spot(
    'csp-unsafe-inline',
    'http-security-headers',
    '/?header=content-security-policy',
    "the home page's CSP allows 'unsafe-inline' scripts without a nonce or hash",
  ),
  spot(
    'frame-options-missing',
    'http-security-headers',
    '/?header=x-frame-options',
    'no X-Frame-Options and no CSP frame-ancestors',
  ),
  spot(
    'nosniff-misspelt',
    'http-security-headers',
    '/?header=x-content-type-options',
    'X-Content-Type-Options: no-sniff (ignored by browsers)',
  ),
  spot('referrer-unsafe-url', 'http-security-headers', '/?header=referrer-policy', 'Referrer-Policy: unsafe-url'),
  spot('hsts-short', 'http-security-headers', '/?header=strict-transport-security', 'HSTS max-age of one day', 'https'),
  spot(
    'cors-reflect-credentials',
    'cors-misconfiguration',
    '/api/account',
    'any Origin is echoed with Access-Control-Allow-Credentials: true',
  ),
  spot('cors-reflect', 'cors-misconfiguration', '/api/catalogue', 'any Origin is echoed (no credentials)'),
  spot('cors-null-origin', 'cors-misconfiguration', '/api/orders', 'the null origin is allowed with credentials'),
  spot(
    'mixed-script-style',
    'mixed-content',
    '/pay/checkout',
    'an HTTPS page loads a script and a stylesheet over http://',
    'https',
  ),
  spot('mixed-iframe', 'mixed-content', '/help/video', 'an HTTPS page frames an http:// page', 'https'),
  spot('mixed-form', 'mixed-content', '/newsletter', 'an HTTPS page submits a form to an http:// action', 'https'),
  spot(
    'cookie-no-httponly',
    'cookie-flags',
    '/?cookie=prefs&flag=httponly',
    'the prefs cookie is readable by scripts (no HttpOnly)',
  ),
  spot(
    'cookie-no-samesite',
    'cookie-flags',
    '/?cookie=prefs&flag=samesite',
    'the prefs cookie is sent on cross-site requests (no SameSite)',
  ),
  spot(
    'cookie-no-secure',
    'cookie-flags',
    '/?cookie=prefs&flag=secure',
    'the prefs cookie of an HTTPS site may travel over plain HTTP (no Secure)',
    'https',
  ),
  spot('trace-enabled', 'http-methods', '/?method=TRACE', 'TRACE echoes the request with its headers'),
  spot('put-enabled', 'http-methods', '/?method=PUT', 'PUT stores any file under the web root'),
  spot(
    'clickjacking-form',
    'clickjacking',
    '/',
    'the e-mail change form of /account/settings (and the login pages) can be framed',
  ),
  spot('banner-server', 'version-disclosure', '/?banner=server', 'Server: Apache/2.4.41 (Ubuntu)'),
  spot('banner-powered-by', 'version-disclosure', '/?banner=x-powered-by', 'X-Powered-By: PHP/7.4.3'),
  spot('banner-aspnet', 'version-disclosure', '/?banner=x-aspnet-version', 'X-AspNet-Version: 4.0.30319'),
];

/** The configuration spots of the fixture site (see index.ts); each path answers fixed on the safe twin. */
export const configurationModule: SiteModule = {
  name: 'configuration',
  spots,
  links: [...Object.keys(CORS_APIS), ...Object.keys(PAGES)],
  handle,
};
