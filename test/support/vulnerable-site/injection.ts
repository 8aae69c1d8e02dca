import { posix } from 'node:path';
import type { SiteModule, SiteRequest, SiteResponse, Spot } from './types.ts';

/**
 * The injection spots of the fixture site. Nothing here runs SQL, a shell or a template engine:
 * each vulnerable route imitates what the flawed code would answer (a database error for a
 * quote, a condition that changes the result, a file read outside its directory, a product
 * evaluated, a shell's output or delay), and its safe twin answers as the fixed code would.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string): SiteResponse => ({
  status: 200,
  headers: html,
  body: `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`,
});
const fieldOf = (request: SiteRequest, name: string): string =>
  (request.method === 'POST' ? new URLSearchParams(request.body).get(name) : request.url.searchParams.get(name)) ?? '';

const FAKE_PASSWD =
  'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nwww-data:x:33:33:www-data:/var/www:/usr/sbin/nologin\n';
const DOCS: Record<string, string> = {
  'intro.txt': 'Welcome to the fixture shop.',
  'faq.txt': 'Questions and answers.',
};
/** The shell separators the command routes understand, as a naive `sh -c "ping $host"` would. */
const SHELL_TAIL = /(?:;|\||\$\(|`|&&)\s*(.*?)[)`]?$/;

function shellRun(command: string): { output: string; sleepSeconds: number } {
  const echo = /^echo\s+(\w*)\$\(\((\d+)\*(\d+)\)\)$/.exec(command);
  if (echo !== null) return { output: `${echo[1]}${Number(echo[2]) * Number(echo[3])}`, sleepSeconds: 0 };
  const sleep = /^sleep\s+(\d+)$/.exec(command);
  if (sleep !== null) return { output: '', sleepSeconds: Math.min(10, Number(sleep[1])) };
  return { output: '', sleepSeconds: 0 };
}

const routes: Record<string, (request: SiteRequest) => SiteResponse> = {
  '/sqli/item': (request) => {
    const id = fieldOf(request, 'id');
    if (request.isSafe)
      return /^\d+$/.test(id)
        ? page('Item', `<p>Item ${id}: Blue shoe</p>`)
        : { status: 400, headers: html, body: '<p>Invalid id</p>' };
    if (/['"]/.test(id)) {
      return {
        status: 500,
        headers: html,
        body: "<p>You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near ''' at line 1</p>",
      };
    }
    return page('Item', `<p>Item ${escapeHtml(id)}: Blue shoe</p>`);
  },
  '/sqli/search-form': () =>
    page(
      'Search',
      '<form method="post" action="/sqli/search"><input name="q" value="shoe"><input type="submit" value="Search"></form>',
    ),
  '/sqli/search': (request) => {
    const q = fieldOf(request, 'q');
    if (!request.isSafe && q.includes("'"))
      return {
        status: 500,
        headers: html,
        body: '<pre>ERROR:  unterminated quoted string at or near "\'" LINE 1: SELECT * FROM products WHERE name = ...</pre>',
      };
    return page('Search', `<p>Results for ${escapeHtml(q)}: none</p>`);
  },
  '/sqli/product': (request) => {
    const name = fieldOf(request, 'name');
    const product = page('Product', '<p>Product: shoe, a blue shoe</p>');
    const none = page('Product', `<p>No product named ${escapeHtml(name)}</p>`);
    if (request.isSafe) return name === 'shoe' ? product : none;
    // WHERE name = '${name}': the condition after the quote decides; a lone quote finds nothing.
    const condition = /^(.*)' AND '(\d+)'='(\d+)$/.exec(name);
    if (condition !== null)
      return condition[1] === 'shoe' && condition[2] === condition[3] ? product : page('Product', '<p>No product</p>');
    return name === 'shoe' ? product : page('Product', '<p>No product</p>');
  },
  '/docs/view': (request) => {
    const file = fieldOf(request, 'file');
    if (request.isSafe)
      return file in DOCS
        ? page('Doc', `<pre>${DOCS[file]}</pre>`)
        : { status: 404, headers: html, body: '<p>No such document</p>' };
    const resolved = file.startsWith('/') ? posix.normalize(file) : posix.normalize(`/var/www/docs/${file}`);
    if (resolved === '/etc/passwd')
      return { status: 200, headers: { 'content-type': 'text/plain' }, body: FAKE_PASSWD };
    const name = posix.basename(resolved);
    return name in DOCS
      ? page('Doc', `<pre>${DOCS[name]}</pre>`)
      : { status: 404, headers: html, body: '<p>No such document</p>' };
  },
  '/go': (request) => {
    const next = fieldOf(request, 'next');
    const isLocal = next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\');
    // As web frameworks do (Express's encodeurl, Werkzeug's iri_to_uri): bytes a header cannot carry are percent-encoded.
    const location = (request.isSafe && !isLocal ? '/' : next || '/').replace(/[^\x21-\x7e]/g, (c) =>
      encodeURIComponent(c),
    );
    return { status: 302, headers: { location }, body: '' };
  },
  '/welcome': () => page('Welcome', '<p>Welcome back</p>'),
  '/greet': (request) => {
    const name = fieldOf(request, 'name');
    if (request.isSafe) return page('Greeting', `<p>Hello ${escapeHtml(name)}</p>`);
    // render_template_string("Hello " + name): expressions are evaluated.
    const rendered = name.replace(/\{\{\s*(\d+)\s*\*\s*(\d+)\s*\}\}/g, (_m, a: string, b: string) =>
      String(Number(a) * Number(b)),
    );
    return page('Greeting', `<p>Hello ${escapeHtml(rendered)}</p>`);
  },
  '/tools/ping-form': () =>
    page(
      'Ping',
      '<form method="post" action="/tools/ping"><input name="host" value="127.0.0.1"><input type="submit" value="Ping"></form>',
    ),
  '/tools/ping': (request) => {
    const host = fieldOf(request, 'host');
    if (request.isSafe && !/^\d{1,3}(?:\.\d{1,3}){3}$/.test(host)) return page('Ping', '<p>Invalid host</p>');
    const tail = request.isSafe ? null : SHELL_TAIL.exec(host);
    const extra = tail === null ? { output: '', sleepSeconds: 0 } : shellRun(tail[1]!.trim());
    return {
      ...page(
        'Ping',
        `<pre>PING ${escapeHtml(host.replace(SHELL_TAIL, ''))}: 1 packet transmitted, 1 received\n${extra.output}</pre>`,
      ),
      delayMs: extra.sleepSeconds * 1000,
    };
  },
  '/tools/lookup': (request) => {
    const domain = fieldOf(request, 'domain');
    if (request.isSafe && !/^[a-z0-9.-]+$/i.test(domain)) return page('Lookup', '<p>Invalid domain</p>');
    const tail = request.isSafe ? null : SHELL_TAIL.exec(domain);
    // The output of the command is not shown: only its time tells.
    const extra = tail === null ? { output: '', sleepSeconds: 0 } : shellRun(tail[1]!.trim());
    return { ...page('Lookup', '<p>Lookup done</p>'), delayMs: extra.sleepSeconds * 1000 };
  },
  '/hello': (request) => {
    const who = fieldOf(request, 'who');
    return page('Hello', `<p>Hello ${request.isSafe ? escapeHtml(who) : who}</p>`);
  },
};

/** /shop/item/ID: the id goes into SQL unquoted on the vulnerable site. */
function shopItem(request: SiteRequest): SiteResponse | undefined {
  const match = /^\/shop\/item\/([^/]+)$/.exec(request.url.pathname);
  if (match === null) return undefined;
  const id = decodeURIComponent(match[1]!);
  if (/^\d+$/.test(id)) return page('Shop item', `<p>Shop item ${id}</p>`);
  if (request.isSafe) return { status: 404, headers: html, body: '<p>Not found</p>' };
  return { status: 500, headers: html, body: `<p>SQLITE_ERROR: unrecognized token: "${escapeHtml(id)}"</p>` };
}

const spots: Spot[] = [
  {
    id: 'sqli-error-query',
    class: 'injection',
    checkId: 'sql-injection',
    location: '/sqli/item?id=',
    description: 'MySQL error for a quote in the id query parameter',
  },
  {
    id: 'sqli-error-post',
    class: 'injection',
    checkId: 'sql-injection',
    location: '/sqli/search?body=q',
    description: 'PostgreSQL error for a quote in the POSTed q field',
  },
  {
    id: 'sqli-boolean',
    class: 'injection',
    checkId: 'sql-injection',
    location: '/sqli/product?name=',
    description: 'boolean-blind: a true condition finds the product, a false one nothing, no error shown',
  },
  {
    id: 'sqli-error-path',
    class: 'injection',
    checkId: 'sql-injection',
    location: '/shop/item/{}',
    description: 'SQLite error for a quote in the id path segment',
  },
  {
    id: 'path-traversal',
    class: 'injection',
    checkId: 'path-traversal',
    location: '/docs/view?file=',
    description: '../ in the file parameter reads /etc/passwd',
  },
  {
    id: 'open-redirect',
    class: 'injection',
    checkId: 'open-redirect',
    location: '/go?next=',
    description: 'next redirects to any absolute URL',
  },
  {
    id: 'ssti',
    class: 'injection',
    checkId: 'template-injection',
    location: '/greet?name=',
    description: '{{a*b}} in name is evaluated',
  },
  {
    id: 'cmdi-output',
    class: 'injection',
    checkId: 'command-injection',
    location: '/tools/ping?body=host',
    description: 'the POSTed host goes to a shell whose output is shown',
  },
  {
    id: 'cmdi-time',
    class: 'injection',
    checkId: 'command-injection',
    location: '/tools/lookup?domain=',
    description: 'the domain goes to a shell whose output is hidden: only a delay tells',
  },
  {
    id: 'xss-query',
    class: 'injection',
    checkId: 'reflected-xss',
    location: '/hello?who=',
    description: 'who is reflected unencoded in the HTML body',
  },
];

export const injectionModule: SiteModule = {
  name: 'injection',
  spots,
  links: [
    '/sqli/item?id=1',
    '/sqli/search-form',
    '/sqli/product?name=shoe',
    '/shop/item/42',
    '/docs/view?file=intro.txt',
    '/go?next=/welcome',
    '/greet?name=guest',
    '/tools/ping-form',
    '/tools/lookup?domain=example.com',
    '/hello?who=you',
  ],
  handle: (request) => routes[request.url.pathname]?.(request) ?? shopItem(request),
};
