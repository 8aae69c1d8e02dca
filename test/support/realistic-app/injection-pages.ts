/**
 * The realistic application's injection pages, written in the manner of DVWA's `low` sources:
 * handlers that run only when the clicked button's name is present (`isset($_GET['Submit'])`),
 * SQL concatenated into MariaDB statements, a ping through an (emulated) shell, a guestbook and
 * an echo without encoding, a file include and a redirect without confinement, an expression
 * evaluated as code. The safe twin binds, validates and encodes.
 */
import {
  escapeHtml,
  formFields,
  hasValidToken,
  html,
  layout,
  redirect,
  tokenInput,
  type AppRequest,
  type AppResponse,
  type Page,
} from './app-kit.ts';
import { emulateShell, evaluateExpression, readServerFile } from './emulation.ts';

/** PHP 8's page for an uncaught mysqli_sql_exception, with the driver's own message. */
const uncaughtMysqli = (message: string, file: string): string =>
  `<br />\n<b>Fatal error</b>:  Uncaught mysqli_sql_exception: ${escapeHtml(message)} in ${file}:11\nStack trace:\n#0 ${file}(11): mysqli_query(Object(mysqli), 'SELECT first_na...')\n#1 /var/www/html/vulnerabilities/sqli/index.php(34): require_once('/var/www/html/v...')\n#2 {main}\n  thrown in <b>${file}</b> on line <b>11</b><br />\n`;

const sqliForm = (request: AppRequest, action: string): string =>
  `<div class="vulnerable_code_area"><form action="${action}" method="GET"><p>User ID: <input type="text" size="15" name="id">
<input type="submit" name="Submit" value="Submit">${tokenInput(request)}</p></form>`;

async function sqli(request: AppRequest): Promise<AppResponse> {
  const title = 'Vulnerability: SQL Injection';
  let output = '';
  const id = request.url.searchParams.get('id');
  if (request.url.searchParams.has('Submit') && id !== null) {
    if (request.isSafe) {
      if (!hasValidToken(request)) output = '<pre>CSRF token is incorrect</pre>';
      else if (/^\d+$/.test(id)) {
        const rows = await request.state.db.userById(Number(id));
        output = rows
          .map(
            (r) =>
              `<pre>ID: ${escapeHtml(id)}<br />First name: ${escapeHtml(r.first_name)}<br />Surname: ${escapeHtml(r.last_name)}</pre>`,
          )
          .join('');
      }
    } else {
      try {
        const rows = await request.state.db.unsafeQuery(
          `SELECT first_name, last_name FROM ra_users WHERE user_id = '${id}';`,
        );
        output = rows
          .map((r) => `<pre>ID: ${id}<br />First name: ${r.first_name}<br />Surname: ${r.last_name}</pre>`)
          .join('');
      } catch (err) {
        return html(uncaughtMysqli((err as Error).message, '/var/www/html/vulnerabilities/sqli/source/low.php'), 500);
      }
    }
  }
  return html(layout(request, title, `${sqliForm(request, '/vulnerabilities/sqli/')}${output}</div>`));
}

async function sqliBlind(request: AppRequest): Promise<AppResponse> {
  const title = 'Vulnerability: SQL Injection (Blind)';
  const id = request.url.searchParams.get('id');
  if (!request.url.searchParams.has('Submit') || id === null)
    return html(layout(request, title, `${sqliForm(request, '/vulnerabilities/sqli_blind/')}</div>`));
  let exists = false;
  if (request.isSafe)
    exists = hasValidToken(request) && /^\d+$/.test(id) && (await request.state.db.userById(Number(id))).length > 0;
  else {
    try {
      const rows = await request.state.db.unsafeQuery(
        `SELECT first_name, last_name FROM ra_users WHERE user_id = '${id}';`,
      );
      exists = rows.length > 0;
    } catch {
      // Errors are swallowed, as in the PHP: `@mysqli_query`, then "MISSING".
      exists = false;
    }
  }
  const message = exists ? 'User ID exists in the database.' : 'User ID is MISSING from the database.';
  return html(
    layout(request, title, `${sqliForm(request, '/vulnerabilities/sqli_blind/')}<pre>${message}</pre></div>`),
    exists ? 200 : 404,
  );
}

function exec(request: AppRequest): AppResponse {
  const title = 'Vulnerability: Command Injection';
  let output = '';
  let delayMs = 0;
  if (request.method === 'POST') {
    const fields = formFields(request.body);
    const target = fields.get('ip');
    if (fields.has('Submit') && target !== null) {
      if (request.isSafe) {
        const octets = target.trim().split('.');
        const valid =
          fields.get('user_token') === request.session?.token &&
          octets.length === 4 &&
          octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
        output = valid
          ? `<pre>${escapeHtml(emulateShell(`ping -c 4 ${octets.join('.')}`).output)}</pre>`
          : '<pre>ERROR: You have entered an invalid IP.</pre>';
      } else {
        const run = emulateShell(`ping  -c 4 ${target}`);
        delayMs = run.sleepSeconds * 1000;
        output = `<pre>${run.output}</pre>`;
      }
    }
  }
  const form = `<div class="vulnerable_code_area"><h2>Ping a device</h2><form name="ping" action="/vulnerabilities/exec/" method="post">
<p>Enter an IP address: <input type="text" name="ip" size="30"><input type="submit" name="Submit" value="Submit">${tokenInput(request)}</p></form>`;
  return { ...html(layout(request, title, `${form}${output}</div>`)), delayMs };
}

function xssReflected(request: AppRequest): AppResponse {
  const title = 'Vulnerability: Reflected Cross Site Scripting (XSS)';
  const name = request.url.searchParams.get('name');
  let output = '';
  if (request.url.searchParams.has('Submit') && name !== null && name !== '')
    output = `<pre>Hello ${request.isSafe ? escapeHtml(name) : name}</pre>`;
  const form = `<div class="vulnerable_code_area"><form name="XSS" action="/vulnerabilities/xss_r/" method="GET">
<p>What's your name? <input type="text" name="name"><input type="submit" name="Submit" value="Submit">${tokenInput(request)}</p></form>`;
  return html(layout(request, title, `${form}${output}</div>`));
}

function xssStored(request: AppRequest): AppResponse {
  const title = 'Vulnerability: Stored Cross Site Scripting (XSS)';
  const book = request.state.guestbook;
  let note = '';
  if (request.method === 'POST') {
    const fields = formFields(request.body);
    if (fields.has('btnSign')) {
      const name = (fields.get('txtName') ?? '').trim();
      const message = (fields.get('mtxMessage') ?? '').trim();
      if (request.isSafe && !hasValidToken(request)) note = '<pre>CSRF token is incorrect</pre>';
      else if (name !== '' && message !== '') {
        book.push({ name, message });
        if (book.length > 200) book.splice(1, book.length - 200);
      }
    }
  }
  const entries = book
    .slice(-100)
    .map(({ name, message }) => {
      const [n, m] = request.isSafe ? [escapeHtml(name), escapeHtml(message)] : [name, message];
      return `<div id="guestbook_comments">Name: ${n}<br />Message: ${m}<br /></div>`;
    })
    .join('\n');
  const form = `<div class="vulnerable_code_area"><form method="post" name="guestform" action="/vulnerabilities/xss_s/">
<table><tr><td>Name *</td><td><input name="txtName" type="text" size="30" maxlength="10"></td></tr>
<tr><td>Message *</td><td><textarea name="mtxMessage" cols="50" rows="3" maxlength="50"></textarea></td></tr>
<tr><td></td><td><input name="btnSign" type="submit" value="Sign Guestbook"> <input name="btnClear" type="submit" value="Clear Guestbook"></td></tr></table>${tokenInput(request)}</form></div>`;
  return html(layout(request, title, `${form}${note}<br />${entries}`));
}

function fileInclusion(request: AppRequest): AppResponse {
  const title = 'Vulnerability: File Inclusion';
  const page = request.url.searchParams.get('page');
  if (page === null) return redirect('/vulnerabilities/fi/?page=include.php');
  const links =
    '<p>[<a href="?page=file1.php">file1.php</a>] - [<a href="?page=file2.php">file2.php</a>] - [<a href="?page=file3.php">file3.php</a>]</p>';
  const base = '/var/www/html/vulnerabilities/fi';
  if (request.isSafe) {
    const allowed = ['include.php', 'file1.php', 'file2.php', 'file3.php'];
    if (!allowed.includes(page)) return html(layout(request, title, `${links}<p>ERROR: File not found!</p>`));
    return html(layout(request, title, `${links}${readServerFile(base, page) ?? ''}`));
  }
  const content = readServerFile(base, page);
  // PHP 8 escapes the file name in an HTML warning: the page is no reflected XSS.
  if (content === undefined)
    return html(
      layout(
        request,
        title,
        `${links}<br />\n<b>Warning</b>:  include(${escapeHtml(page)}): Failed to open stream: No such file or directory in <b>${base}/index.php</b> on line <b>36</b><br />\n<br />\n<b>Warning</b>:  include(): Failed opening '${escapeHtml(page)}' for inclusion (include_path='.:/usr/share/php') in <b>${base}/index.php</b> on line <b>36</b><br />`,
      ),
    );
  // PHP includes the file's text before the page (a file of the web root is a page part).
  return content.startsWith('<p>')
    ? html(layout(request, title, `${links}${content}`))
    : html(`${content}${layout(request, title, links)}`);
}

function openRedirect(request: AppRequest): AppResponse | undefined {
  const path = request.url.pathname;
  if (path === '/vulnerabilities/open_redirect/')
    return html(
      layout(
        request,
        'Vulnerability: Open HTTP Redirect',
        '<p>Hacker History: read about some famous hackers.</p><ul><li><a href="go.php?redirect=info.php?id=1">Quote 1</a></li><li><a href="go.php?redirect=info.php?id=2">Quote 2</a></li></ul>',
      ),
    );
  if (path === '/vulnerabilities/open_redirect/info.php') {
    const id = request.url.searchParams.get('id');
    const quote = id === '2' ? 'Hack the planet!' : 'The quieter you become, the more you are able to hear.';
    return html(
      layout(
        request,
        'Famous hacker quotes',
        `<p>${quote}</p><p><a href="/vulnerabilities/open_redirect/">Back</a></p>`,
      ),
    );
  }
  if (path !== '/vulnerabilities/open_redirect/go.php') return undefined;
  const target = request.url.searchParams.get('redirect');
  if (target === null || target === '') return html('<p>Missing redirect target.</p>', 500);
  if (request.isSafe && !/^info\.php\?id=\d+$/.test(target)) return html('<p>Absolute URLs not allowed.</p>', 500);
  return redirect(request.isSafe ? `/vulnerabilities/open_redirect/${target}` : target);
}

function evaluation(request: AppRequest): AppResponse {
  const title = 'Vulnerability: Server-side Calculator';
  const expression = request.url.searchParams.get('expr');
  let output = '';
  if (request.url.searchParams.has('Calculate') && expression !== null) {
    if (request.isSafe) {
      output = /^\d+(\.\d+)?$/.test(expression.trim())
        ? `<pre>Result: ${escapeHtml(String(Number(expression)))}</pre>`
        : '<pre>Please enter a number.</pre>';
    } else {
      // The Node original: `res.send('Result: ' + eval(req.query.expr))`; emulated, nothing runs.
      const value = evaluateExpression(expression);
      if (value instanceof Error)
        return html(
          `<pre>${escapeHtml(value.message)}\n    at eval (eval at calculate (/app/routes/calculator.js:14:21), &lt;anonymous&gt;:1:1)\n    at calculate (/app/routes/calculator.js:14:21)</pre>`,
          500,
        );
      output = `<pre>Result: ${escapeHtml(String(value))}</pre>`;
    }
  }
  const form = `<div class="vulnerable_code_area"><form action="/vulnerabilities/eval/" method="GET">
<p>Expression: <input type="text" name="expr" value="1+1"><input type="submit" name="Calculate" value="Calculate">${tokenInput(request)}</p></form>`;
  return html(layout(request, title, `${form}${output}</div>`));
}

/** The injection pages, by path. */
export const injectionPages: Page = (request) => {
  switch (request.url.pathname) {
    case '/vulnerabilities/sqli/':
      return sqli(request);
    case '/vulnerabilities/sqli_blind/':
      return sqliBlind(request);
    case '/vulnerabilities/exec/':
      return exec(request);
    case '/vulnerabilities/xss_r/':
      return xssReflected(request);
    case '/vulnerabilities/xss_s/':
      return xssStored(request);
    case '/vulnerabilities/fi/':
      return fileInclusion(request);
    case '/vulnerabilities/eval/':
      return evaluation(request);
    default:
      return openRedirect(request);
  }
};
