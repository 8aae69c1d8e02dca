import type { SiteModule, SiteRequest, SiteResponse, Spot } from './types.ts';

/**
 * The spots of the fixture site that only a browser finds (issue 37, JavaScript-rendered
 * crawling): every spot here `needs: 'javascript'`, and manifest() leaves them out unless asked.
 *
 * - /dom/app is a single-page app whose menu is Markdown fetched and rendered by its script, and
 *   whose feedback form is built by the script from string pieces: a static crawler sees no URL
 *   of /dom/ledger or /dom/feedback, two pages that reflect a parameter unencoded (reflected XSS
 *   the static checks find once a rendered link leads there).
 * - /dom/hash writes the URL fragment into innerHTML; /dom/welcome writes the `name` query
 *   parameter with document.write. Their server answers never reflect anything: only a payload
 *   that runs in a browser shows the flaw.
 *
 * The safe twin renders the same menu and form, but the reflecting pages encode, /dom/hash uses
 * textContent and /dom/welcome encodes before document.write. The scripts carry the nonce of the
 * safe twin's Content-Security-Policy (fixtureSecurityHeaders), so that they run on both twins.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string): SiteResponse => ({
  status: 200,
  headers: html,
  body: `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`,
});

/** The app's menu, as its content team writes it: Markdown, never read by a static crawler. */
const MENU_MARKDOWN = `# Back office

- [Ledger](/dom/ledger?note=welcome)
- [Help](/dom/hash#intro)
`;

/** Renders the Markdown menu into links and builds the feedback form; no URL of either is a literal. */
const APP_SCRIPT = `
  fetch('/dom/menu' + '.md').then((r) => r.text()).then((text) => {
    const nav = document.getElementById('menu');
    for (const m of text.matchAll(/\\[([^\\]]+)\\]\\(([^)]+)\\)/g)) {
      const a = document.createElement('a');
      a.textContent = m[1];
      a.setAttribute('href', m[2]);
      nav.append(a, ' ');
    }
  });
  const form = document.createElement('form');
  form.method = 'get';
  form.action = ['', 'dom', 'feed' + 'back'].join('/');
  const input = document.createElement('input');
  input.name = 'topic';
  input.value = 'billing';
  form.append(input);
  document.body.append(form);
`;

const HASH_SCRIPT = (isSafe: boolean): string => `
  const section = decodeURIComponent(location.hash.slice(1));
  document.getElementById('out').${isSafe ? 'textContent' : 'innerHTML'} = 'Section: ' + section;
`;

const WELCOME_SCRIPT = (isSafe: boolean): string => `
  const name = new URLSearchParams(location.search).get('name') || 'guest';
  const encode = (s) => s.replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');
  document.write('<p>Hello ' + ${isSafe ? 'encode(name)' : 'name'} + '</p>');
`;

const routes: Record<string, (request: SiteRequest) => SiteResponse> = {
  '/dom/app': () =>
    page('Back office', `<h1>Back office</h1><nav id="menu"></nav><script nonce="fixture2026">${APP_SCRIPT}</script>`),
  '/dom/menu.md': () => ({
    status: 200,
    headers: { 'content-type': 'text/markdown; charset=utf-8' },
    body: MENU_MARKDOWN,
  }),
  '/dom/ledger': (request) => {
    const note = request.url.searchParams.get('note') ?? '';
    return page('Ledger', `<h1>Ledger</h1><p>Note: ${request.isSafe ? escapeHtml(note) : note}</p>`);
  },
  '/dom/feedback': (request) => {
    const topic = request.url.searchParams.get('topic') ?? '';
    return page('Feedback', `<h1>Feedback</h1><p>Topic: ${request.isSafe ? escapeHtml(topic) : topic}</p>`);
  },
  '/dom/hash': (request) =>
    page(
      'Help',
      `<h1>Help</h1><div id="out"></div><script nonce="fixture2026">${HASH_SCRIPT(request.isSafe)}</script>`,
    ),
  '/dom/welcome': (request) =>
    page('Welcome', `<h1>Welcome</h1><script nonce="fixture2026">${WELCOME_SCRIPT(request.isSafe)}</script>`),
};

const jsSpot = (id: string, checkId: string, location: string, description: string): Spot => ({
  id,
  class: 'injection',
  checkId,
  location,
  description,
  needs: 'javascript',
});

const spots: Spot[] = [
  jsSpot(
    'js-menu-xss',
    'reflected-xss',
    '/dom/ledger?note=',
    'note is reflected unencoded; the page is linked only from a menu rendered by JavaScript from Markdown',
  ),
  jsSpot(
    'js-form-xss',
    'reflected-xss',
    '/dom/feedback?topic=',
    'topic is reflected unencoded; the form leading there is built by JavaScript from string pieces',
  ),
  jsSpot('dom-xss-hash', 'dom-xss', '/dom/hash#', 'the URL fragment is written into innerHTML'),
  jsSpot('dom-xss-query', 'dom-xss', '/dom/welcome?name=', 'the name query parameter is written with document.write'),
];

export const domModule: SiteModule = {
  name: 'dom',
  spots,
  links: ['/dom/app', '/dom/hash', '/dom/welcome?name=guest'],
  handle(request) {
    return routes[request.url.pathname]?.(request);
  },
};
