/**
 * The realistic application's other pages: the home page whose menu a script builds from
 * Markdown (its links exist only once the script has run), file upload (stored under
 * /uploads/ as named; a `.php` is executed, emulated), DVWA's weak session ids (a counter), a
 * profile kept in a node-serialize cookie, a JSON API that tells an ordinary user every user's
 * e-mail and password hash, and DOM XSS through location.hash. Static files and the uploaded
 * files are served too.
 */
import { createHmac, randomBytes } from 'node:crypto';
import {
  cookie,
  escapeHtml,
  html,
  layout,
  md5,
  tokenInput,
  type AppRequest,
  type AppResponse,
  type Page,
} from './app-kit.ts';
import { emulatePhp } from './emulation.ts';

/** The client-side menu: Markdown whose targets are joined to a base the script assembles from pieces. */
const MENU_SCRIPT = `(function () {
  var menu = [
    '- [SQL Injection (Blind)](sqli_blind)',
    '- [File Upload](upload)',
    '- [Calculator](eval)',
    '- [Users](users)',
    '- [XSS (DOM)](xss_d)'
  ].join('\\n');
  var base = '/' + ['vulner', 'abilities'].join('') + '/';
  var list = document.getElementById('app-menu');
  menu.split('\\n').forEach(function (line) {
    var m = /^- \\[(.+)\\]\\((.+)\\)$/.exec(line);
    if (!m) return;
    var item = document.createElement('li');
    var link = document.createElement('a');
    link.href = base + m[2] + '/';
    link.textContent = m[1];
    item.appendChild(link);
    list.appendChild(item);
  });
})();
`;

const domXssScript = (isSafe: boolean): string => `(function () {
  var lang = decodeURIComponent(location.hash.slice(1)) || 'English';
  document.getElementById('language').${isSafe ? 'textContent' : 'innerHTML'} = 'Language: ' + lang;
})();
`;

const USERS_SCRIPT = `fetch('/api/users', { credentials: 'same-origin' }).then(function (r) { return r.json(); }).then(function (data) {
  var list = document.getElementById('users');
  (data.users || []).forEach(function (u) { var li = document.createElement('li'); li.textContent = u.username; list.appendChild(li); });
});
`;

const script = (body: string): AppResponse => ({
  status: 200,
  headers: { 'content-type': 'application/javascript; charset=utf-8' },
  body,
});

/** Static files, served with or without a session. */
export const staticFiles: Page = (request) => {
  switch (request.url.pathname) {
    case '/static/menu.js':
      return script(MENU_SCRIPT);
    case '/static/xss_d.js':
      return script(domXssScript(request.state.isSafe));
    case '/static/users.js':
      return script(USERS_SCRIPT);
    case '/static/main.css':
    case '/static/login.css':
      return { status: 200, headers: { 'content-type': 'text/css' }, body: 'body { font-family: sans-serif; }\n' };
    case '/static/logo.png':
    case '/static/login_logo.png':
      return { status: 200, headers: { 'content-type': 'image/png' }, body: Buffer.from('89504e470d0a1a0a', 'hex') };
    default:
      return undefined;
  }
};

const UPLOAD_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.html': 'text/html;charset=utf-8',
  '.htm': 'text/html;charset=utf-8',
  '.php': 'text/html;charset=utf-8',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
};

const extensionOf = (name: string): string => /\.[^./]*$/.exec(name.toLowerCase())?.[0] ?? '';

/** The uploaded files, public as DVWA's hackable/uploads are. */
export const uploadedFiles: Page = (request) => {
  if (!request.url.pathname.startsWith('/uploads/')) return undefined;
  const name = decodeURIComponent(request.url.pathname.slice('/uploads/'.length));
  const file = request.state.uploads.get(name);
  if (file === undefined) return html('<h1>Not Found</h1><p>The requested URL was not found on this server.</p>', 404);
  if (request.state.isSafe)
    return {
      status: 200,
      headers: { 'content-type': file.type, 'content-disposition': 'attachment', 'x-content-type-options': 'nosniff' },
      body: file.body,
    };
  const extension = extensionOf(name);
  const body = extension === '.php' ? emulatePhp(file.body.toString('utf8')) : file.body;
  return { status: 200, headers: { 'content-type': UPLOAD_TYPES[extension] ?? 'application/octet-stream' }, body };
};

/** One part of a multipart/form-data body. */
interface Part {
  name: string;
  filename: string | undefined;
  type: string | undefined;
  body: Buffer;
}

/** The parts of a multipart/form-data body (enough for a browser's or a scanner's upload). */
function multipartParts(request: AppRequest): Part[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(request.req.headers['content-type'] ?? '');
  if (boundary === null) return [];
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]!.trim()}`);
  const parts: Part[] = [];
  let at = request.body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    const next = request.body.indexOf(delimiter, start);
    if (next < 0) break;
    const chunk = request.body.subarray(start, next);
    const headerEnd = chunk.indexOf('\r\n\r\n');
    if (headerEnd >= 0) {
      const head = chunk.subarray(0, headerEnd).toString('utf8');
      const body = chunk.subarray(headerEnd + 4, chunk.length - 2);
      const name = /name="([^"]*)"/i.exec(head)?.[1];
      if (name !== undefined)
        parts.push({
          name,
          filename: /filename="([^"]*)"/i.exec(head)?.[1],
          type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim(),
          body,
        });
    }
    at = next;
  }
  return parts;
}

function upload(request: AppRequest): AppResponse {
  let output = '';
  if (request.method === 'POST') {
    const parts = multipartParts(request);
    const file = parts.find((p) => p.name === 'uploaded' && p.filename !== undefined);
    const clicked = parts.some((p) => p.name === 'Upload');
    if (clicked && file !== undefined) {
      const uploads = request.state.uploads;
      if (uploads.size > 500) uploads.clear();
      if (request.state.isSafe) {
        const token = parts.find((p) => p.name === 'user_token')?.body.toString('utf8');
        const isPng = file.body.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'));
        const isJpeg = file.body.subarray(0, 3).equals(Buffer.from('ffd8ff', 'hex'));
        if (token !== request.session?.token || (!isPng && !isJpeg))
          output = '<pre>Your image was not uploaded. We can only accept JPEG or PNG images.</pre>';
        else {
          const name = `${md5(randomBytes(8).toString('hex'))}${isPng ? '.png' : '.jpg'}`;
          uploads.set(name, { body: file.body, type: isPng ? 'image/png' : 'image/jpeg' });
          output = `<pre><a href="/uploads/${name}">${name}</a> succesfully uploaded!</pre>`;
        }
      } else {
        const name = (file.filename ?? '').split(/[\\/]/).pop() ?? '';
        if (name === '') output = '<pre>Your image was not uploaded.</pre>';
        else {
          uploads.set(name, { body: file.body, type: file.type ?? 'application/octet-stream' });
          output = `<pre>../../uploads/${escapeHtml(name)} succesfully uploaded!</pre>`;
        }
      }
    }
  }
  const form = `<div class="vulnerable_code_area"><form enctype="multipart/form-data" action="/vulnerabilities/upload/" method="POST">
<input type="hidden" name="MAX_FILE_SIZE" value="100000">Choose an image to upload:<br /><br /><input name="uploaded" type="file"><br /><br />
<input type="submit" name="Upload" value="Upload">${tokenInput(request)}</form>${output}</div>`;
  return html(layout(request, 'Vulnerability: File Upload', form));
}

function weakId(request: AppRequest): AppResponse {
  const value = request.state.isSafe ? randomBytes(20).toString('hex') : String(++request.state.weakId);
  const form = `<div class="vulnerable_code_area"><p>This page will set a new cookie called dvwaSession each time the button is clicked.</p>
<form method="post" action="/vulnerabilities/weak_id/"><input type="submit" value="Generate" name="Generate">${tokenInput(request)}</form></div>`;
  return html(layout(request, 'Vulnerability: Weak Session IDs', form), 200, {
    'set-cookie': [cookie('dvwaSession', value)],
  });
}

/** The profile the cookie carries: node-serialize's output for an object with a method (vulnerable), a signed JSON (safe). */
function profileCookie(request: AppRequest): string {
  const username = request.account!.username;
  if (request.state.isSafe) {
    const data = Buffer.from(JSON.stringify({ username, country: 'Middle Earth' })).toString('base64url');
    return `${data}.${createHmac('sha256', request.state.secret).update(data).digest('base64url')}`;
  }
  const serialised = `{"username":"${username}","country":"Middle Earth","greet":"_$$ND_FUNC$$_function () { return 'Hello ' + this.username; }"}`;
  return Buffer.from(serialised).toString('base64');
}

/** The profile read back: node-serialize's unserialize, emulated (a function is recognised, never run). */
function readProfile(request: AppRequest, value: string): string | undefined {
  try {
    if (request.state.isSafe) {
      const [data = '', signature = ''] = value.split('.');
      if (createHmac('sha256', request.state.secret).update(data).digest('base64url') !== signature) return undefined;
      return (JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as { username?: string }).username;
    }
    const object = JSON.parse(Buffer.from(decodeURIComponent(value), 'base64').toString('utf8')) as Record<
      string,
      unknown
    >;
    return typeof object['username'] === 'string' ? object['username'] : undefined;
  } catch {
    return undefined;
  }
}

function profile(request: AppRequest): AppResponse {
  const stored = request.cookies.get('profile');
  const name = stored === undefined ? undefined : readProfile(request, stored);
  const headers: Record<string, string[]> =
    name === undefined ? { 'set-cookie': [cookie('profile', profileCookie(request))] } : {};
  return html(
    layout(
      request,
      'Profile',
      `<p>Hello ${escapeHtml(name ?? request.account!.username)}, your profile is kept in a cookie so that it follows you.</p>`,
    ),
    200,
    headers,
  );
}

function users(request: AppRequest): AppResponse {
  return html(
    layout(request, 'Users', '<p>Members of this site (<a href="/api/users">JSON</a>):</p><ul id="users"></ul>', [
      '/static/users.js',
    ]),
  );
}

function apiUsers(request: AppRequest): AppResponse {
  const accounts = [...request.state.accounts.values()];
  const body = request.isSafe
    ? { users: accounts.map((a, i) => ({ id: i + 1, username: a.username })) }
    : {
        users: accounts.map((a, i) => ({ id: i + 1, username: a.username, email: a.email, password: md5(a.password) })),
      };
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

function domXss(request: AppRequest): AppResponse {
  return html(
    layout(
      request,
      'Vulnerability: DOM Based Cross Site Scripting (XSS)',
      '<div class="vulnerable_code_area"><p>Please choose a language: <a href="#English">English</a> <a href="#French">French</a></p><p id="language"></p></div>',
      ['/static/xss_d.js'],
    ),
  );
}

function home(request: AppRequest): AppResponse {
  return html(
    layout(
      request,
      'Welcome to Damn Vulnerable Web Application!',
      `<p>More training exercises:</p><ul id="app-menu"></ul>${tokenInput(request)}`,
      ['/static/menu.js'],
    ),
  );
}

/** The logged-in feature pages, by path. */
export const featurePages: Page = (request) => {
  switch (request.url.pathname) {
    case '/':
    case '/index.php':
      return home(request);
    case '/about':
      return html(layout(request, 'About', '<p>A training application for the scanner benchmark.</p>'));
    case '/vulnerabilities/upload/':
      return upload(request);
    case '/vulnerabilities/weak_id/':
      return weakId(request);
    case '/vulnerabilities/profile/':
      return profile(request);
    case '/vulnerabilities/users/':
      return users(request);
    case '/api/users':
      return apiUsers(request);
    case '/vulnerabilities/xss_d/':
      return domXss(request);
    default:
      return undefined;
  }
};
