import { spotsOf, type SiteModule, type SiteRequest, type SiteResponse, type Spot } from './types.ts';

/**
 * Forms a scanner must submit as a browser does (issue 37): each handler runs only when the
 * request carries what a browser would send, as real applications gate their handlers
 * (`if (isset($_POST['Submit']))`): the clicked submit button's name=value, the selected
 * option, a hidden field sent back (empty or not), the file part of a multipart form, the
 * button's formaction/formmethod. A scanner that drops any of these never reaches the flaw.
 * Nothing here runs SQL or a shell: the vulnerable routes imitate what the flawed code would
 * answer, the safe twin answers as the fixed code would.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string, status = 200): SiteResponse => ({
  status,
  headers: html,
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`,
});

/** The anti-CSRF token every form carries (a fixed one: the fixture has no sessions). */
const TOKEN = '5f1c0a9e7b3d42c8';
const tokenInput = `<input type="hidden" name="user_token" value="${TOKEN}">`;

/** A MySQL syntax error page, as PHP's mysqli shows an uncaught one. */
const mysqlError = (near: string): SiteResponse =>
  page(
    'Error',
    `<b>Fatal error</b>: Uncaught mysqli_sql_exception: You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '${escapeHtml(near)}' at line 1 in /var/www/html/forms.php:12`,
    500,
  );

/** The fields of a request: the query of a GET, the urlencoded or multipart body of a POST (files apart). */
function fieldsOf(request: SiteRequest): { fields: URLSearchParams; files: Map<string, string> } {
  if (request.method !== 'POST') return { fields: request.url.searchParams, files: new Map() };
  const type = request.req.headers['content-type'] ?? '';
  if (type.toLowerCase().startsWith('multipart/form-data')) return readMultipart(request.body, type);
  return { fields: new URLSearchParams(request.body), files: new Map() };
}

/**
 * A plain multipart/form-data reader, written apart from the scanner's own parser on purpose:
 * the fields by name, and the files by field name (their file name). Malformed parts are skipped.
 */
function readMultipart(body: string, contentType: string): { fields: URLSearchParams; files: Map<string, string> } {
  const fields = new URLSearchParams();
  const files = new Map<string, string>();
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (boundary === undefined) return { fields, files };
  for (const part of body.split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const value = part.slice(split + 4).replace(/\r\n$/, '');
    const name = /\bname="([^"]*)"/i.exec(head)?.[1];
    const filename = /\bfilename="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined) continue;
    if (filename === undefined) fields.append(name, value);
    else if (filename !== '') files.set(name, filename);
  }
  return { fields, files };
}

/** The shell separators a naive `sh -c "ping -c 1 $ip"` understands. */
const SHELL_TAIL = /(?:;|\||\$\(|`|&&)\s*(.*?)[)`]?$/;

/** What the shell would print and how long it would take for the command after a separator. */
function shellRun(command: string): { output: string; sleepSeconds: number } {
  const echo = /^echo\s+(\w*)\$\(\((\d+)\*(\d+)\)\)$/.exec(command);
  if (echo !== null) return { output: `${echo[1]}${Number(echo[2]) * Number(echo[3])}`, sleepSeconds: 0 };
  const sleep = /^sleep\s+(\d+)$/.exec(command);
  if (sleep !== null) return { output: '', sleepSeconds: Math.min(10, Number(sleep[1])) };
  return { output: '', sleepSeconds: 0 };
}

/** Guestbook entries, per server (its port): the safe twin's store is its own. */
const guestbooks = new Map<number, Array<{ name: string; message: string }>>();
const guestbookOf = (request: SiteRequest): Array<{ name: string; message: string }> => {
  const port = request.req.socket.localPort ?? 0;
  const book = guestbooks.get(port) ?? [];
  guestbooks.set(port, book);
  return book;
};

const sqliForm = `<form action="/forms/sqli" method="post">${tokenInput}<label>User ID <input type="text" name="id" value="1"></label><input type="submit" name="Submit" value="Submit"></form>`;
const execForm = `<form name="ping" action="/forms/exec" method="post">${tokenInput}<p>Enter an IP address: <input type="text" name="ip" size="30"><input type="submit" name="Submit" value="Submit"></p></form>`;

const routes: Record<string, (request: SiteRequest) => SiteResponse> = {
  // DVWA's SQL injection page: the query runs only when the Submit button was clicked.
  '/forms/sqli': (request) => {
    const { fields } = fieldsOf(request);
    if (request.method !== 'POST' || fields.get('Submit') !== 'Submit') return page('User lookup', sqliForm);
    const id = fields.get('id') ?? '';
    if (request.isSafe)
      return /^\d+$/.test(id)
        ? page('User lookup', `${sqliForm}<pre>ID: ${id}\nFirst name: admin</pre>`)
        : page('User lookup', `${sqliForm}<p>Invalid id</p>`);
    // SELECT first_name FROM users WHERE user_id = '$id'
    if ((id.match(/'/g)?.length ?? 0) % 2 === 1) return mysqlError(`${id.slice(id.indexOf("'"))}'`);
    return page('User lookup', `${sqliForm}<pre>ID: ${escapeHtml(id)}\nFirst name: admin</pre>`);
  },
  // DVWA's command injection page: `ping -c 4 $target` runs only when Submit is set.
  '/forms/exec': (request) => {
    const { fields } = fieldsOf(request);
    if (request.method !== 'POST' || !fields.has('Submit')) return page('Ping a device', execForm);
    const ip = fields.get('ip') ?? '';
    if (request.isSafe && !/^\d{1,3}(?:\.\d{1,3}){3}$/.test(ip))
      return page('Ping a device', `${execForm}<pre>ERROR: You have entered an invalid IP.</pre>`);
    const tail = request.isSafe ? null : SHELL_TAIL.exec(ip);
    const extra = tail === null ? { output: '', sleepSeconds: 0 } : shellRun(tail[1]!.trim());
    return {
      ...page(
        'Ping a device',
        `${execForm}<pre>PING ${escapeHtml(ip.replace(SHELL_TAIL, ''))}: 4 packets transmitted, 4 received\n${extra.output}</pre>`,
      ),
      delayMs: extra.sleepSeconds * 1000,
    };
  },
  // DVWA's stored XSS page: signing needs btnSign=Sign Guestbook; btnClear empties the book.
  '/forms/guestbook': (request) => {
    const { fields } = fieldsOf(request);
    const book = guestbookOf(request);
    if (request.method === 'POST' && fields.get('btnClear') === 'Clear Guestbook') book.length = 0;
    if (request.method === 'POST' && fields.get('btnSign') === 'Sign Guestbook') {
      book.push({ name: fields.get('txtName') ?? '', message: fields.get('mtxMessage') ?? '' });
      // Scanners sign many times: keep the page small.
      if (book.length > 50) book.splice(0, book.length - 50);
      return { status: 303, headers: { location: '/forms/guestbook' }, body: '' };
    }
    const entries = book.map(
      (e) => `<div>Name: ${escapeHtml(e.name)}<br>Message: ${request.isSafe ? escapeHtml(e.message) : e.message}</div>`,
    );
    return page(
      'Guestbook',
      `<form method="post" name="guestform">${tokenInput}<input name="txtName" type="text" size="30" maxlength="10"><textarea name="mtxMessage" cols="50" rows="3" maxlength="50"></textarea>` +
        '<input name="btnSign" type="submit" value="Sign Guestbook"><input name="btnClear" type="submit" value="Clear Guestbook"></form>' +
        entries.join(''),
    );
  },
  // Two buttons, one action: Preview escapes the title, Publish prints it as given.
  '/forms/report': (request) => {
    const { fields } = fieldsOf(request);
    const form = `<form method="post" action="/forms/report">${tokenInput}<input name="title" value="weekly"><button name="preview" value="1">Preview</button><button name="publish" value="1">Publish</button></form>`;
    if (request.method !== 'POST') return page('Report', form);
    const title = fields.get('title') ?? '';
    if (fields.has('publish')) return page('Report', `<p>Published: ${request.isSafe ? escapeHtml(title) : title}</p>`);
    return page('Report', `${form}<p>Preview: ${escapeHtml(title)}</p>`);
  },
  // A select: only the preselected XML export runs the vulnerable query; the first option (CSV) does not.
  '/forms/export': (request) => {
    const form = `<form action="/forms/export" method="get"><input name="q" value="all"><select name="format"><option value="csv">CSV</option><option value="xml" selected>XML</option></select><input type="submit" name="go" value="Export"></form>`;
    const { fields } = fieldsOf(request);
    if (fields.get('go') !== 'Export') return page('Export', form);
    const q = fields.get('q') ?? '';
    if (fields.get('format') !== 'xml') return page('Export', `${form}<p>CSV export queued</p>`);
    // SELECT * FROM items WHERE category = '$q' FOR XML
    if (!request.isSafe && (q.match(/'/g)?.length ?? 0) % 2 === 1) return mysqlError(`${q.slice(q.indexOf("'"))}'`);
    return page('Export', `${form}<pre>&lt;items category="${escapeHtml(q)}"/&gt;</pre>`);
  },
  // A hidden token that must come back as served, and a hidden draft flag that must come back empty.
  '/forms/note': (request) => {
    const { fields } = fieldsOf(request);
    const form = `<form method="post" action="/forms/note">${tokenInput}<input type="hidden" name="draft" value=""><textarea name="note">Remember the milk</textarea><input type="submit" name="save" value="Save"></form>`;
    if (request.method !== 'POST' || fields.get('save') !== 'Save') return page('Notes', form);
    if (fields.get('user_token') !== TOKEN) return page('Notes', '<p>CSRF token is incorrect</p>', 403);
    if (fields.get('draft') !== '') return page('Notes', `${form}<p>Draft kept</p>`);
    const note = fields.get('note') ?? '';
    return page('Notes', `<p>Note published: ${request.isSafe ? escapeHtml(note) : note}</p>`);
  },
  // A multipart upload: the caption is shown unescaped only once a picture was attached.
  '/forms/upload': (request) => {
    const form = `<form method="post" action="/forms/upload" enctype="multipart/form-data">${tokenInput}<input name="caption" value="holiday"><input type="file" name="picture" accept="image/*"><input type="submit" name="upload" value="Upload"></form>`;
    const { fields, files } = fieldsOf(request);
    if (request.method !== 'POST' || fields.get('upload') !== 'Upload') return page('Upload', form);
    const picture = files.get('picture');
    if (picture === undefined) return page('Upload', `${form}<p>No file was attached</p>`);
    const caption = fields.get('caption') ?? '';
    return page(
      'Upload',
      `<p>Received ${escapeHtml(picture)} (not stored), captioned ${request.isSafe ? escapeHtml(caption) : caption}</p>`,
    );
  },
  // The search page: its plain button searches safely; the advanced one posts elsewhere (formaction, formmethod).
  '/forms/search': (request) => {
    const form = `<form action="/forms/search" method="get"><input name="term" value="shoe"><button type="submit">Search</button><button type="submit" name="advanced" value="1" formaction="/forms/search-advanced" formmethod="post">Advanced search</button></form>`;
    const term = fieldsOf(request).fields.get('term');
    return page('Search', term === null ? form : `${form}<p>No result for ${escapeHtml(term)}</p>`);
  },
  '/forms/search-advanced': (request) => {
    const { fields } = fieldsOf(request);
    if (request.method !== 'POST' || fields.get('advanced') !== '1')
      return page('Advanced search', '<p>Use the search page</p>');
    const term = fields.get('term') ?? '';
    // SELECT * FROM products WHERE name LIKE '%$term%'
    if (!request.isSafe && (term.match(/'/g)?.length ?? 0) % 2 === 1)
      return mysqlError(`${term.slice(term.indexOf("'"))}%'`);
    return page('Advanced search', `<p>No product matches ${escapeHtml(term)}</p>`);
  },
};

const spot = spotsOf('injection');

const spots: Spot[] = [
  spot(
    'forms-sqli-submit-button',
    'sql-injection',
    '/forms/sqli?body=id',
    'MariaDB error for a quote in id, only when Submit=Submit is posted (DVWA)',
  ),
  spot(
    'forms-cmdi-submit-button',
    'command-injection',
    '/forms/exec?body=ip',
    'ip goes to a shell, only when the Submit button is posted (DVWA)',
  ),
  spot(
    'forms-stored-xss-sign-button',
    'stored-xss',
    '/forms/guestbook?body=mtxMessage',
    'a message is stored and listed unencoded, only when btnSign=Sign Guestbook is posted (DVWA)',
  ),
  spot(
    'forms-second-button',
    'reflected-xss',
    '/forms/report?body=title',
    'the title is reflected unencoded by the Publish button only, the second of the form',
  ),
  spot(
    'forms-selected-option',
    'sql-injection',
    '/forms/export?q=',
    'MariaDB error for a quote in q, only with the preselected (not the first) option format=xml',
  ),
  spot(
    'forms-hidden-fields',
    'reflected-xss',
    '/forms/note?body=note',
    'the note is reflected unencoded only when the hidden token and the empty hidden draft field come back as served',
  ),
  spot(
    'forms-multipart',
    'reflected-xss',
    '/forms/upload?body=caption',
    'the caption of a multipart form is reflected unencoded only when a file part is attached',
  ),
  spot(
    'forms-formaction',
    'sql-injection',
    '/forms/search-advanced?body=term',
    "MariaDB error for a quote in term, on the handler only the second button's formaction and formmethod reach",
  ),
];

/** The requests the forms routes received, per server (its port), as `METHOD /path?query body`: what a test reads to see what the scanner sent. */
const received = new Map<number, string[]>();

/** The requests the forms routes of the server on `port` received (at most the first 5000). */
export function formsRequestsOf(port: number): readonly string[] {
  return received.get(port) ?? [];
}

/** Records a request to a forms route, then answers it. */
function handle(request: SiteRequest): SiteResponse | undefined {
  const route = routes[request.url.pathname];
  if (route === undefined) return undefined;
  const port = request.req.socket.localPort ?? 0;
  const log = received.get(port) ?? [];
  received.set(port, log);
  if (log.length < 5000) log.push(`${request.method} ${request.url.pathname}${request.url.search} ${request.body}`);
  return route(request);
}

export const formsModule: SiteModule = {
  name: 'forms',
  spots,
  links: [
    '/forms/sqli',
    '/forms/exec',
    '/forms/guestbook',
    '/forms/report',
    '/forms/export',
    '/forms/note',
    '/forms/upload',
    '/forms/search',
  ],
  handle,
};
