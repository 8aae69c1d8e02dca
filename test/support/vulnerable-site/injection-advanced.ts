import http from 'node:http';
import { spotsOf, type SiteModule, type SiteRequest, type SiteResponse, type Spot } from './types.ts';

/**
 * The XXE, CRLF, SSRF and stored-XSS spots of the fixture site. Nothing here parses XML with a
 * real parser or fetches the internet: the vulnerable routes imitate the flawed code (entities
 * expanded, a parameter written raw into a header, a URL fetched, a comment stored and shown
 * raw) and the safe twin answers as the fixed code would. The only requests the fixture makes
 * go to 127.0.0.1 (the scanner's canary in the tests): any other URL is never fetched.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const document = (title: string, body: string): string =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
const page = (title: string, body: string, status = 200): SiteResponse => ({
  status,
  headers: html,
  body: document(title, body),
});
const fieldOf = (request: SiteRequest, name: string): string =>
  (request.method === 'POST' ? new URLSearchParams(request.body).get(name) : request.url.searchParams.get(name)) ?? '';

const FAKE_PASSWD =
  'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nwww-data:x:33:33:www-data:/var/www:/usr/sbin/nologin\n';
/** Hosts the safe twin's fetchers accept; nothing is fetched from them either (a fixed answer). */
const CDN_HOST = 'cdn.fixture.example';
const HOOKS_HOST = 'hooks.fixture.example';

/**
 * An HTTP/1.1 response written by hand. Header text is narrowed to one byte per character
 * (latin1), as a naive writer does: U+560D U+560A become CR LF.
 */
function rawResponse(status: number, reason: string, headers: Array<[string, string]>, body: string): Buffer {
  const content = Buffer.from(body, 'utf8');
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
    `content-length: ${content.length}`,
    'connection: close',
  ];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), content]);
}

/** Fetches an http://127.0.0.1 URL and counts its bytes (-1: failed or not allowed); never any other host. */
function fetchLocal(url: string): Promise<number> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(-1);
  }
  if (target.protocol !== 'http:' || target.hostname !== '127.0.0.1') return Promise.resolve(-1);
  return new Promise((resolve) => {
    const req = http.get(
      target,
      { agent: false, timeout: 2000, headers: { 'user-agent': 'fixture-fetcher/1.0' } },
      (res) => {
        let size = 0;
        res.on('data', (chunk: Buffer) => (size += chunk.length));
        res.on('end', () => resolve(size));
        res.on('error', () => resolve(-1));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(-1));
  });
}

/** What a naive parser does with the external entities of a document: file:///etc/passwd read, http://127.0.0.1 fetched (in the background). */
function expandEntities(xml: string): string {
  const entities = new Map<string, string>();
  for (const [, name, systemId] of xml.matchAll(/<!ENTITY\s+([\w.-]+)\s+SYSTEM\s+"([^"]*)"\s*>/g)) {
    if (systemId === 'file:///etc/passwd') entities.set(name!, FAKE_PASSWD);
    else {
      void fetchLocal(systemId!);
      entities.set(name!, '');
    }
  }
  return xml.replace(/&([\w.-]+);/g, (whole, name: string) => entities.get(name) ?? whole);
}

const hasDtd = (xml: string): boolean => /<!DOCTYPE|<!ENTITY/i.test(xml);

/** Comments of the guestbook, per server (its port): the safe twin's store is its own. */
const guestbooks = new Map<number, Array<{ name: string; comment: string }>>();
const guestbookOf = (request: SiteRequest): Array<{ name: string; comment: string }> => {
  const port = request.req.socket.localPort ?? 0;
  const book = guestbooks.get(port) ?? [];
  guestbooks.set(port, book);
  return book;
};

const routes: Record<string, (request: SiteRequest) => SiteResponse> = {
  '/xml/import-form': () =>
    page(
      'Import',
      `<form method="post" action="/xml/import"><input type="hidden" name="doc" value="${escapeHtml('<order><item>shoe</item></order>')}"><input type="submit" value="Import"></form>`,
    ),
  '/xml/import': (request) => {
    const doc = fieldOf(request, 'doc');
    if (request.isSafe && hasDtd(doc)) return page('Import', '<p>Documents with a DOCTYPE are not accepted</p>', 400);
    const item = /<item>([\s\S]*?)<\/item>/.exec(request.isSafe ? doc : expandEntities(doc))?.[1];
    return item === undefined
      ? page('Import', '<p>No order in the document</p>', 400)
      : page('Import', `<p>Imported 1 order, item:</p><pre>${escapeHtml(item)}</pre>`);
  },
  '/orders/new': () =>
    page(
      'New order',
      '<form method="post" action="/orders/submit"><input name="item" value="shoe"><input type="number" name="qty" value="1"><input type="submit" value="Order"></form>',
    ),
  '/orders/submit': (request) => {
    // The endpoint also takes XML orders (content negotiation); they are parsed and not echoed.
    const isXml = /xml/i.test(request.req.headers['content-type'] ?? '') || request.body.trimStart().startsWith('<');
    if (!isXml)
      return page(
        'Order',
        `<p>Order accepted: ${escapeHtml(fieldOf(request, 'qty'))} x ${escapeHtml(fieldOf(request, 'item'))}</p>`,
      );
    if (request.isSafe && hasDtd(request.body))
      return page('Order', '<p>Documents with a DOCTYPE are not accepted</p>', 400);
    if (!request.isSafe) expandEntities(request.body);
    return page('Order', '<p>Order accepted</p>');
  },
  '/locale': (request) => {
    const lang = fieldOf(request, 'lang');
    if (request.isSafe)
      return { status: 302, headers: { location: `/welcome?lang=${encodeURIComponent(lang)}` }, body: '' };
    // The language goes into Location as it came (decoded): a CR LF in it starts a new header.
    return { status: 302, raw: rawResponse(302, 'Found', [['location', `/welcome?lang=${lang}`]], '') };
  },
  '/export': (request) => {
    const name = fieldOf(request, 'name') || 'report.csv';
    const csv = 'item,qty\nshoe,1\n';
    if (request.isSafe)
      return {
        status: 200,
        headers: {
          'content-type': 'text/csv',
          'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
        },
        body: csv,
      };
    // CR and LF are stripped, but the header is written one byte per character: U+560D U+560A still split it.
    const stripped = name.replace(/[\r\n]/g, '');
    return {
      status: 200,
      raw: rawResponse(
        200,
        'OK',
        [
          ['content-type', 'text/csv'],
          ['content-disposition', `attachment; filename="${stripped}"`],
        ],
        csv,
      ),
    };
  },
  '/media/preview': (request) => {
    const url = fieldOf(request, 'url');
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return page('Preview', '<p>Invalid URL</p>', 400);
    }
    if (host === CDN_HOST) return page('Preview', `<p>Preview of ${escapeHtml(url)}: fetched 2048 bytes</p>`);
    if (request.isSafe) return page('Preview', '<p>Only images of the CDN can be previewed</p>', 400);
    const answer = fetchLocal(url).then((size) =>
      rawResponse(
        200,
        'OK',
        [['content-type', 'text/html; charset=utf-8']],
        document(
          'Preview',
          size < 0
            ? `<p>Could not fetch ${escapeHtml(url)}</p>`
            : `<p>Preview of ${escapeHtml(url)}: fetched ${size} bytes</p>`,
        ),
      ),
    );
    return { status: 200, raw: answer };
  },
  '/hooks/form': () =>
    page(
      'Webhooks',
      `<form method="post" action="/hooks/test"><input type="url" name="callback" value="https://${HOOKS_HOST}/deliver"><input name="event" value="order.created"><input type="submit" value="Send a test delivery"></form>`,
    ),
  '/hooks/test': (request) => {
    const callback = fieldOf(request, 'callback');
    let host = '';
    try {
      host = new URL(callback).hostname;
    } catch {
      // an invalid URL is answered like a refused host
    }
    if (request.isSafe && host !== HOOKS_HOST)
      return page('Webhooks', '<p>Deliveries go to the registered hooks host only</p>', 400);
    // A queued delivery: the fetch happens after the answer (blind SSRF).
    if (!request.isSafe) setTimeout(() => void fetchLocal(callback), 300).unref();
    return page('Webhooks', '<p>Test delivery queued</p>');
  },
  '/guestbook': (request) => {
    const entries = guestbookOf(request).map(
      (e) => `<li><b>${escapeHtml(e.name)}</b>: ${request.isSafe ? escapeHtml(e.comment) : e.comment}</li>`,
    );
    return page(
      'Guestbook',
      `<ul>${entries.join('')}</ul><form method="post" action="/guestbook/sign"><input name="name" value="Guest"><textarea name="comment"></textarea><input type="submit" value="Sign"></form>`,
    );
  },
  '/guestbook/sign': (request) => {
    const comment = fieldOf(request, 'comment');
    if (request.method === 'POST' && comment !== '') {
      const book = guestbookOf(request);
      book.push({ name: fieldOf(request, 'name'), comment });
      // Scanners sign many times: keep the page small.
      if (book.length > 50) book.splice(0, book.length - 50);
    }
    return { status: 303, headers: { location: '/guestbook' }, body: '' };
  },
};

const spot = spotsOf('injection');

const spots: Spot[] = [
  spot(
    'xxe-in-band',
    'xml-external-entity',
    '/xml/import?body=doc',
    'the POSTed doc field is parsed with external entities expanded: file:///etc/passwd shows in the imported item',
  ),
  spot(
    'xxe-blind-body',
    'xml-external-entity',
    '/orders/submit',
    'the order endpoint also parses an application/xml body, expanding entities without echoing them: only a fetch of the canary tells',
  ),
  spot(
    'crlf-location',
    'crlf-injection',
    '/locale?lang=',
    'lang is written into the Location header raw: CR LF starts a header',
  ),
  spot(
    'crlf-unicode',
    'crlf-injection',
    '/export?name=',
    'name goes into Content-Disposition with CR LF stripped, but written one byte per character: U+560D U+560A split it',
  ),
  spot(
    'ssrf-fetch',
    'server-side-request-forgery',
    '/media/preview?url=',
    'the url parameter is fetched by the server, which shows the size it got',
  ),
  spot(
    'ssrf-webhook-blind',
    'server-side-request-forgery',
    '/hooks/test?body=callback',
    'the POSTed callback URL is fetched after the answer (a queued webhook delivery)',
  ),
  spot(
    'stored-xss-guestbook',
    'stored-xss',
    '/guestbook/sign?body=comment',
    'a signed comment is listed unencoded on /guestbook',
  ),
];

export const injectionAdvancedModule: SiteModule = {
  name: 'injection-advanced',
  spots,
  links: [
    '/xml/import-form',
    '/orders/new',
    '/locale?lang=en',
    '/export?name=report.csv',
    `/media/preview?url=http://${CDN_HOST}/logo.png`,
    '/hooks/form',
    '/guestbook',
  ],
  handle: (request) => routes[request.url.pathname]?.(request),
};
