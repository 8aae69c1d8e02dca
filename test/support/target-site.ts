import http from 'node:http';
import https from 'node:https';
import { listenTracked, selfSignedCertificate } from './http-server.ts';

/** One request a target server received. */
export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** performance.now() when the request arrived. */
  at: number;
}

/** A running fixture server on 127.0.0.1 and what reached it. */
export interface TargetServer {
  port: number;
  /** `http://127.0.0.1:PORT` (or https). */
  origin: string;
  scheme: 'http' | 'https';
  requests: ReceivedRequest[];
  /** TCP connections accepted (before any byte, TLS included). */
  connections: number;
  stop(): Promise<void>;
}

/** A vulnerable site and its safe twin with the same pages. */
export interface TargetSites {
  vulnerable: TargetServer;
  safe: TargetServer;
  /** From now on the vulnerable site answers this path as its safe twin does (a fix deployed). */
  harden(path: string): void;
  stop(): Promise<void>;
}

/** Answers one request of a target server (the URL parsed against a placeholder origin). */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => void;

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Serves `handler` on 127.0.0.1 (a free port), recording every request and connection. */
export async function serve(scheme: 'http' | 'https', handler: Handler): Promise<TargetServer> {
  const server = scheme === 'https' ? https.createServer(selfSignedCertificate()) : http.createServer();
  const requests: ReceivedRequest[] = [];
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    requests.push({ method: req.method ?? '?', path: req.url ?? '/', headers: req.headers, at: performance.now() });
    handler(req, res, new URL(req.url ?? '/', 'http://site.invalid'));
  });
  const tracked = await listenTracked(server);
  return {
    port: tracked.port,
    origin: `${scheme}://127.0.0.1:${tracked.port}`,
    scheme,
    requests,
    get connections() {
      return tracked.connections;
    },
    stop: tracked.stop,
  };
}

const INDEX = `<!doctype html><html><head><title>Shop</title><link rel="stylesheet" href="/static/site.css"><script src="/static/app.js"></script></head>
<body><h1>Shop</h1>
<a href="/search?q=shoes">Search shoes</a> <a href="/files/readme.txt">Readme</a> <a href="/account">Account</a>
<a href="/about#team">About</a> <a href="/redirect">Old link</a> <a href="/admin/secret">Admin</a> <a href="/app/page">App</a>
<a href="https://outside.invalid/">Elsewhere</a>
<form action="/find" method="get"><input name="term"><input type="submit" value="Find"></form>
<form action="/login" method="post"><input name="user"></form>
</body></html>`;

const page = (title: string, body: string): string =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}<a href="/">Home</a></body></html>`;

const LISTING = `<!doctype html><html><head><title>Index of /files/</title></head><body><h1>Index of /files/</h1><hr><pre>
<a href="../">../</a>
<a href="readme.txt">readme.txt</a>                                         01-Jan-2026 00:00                  42
<a href="backup.sql">backup.sql</a>                                         01-Jan-2026 00:00               10240
</pre><hr></body></html>`;

/** The shared page structure; `isSafe` picks the hardened answer of each vulnerable page. */
function siteHandler(
  isSiteSafe: boolean,
  scheme: 'http' | 'https',
  hardened: ReadonlySet<string> = new Set(),
): Handler {
  return (_req, res, url) => {
    const isSafe = isSiteSafe || hardened.has(url.pathname);
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
    if (isSafe) {
      headers['content-security-policy'] = "default-src 'self'; frame-ancestors 'none'";
      headers['x-frame-options'] = 'DENY';
      headers['x-content-type-options'] = 'nosniff';
      headers['referrer-policy'] = 'strict-origin-when-cross-origin';
      if (scheme === 'https') headers['strict-transport-security'] = 'max-age=31536000';
    }
    const send = (status: number, body: string, extra: Record<string, string | string[]> = {}): void => {
      res.writeHead(status, { ...headers, ...extra }).end(body);
    };
    const notFound = (): void =>
      isSafe
        ? send(200, page('Not found', '<p>Sorry, that page does not exist.</p>'))
        : send(404, page('Not found', '<p>404</p>'));
    switch (url.pathname) {
      case '/':
        return send(200, INDEX);
      case '/search': {
        const q = url.searchParams.get('q') ?? '';
        return send(200, page('Search', `<p>Results for ${isSafe ? escapeHtml(q) : q}</p>`));
      }
      case '/find': {
        const term = url.searchParams.get('term') ?? '';
        return send(200, page('Find', `<p>Nothing found for <b>${escapeHtml(term)}</b></p>`));
      }
      case '/files/readme.txt':
        return send(200, 'Read me.\n', { 'content-type': 'text/plain' });
      case '/files/':
        return isSafe ? send(403, page('Forbidden', '<p>Forbidden</p>')) : send(200, LISTING);
      case '/account': {
        const cookie = isSafe ? 'session=abc123; Path=/; Secure; HttpOnly; SameSite=Lax' : 'session=abc123; Path=/';
        return send(200, page('Account', '<p>Welcome</p>'), { 'set-cookie': [cookie] });
      }
      case '/.git/HEAD':
        return isSafe ? notFound() : send(200, 'ref: refs/heads/main\n', { 'content-type': 'text/plain' });
      case '/redirect':
        return send(302, '', { location: '/moved' });
      case '/moved':
        return send(200, page('Moved', '<p>Moved here</p>'));
      case '/about':
        return send(200, page('About', '<p>About us</p>'));
      case '/admin/secret':
        return send(200, page('Admin', '<p>Secret</p>'));
      case '/app/page':
        return send(200, page('App', '<a href="/app/inner">Inner</a>'));
      case '/app/inner':
        return send(200, page('Inner', '<p>Inner</p>'));
      case '/static/site.css':
        return send(200, 'body{}', { 'content-type': 'text/css' });
      case '/static/app.js':
        return send(200, 'void 0;', { 'content-type': 'application/javascript' });
      default:
        return notFound();
    }
  };
}

/**
 * Starts a vulnerable site and its safe twin on 127.0.0.1 (HTTP, or HTTPS with a self-signed
 * certificate). Each of the five checks has a vulnerable page and its hardened twin: missing vs
 * full security headers, a cookie without vs with Secure/HttpOnly/SameSite, an auto-index of
 * /files/ vs a 403, /.git/HEAD as a real HEAD vs a 200 soft-404, /search?q= raw vs escaped.
 */
export async function startTargetSite(options: { isHttps?: boolean } = {}): Promise<TargetSites> {
  const scheme = options.isHttps === true ? 'https' : 'http';
  const hardened = new Set<string>();
  const vulnerable = await serve(scheme, siteHandler(false, scheme, hardened));
  const safe = await serve(scheme, siteHandler(true, scheme));
  return {
    vulnerable,
    safe,
    harden: (path) => hardened.add(path),
    stop: async () => {
      await Promise.all([vulnerable.stop(), safe.stop()]);
    },
  };
}

/**
 * Starts a site of `pages` linked pages (/ and /p/1 … /p/N-1); page i links to 2i+1, 2i+2 and back.
 * `delayMs` holds each answer back that long (a scan of it then lasts long enough to be caught running).
 */
export function startGeneratedSite(pages: number, options: { delayMs?: number } = {}): Promise<TargetServer> {
  const pathOf = (i: number): string => (i === 0 ? '/' : `/p/${i}`);
  return serve('http', async (_req, res, url) => {
    if (options.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    const i = url.pathname === '/' ? 0 : Number(/^\/p\/(\d+)$/.exec(url.pathname)?.[1] ?? NaN);
    if (!Number.isInteger(i) || i < 0 || i >= pages) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const targets = [2 * i + 1, 2 * i + 2, Math.floor((i - 1) / 2), (i * 7 + 3) % pages].filter(
      (t) => t >= 0 && t < pages && t !== i,
    );
    const links = targets.map((t) => `<a href="${pathOf(t)}">page ${t}</a>`).join(' ');
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<!doctype html><html><head><title>Page ${i}</title></head><body><h1>Page ${i}</h1>${links}</body></html>`);
  });
}
