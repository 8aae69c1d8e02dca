import { createHash, randomBytes } from 'node:crypto';
import { parseMultipart } from '../../../src/engine/http-scan/check-kit/multipart.ts';
import { spotsOf, type SiteModule, type SiteRequest, type SiteResponse, type Spot } from './types.ts';

/**
 * The application spots of the fixture site (issue 37): a small logged-in-style application
 * under /app. Its session cookie APPSESSID (Path=/app) counts up on the vulnerable site and is
 * 128 random bits on the safe twin; /app/legacy hands out MD5 hashes of a counter. A profile
 * form (POST) and a password change form (GET, DVWA-like) carry no anti-CSRF token on the
 * vulnerable site; the safe twin adds one and marks the session cookie SameSite=Lax. The login
 * at /app/welcome (an anti-CSRF token, a handler gated on its Login button) accepts
 * admin/password on the vulnerable site; the safe twin rejects everything and redirects every
 * attempt to /app/home. The avatar upload stores any file and "runs" a .php one (the PHP echo
 * of a product is computed); the document upload serves any file back with the type of its
 * extension; the safe twin refuses other than images, and serves documents as attachments with
 * nosniff. /app/api/users and /app/api/members/{id} answer password hashes and other users'
 * e-mail addresses; the safe twin leaves them out. Near misses on both twins: a search form, a
 * POST form with a token, /app/api/me (the reader's own address).
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const json = { 'content-type': 'application/json' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The session cookie of the application. */
export const appSessionCookie = 'APPSESSID';
/** The cookie of the legacy area: an MD5 of a counter on the vulnerable site. */
export const legacySessionCookie = 'legacy_sid';
/** The pair the vulnerable login accepts (DVWA's default). */
export const appDefaultPair = ['admin', 'password'] as const;

/** A login attempt the application received (its Login button sent). */
export interface AppLoginAttempt {
  /** The server's port (which twin and run). */
  port: number;
  user: string;
  password: string;
  /** The Cookie header it carried. */
  cookie: string;
}

/** Every login attempt of the application, on any fixture server of this process. */
export const appLoginAttempts: AppLoginAttempt[] = [];

/** Per-server state (both twins and every test run share this process). */
interface ServerState {
  counter: number;
  legacyCounter: number;
  tokens: Set<string>;
  files: Map<string, { content: string; area: 'avatar' | 'document' }>;
}
const states = new Map<number, ServerState>();
const stateOf = (request: SiteRequest): ServerState => {
  const port = request.req.socket.localPort ?? 0;
  let state = states.get(port);
  if (state === undefined) {
    state = { counter: 1000, legacyCounter: 0, tokens: new Set(), files: new Map() };
    states.set(port, state);
  }
  return state;
};

const cookieOf = (request: SiteRequest, name: string): string | undefined => {
  for (const part of (request.req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
};

/** The application's session cookie for a visitor that has none (counting up on the vulnerable site). */
function sessionCookie(request: SiteRequest): Record<string, string> {
  if (cookieOf(request, appSessionCookie) !== undefined) return {};
  const state = stateOf(request);
  const value = request.isSafe ? randomBytes(16).toString('hex') : String((state.counter += 1));
  const secure = request.scheme === 'https' ? '; Secure' : '';
  return {
    'set-cookie': `${appSessionCookie}=${value}; Path=/app; HttpOnly${request.isSafe ? '; SameSite=Lax' : ''}${secure}`,
  };
}

const page = (request: SiteRequest, title: string, body: string, status = 200): SiteResponse => ({
  status,
  headers: { ...html, ...sessionCookie(request) },
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}<p><a href="/app/">Application home</a></p></body></html>`,
});

/** A fresh anti-CSRF token (remembered, so the login can check it). */
const token = (request: SiteRequest): string => {
  const value = randomBytes(16).toString('hex');
  stateOf(request).tokens.add(value);
  return value;
};

/** The hidden token field of the safe twin's forms ('' on the vulnerable site). */
const csrfField = (request: SiteRequest, name: string): string =>
  request.isSafe ? `<input type="hidden" name="${name}" value="${token(request)}">` : '';

/** The safe twin serves its password forms only over HTTPS, like the authentication module's logins. */
const toHttps = (request: SiteRequest): SiteResponse => ({
  status: 301,
  headers: { location: `https://${request.req.headers.host ?? '127.0.0.1'}${request.url.pathname}` },
  body: '',
});

function login(request: SiteRequest): SiteResponse {
  if (request.isSafe && request.scheme === 'http') return toHttps(request);
  const form = (message: string): SiteResponse =>
    page(
      request,
      'Welcome',
      `${message}<form method="post" action="/app/welcome"><input name="username" autocomplete="username"><input type="password" name="password" autocomplete="current-password"><input type="hidden" name="user_token" value="${token(request)}"><input type="submit" name="Login" value="Login"></form>`,
    );
  if (request.method !== 'POST') return form('');
  const fields = new URLSearchParams(request.body);
  // Like DVWA: the handler runs only when the Login button is sent, and checks the token.
  if (!fields.has('Login')) return form('');
  appLoginAttempts.push({
    port: request.req.socket.localPort ?? 0,
    user: fields.get('username') ?? '',
    password: fields.get('password') ?? '',
    cookie: request.req.headers.cookie ?? '',
  });
  if (request.isSafe) return { status: 303, headers: { location: '/app/home' }, body: '' };
  const state = stateOf(request);
  const sent = fields.get('user_token') ?? '';
  if (!state.tokens.delete(sent)) return form('<p class="error">CSRF token is incorrect.</p>');
  const [user, password] = appDefaultPair;
  if (fields.get('username') === user && fields.get('password') === password)
    return { status: 303, headers: { location: '/app/home' }, body: '' };
  return form('<p class="error">Login failed.</p>');
}

/** Computes the PHP echo of a product the way PHP would run `<?php echo A*B; ?>` (nothing else is "executed"). */
const runPhp = (content: string): string =>
  content.replace(/<\?php\s+echo\s+(\d+)\s*\*\s*(\d+)\s*;?\s*\?>/g, (_m, a: string, b: string) =>
    String(Number(a) * Number(b)),
  );

const IMAGE = /\.(?:png|jpe?g|gif)$/i;
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
  php: 'text/html; charset=utf-8',
  txt: 'text/plain',
  png: 'image/png',
};

function upload(request: SiteRequest, area: 'avatar' | 'document'): SiteResponse {
  const title = area === 'avatar' ? 'Avatar' : 'Documents';
  // Both twins carry a token here: these spots are about the upload, not about CSRF.
  const form = `<form method="post" enctype="multipart/form-data" action="/app/${area === 'avatar' ? 'avatar' : 'documents'}"><input type="hidden" name="csrf_token" value="${token(request)}"><input type="file" name="${area === 'avatar' ? 'avatar' : 'document'}"${area === 'avatar' ? ' accept="image/*"' : ''}><input type="submit" name="Upload" value="Upload"></form>`;
  if (request.method !== 'POST') return page(request, title, form);
  const parsed = parseMultipart(request.body, String(request.req.headers['content-type'] ?? ''));
  const file = parsed?.files[0];
  if (parsed === undefined || file === undefined || !parsed.fields.some(([name]) => name === 'Upload'))
    return page(request, title, `<p>Choose a file.</p>${form}`, 400);
  const name = file.filename.replace(/^.*[\\/]/, '');
  if (!/^[\w.-]{1,80}$/.test(name) || name.startsWith('.'))
    return page(request, title, `<p>Bad file name.</p>${form}`, 400);
  if (request.isSafe && area === 'avatar' && !IMAGE.test(name))
    return page(request, title, `<p>Only PNG, JPEG and GIF images.</p>${form}`, 400);
  // The safe twin stores documents under a name of its own.
  const stored = request.isSafe && area === 'document' ? `${randomBytes(8).toString('hex')}.bin` : name;
  stateOf(request).files.set(stored, { content: file.content, area });
  const where =
    area === 'avatar'
      ? `<p>Saved: <a href="/app/uploads/${escapeHtml(stored)}">your avatar</a></p>`
      : `<p>files/${escapeHtml(stored)} succesfully uploaded!</p>`;
  return page(request, title, `${where}${form}`);
}

function uploaded(request: SiteRequest, area: 'avatar' | 'document', name: string): SiteResponse | undefined {
  const file = stateOf(request).files.get(name);
  if (file === undefined || file.area !== area) return undefined;
  if (request.isSafe && area === 'document')
    return {
      status: 200,
      headers: {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="document.bin"',
        'x-content-type-options': 'nosniff',
      },
      body: file.content,
    };
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  const body = area === 'avatar' && extension === 'php' ? runPhp(file.content) : file.content;
  return { status: 200, headers: { 'content-type': TYPES[extension] ?? 'application/octet-stream' }, body };
}

const USERS = [
  {
    id: 1,
    username: 'admin',
    email: 'admin@app.example',
    role: 'admin',
    password_hash: '$2y$10$abcdefghijklmnopqrstuu5Yq0Iu3mJ3Jm3uQn7dCq0P8H7PzK0f2',
  },
  {
    id: 2,
    username: 'gordonb',
    email: 'gordonb@app.example',
    role: 'user',
    password_hash: '$2y$10$zyxwvutsrqponmlkjihgfe7T0Gm2fUqv3xZl6VnB1kR9cWq5sDx8a',
  },
  {
    id: 3,
    username: 'pablo',
    email: 'pablo@app.example',
    role: 'user',
    password_hash: '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
  },
];

function api(request: SiteRequest, path: string): SiteResponse | undefined {
  const answer = (body: unknown): SiteResponse => ({ status: 200, headers: json, body: JSON.stringify(body) });
  if (path === '/app/api/users')
    return answer(
      request.isSafe ? USERS.map(({ id, username }) => ({ id, username })) : { users: USERS, total: USERS.length },
    );
  if (path === '/app/api/me') return answer({ id: 2, username: 'gordonb', email: 'gordonb@app.example' });
  const member = /^\/app\/api\/members\/(\d+)$/.exec(path);
  if (member !== null) {
    const id = Number(member[1]);
    // DVWA's users table: an unsalted MD5 of the password.
    const user = {
      id,
      user: `member${id}`,
      first_name: 'Member',
      password: createHash('md5').update(`pw${id}`).digest('hex'),
    };
    return answer(request.isSafe ? { id: user.id, user: user.user, first_name: user.first_name } : user);
  }
  return undefined;
}

function handle(request: SiteRequest): SiteResponse | undefined {
  const path = request.url.pathname;
  if (path !== '/app' && !path.startsWith('/app/')) return undefined;
  if (path.startsWith('/app/api/')) return api(request, path);
  const upload1 = /^\/app\/uploads\/([^/]+)$/.exec(path);
  if (upload1 !== null) return uploaded(request, 'avatar', decodeURIComponent(upload1[1]!));
  const upload2 = /^\/app\/files\/([^/]+)$/.exec(path);
  if (upload2 !== null) return uploaded(request, 'document', decodeURIComponent(upload2[1]!));
  switch (path) {
    case '/app':
    case '/app/':
      return page(
        request,
        'Application',
        '<ul><li><a href="/app/welcome">Log in</a></li><li><a href="/app/profile">Profile</a></li><li><a href="/app/settings/access">Access</a></li><li><a href="/app/transfer">Transfer</a></li><li><a href="/app/search">Search</a></li><li><a href="/app/avatar">Avatar</a></li><li><a href="/app/documents">Documents</a></li><li><a href="/app/legacy">Legacy area</a></li></ul>',
      );
    case '/app/home':
      return page(request, 'Home', '<p>Welcome back.</p>');
    case '/app/welcome':
      return login(request);
    case '/app/profile':
      if (request.method === 'POST') return page(request, 'Profile', '<p>Profile saved.</p>');
      return page(
        request,
        'Profile',
        `<form method="post" action="/app/profile"><input type="email" name="email" value="jane@app.example">${csrfField(request, 'csrf_token')}<input type="submit" name="Update" value="Update"></form>`,
      );
    case '/app/settings/access':
      // DVWA's CSRF page: a GET form changing the password.
      if (request.isSafe && request.scheme === 'http') return toHttps(request);
      if (request.url.searchParams.has('Change')) return page(request, 'Access', '<p>Password Changed.</p>');
      return page(
        request,
        'Access',
        `<form action="/app/settings/access" method="GET">New password: <input type="password" autocomplete="off" name="password_new"> Confirm: <input type="password" autocomplete="off" name="password_conf">${csrfField(request, 'user_token')}<input type="submit" value="Change" name="Change"></form>`,
      );
    case '/app/transfer':
      // A near miss on both twins: the form carries a token under a framework's name.
      if (request.method === 'POST') return page(request, 'Transfer', '<p>Transfer queued.</p>');
      return page(
        request,
        'Transfer',
        `<form method="post" action="/app/transfer"><input type="hidden" name="authenticity_token" value="${token(request)}"><input type="number" name="amount" value="10"><input type="submit" value="Send"></form>`,
      );
    case '/app/search':
      // A near miss on both twins: a search form is no state change.
      return page(
        request,
        'Search',
        `<form method="get" action="/app/search"><input name="q" value="${escapeHtml(request.url.searchParams.get('q') ?? '')}"><input type="submit" value="Search"></form>`,
      );
    case '/app/avatar':
      return upload(request, 'avatar');
    case '/app/documents':
      return upload(request, 'document');
    case '/app/legacy': {
      const answer = page(request, 'Legacy area', '<p>The old part of the application.</p>');
      if (cookieOf(request, legacySessionCookie) !== undefined) return answer;
      const state = stateOf(request);
      const value = request.isSafe
        ? randomBytes(16).toString('hex')
        : createHash('md5')
            .update(String((state.legacyCounter += 1)))
            .digest('hex');
      const cookie = `${legacySessionCookie}=${value}; Path=/app/legacy; HttpOnly; SameSite=Lax${request.scheme === 'https' ? '; Secure' : ''}`;
      const headers = answer.headers ?? {};
      const existing = headers['set-cookie'];
      return {
        ...answer,
        headers: { ...headers, 'set-cookie': existing === undefined ? [cookie] : [String(existing), cookie] },
      };
    }
    default:
      return undefined;
  }
}

const spot = spotsOf('application');

const spots: Spot[] = [
  spot('upload-php-executed', 'file-upload', '/app/avatar', 'a .php avatar is stored in the web root and executed'),
  spot('upload-html-served', 'file-upload', '/app/documents', 'an uploaded .html document is served back as HTML'),
  spot('csrf-post-form', 'csrf', '/app/profile', 'the profile form (POST) carries no anti-CSRF token'),
  spot('csrf-get-password', 'csrf', '/app/settings/access', 'the password change form (GET) carries no token'),
  spot('session-id-sequential', 'session-id', `/?session_cookie=${appSessionCookie}`, 'APPSESSID counts up'),
  spot(
    'session-id-md5-counter',
    'session-id',
    `/?session_cookie=${legacySessionCookie}`,
    'legacy_sid is MD5 of a counter',
  ),
  spot(
    'api-user-hashes',
    'sensitive-data-exposure',
    '/app/api/users',
    'the user list answers e-mails and password hashes',
  ),
  spot('api-member-md5', 'sensitive-data-exposure', '/app/api/members/{id}', "a member's unsalted MD5 password hash"),
  spotsOf('authentication')(
    'app-default-credentials',
    'default-credentials',
    '/app/welcome',
    "admin/password opens the application's own login (token-protected, button-gated)",
  ),
  spotsOf('authentication')(
    'app-login-over-http',
    'login-over-http',
    '/app/welcome',
    'the application login is served over plain HTTP',
    'http',
  ),
  spotsOf('authentication')(
    'app-password-change-over-http',
    'login-over-http',
    '/app/settings/access',
    'the password change form is served over plain HTTP',
    'http',
  ),
  spotsOf('configuration')(
    'app-session-cookie-samesite',
    'cookie-flags',
    `/?cookie=${appSessionCookie}&flag=samesite`,
    'the application session cookie has no SameSite attribute',
  ),
];

/** The application spots of the fixture site (see index.ts); each path answers fixed on the safe twin. */
export const applicationModule: SiteModule = {
  name: 'application',
  spots,
  links: ['/app/', '/app/api/users', '/app/api/me', '/app/api/members/2'],
  handle,
};
