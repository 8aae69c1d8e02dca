import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';

/**
 * A login-gated application, modelled on DVWA: a form login with an anti-CSRF hidden token and
 * a `Login` button (the handler runs only when the button is sent), a session cookie that
 * expires after a number of requests, a Logout link on every page, and behind the login a
 * reflected XSS, an SQL error, a change-password form (GET, like DVWA's CSRF page), the
 * application's own security-level switch (`security` select, `seclev_submit` button) and a
 * link whose request silently ends the session (`/area/leave`: no name says so), and a page
 * linked from nowhere (`/hidden/report?q=`, a reflected XSS a start URL leads to). Every page
 * but the login page redirects to it when logged out. It counts what it was asked.
 */
export interface LoginSite {
  port: number;
  /** Requests by `METHOD path` (no query). */
  counts: Map<string, number>;
  /** Requests with these query or body field names, by `METHOD path name`. */
  fieldCounts: Map<string, number>;
  /** Requests answered with the redirect to the login page (logged out), by `METHOD path`. */
  loggedOut: Map<string, number>;
  /** Successful logins. */
  logins: number;
  /** Logins refused (wrong password, missing token or button). */
  failedLogins: number;
  /** Sessions ended by the request limit. */
  expiries: number;
  /** The security level of the last session that changed it ('low' unless switched). */
  securityLevel: string;
  /** The password after any change (the scan must never change it). */
  password: string;
  stop(): Promise<void>;
}

/** Options of the login site. */
export interface LoginSiteOptions {
  /** A logged-in session ends after this many requests (0: never). */
  sessionRequestLimit?: number;
}

interface Session {
  user: string | undefined;
  token: string;
  requests: number;
  security: string;
}

const user = 'admin';
const html = { 'content-type': 'text/html; charset=utf-8' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, body: string): string {
  return (
    `<!doctype html><html><head><title>${title}</title></head><body>` +
    '<div id="menu"><a href="/index.php">Home</a> <a href="/vulnerabilities/xss_r/">XSS (Reflected)</a> ' +
    '<a href="/vulnerabilities/sqli/">SQL Injection</a> <a href="/vulnerabilities/csrf/">CSRF</a> ' +
    '<a href="/security.php">DVWA Security</a> <a href="/area/leave">Leave the area</a> ' +
    '<a href="/logout.php">Logout</a></div>' +
    `<div id="main"><h1>${title}</h1>${body}</div><div id="footer">Welcome ${user}</div></body></html>`
  );
}

function loginPage(token: string, message: string): string {
  return (
    '<!doctype html><html><head><title>Login</title></head><body>' +
    `<p>${message}</p><form action="login.php" method="post">` +
    '<input type="text" name="username"><input type="password" name="password">' +
    `<input type="submit" value="Login" name="Login"><input type="hidden" name="user_token" value="${token}">` +
    '</form></body></html>'
  );
}

/** One request as the site's pages see it. */
interface Exchange {
  site: LoginSite;
  session: Session;
  method: string;
  url: URL;
  fields: URLSearchParams;
  send: (status: number, text: string, extra?: Record<string, string>) => void;
  redirect: (to: string) => void;
}

const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/** The login page: the form (a fresh token each time), and its handler, run only with the Login button. */
function answerLogin(x: Exchange): void {
  const { site, session: s, method, fields, send, redirect } = x;
  if (method === 'POST' && fields.has('Login')) {
    const isValid =
      fields.get('user_token') === s.token &&
      fields.get('username') === user &&
      fields.get('password') === site.password;
    if (isValid) {
      s.user = user;
      s.requests = 0;
      site.logins += 1;
      return redirect('index.php');
    }
    site.failedLogins += 1;
    return redirect('login.php');
  }
  s.token = randomBytes(8).toString('hex');
  return send(200, loginPage(s.token, 'Please log in'));
}

/** Answers one request: the login page, the redirect of a logged-out visitor, or a page. */
function answer(x: Exchange): void {
  const { site, session: s, method, url, fields, send, redirect } = x;
  if (url.pathname === '/login.php') return answerLogin(x);
  if (s.user === undefined) {
    count(site.loggedOut, `${method} ${url.pathname}`);
    return redirect('/login.php');
  }
  switch (url.pathname) {
    case '/':
    case '/index.php':
      return send(200, layout('Welcome', '<p>Pick a page from the menu.</p>'));
    case '/logout.php':
      s.user = undefined;
      return redirect('login.php');
    case '/area/leave':
      s.user = undefined;
      return redirect('/login.php');
    case '/vulnerabilities/xss_r/': {
      const name = fields.get('name');
      const form =
        '<form name="XSS" action="#" method="GET"><input type="text" name="name"><input type="submit" value="Submit"></form>';
      // The level low reflects the name as given; other levels encode it.
      const shown = name === null ? '' : s.security === 'low' ? name : escapeHtml(name);
      return send(200, layout('Reflected XSS', `${form}${name === null ? '' : `<pre>Hello ${shown}</pre>`}`));
    }
    case '/vulnerabilities/sqli/': {
      const id = fields.get('id');
      const form =
        '<form action="#" method="GET"><input type="text" name="id"><input type="submit" name="Submit" value="Submit"></form>';
      // The handler runs only when the button is sent (isset($_GET['Submit'])).
      if (id !== null && fields.has('Submit') && s.security === 'low' && /['"]/.test(id))
        return send(
          500,
          `<b>Fatal error</b>: Uncaught mysqli_sql_exception: You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '${escapeHtml(id)}'' at line 1 in /var/www/html/vulnerabilities/sqli/source/low.php:11`,
        );
      const answer =
        id === null || !fields.has('Submit') ? '' : `<pre>ID: ${escapeHtml(id)}<br>First name: admin</pre>`;
      return send(200, layout('SQL Injection', `${form}${answer}`));
    }
    case '/vulnerabilities/csrf/': {
      const next = fields.get('password_new');
      if (next !== null && fields.has('Change') && next === fields.get('password_conf')) site.password = next;
      return send(
        200,
        layout(
          'Change your admin password',
          '<form action="#" method="GET">New password: <input type="password" name="password_new">' +
            'Confirm: <input type="password" name="password_conf"><input type="submit" value="Change" name="Change"></form>',
        ),
      );
    }
    case '/security.php':
      if (method === 'POST' && fields.has('seclev_submit')) {
        s.security = fields.get('security') ?? 'impossible';
        site.securityLevel = s.security;
      }
      return send(
        200,
        layout(
          'DVWA Security',
          '<form action="/security.php" method="POST"><select name="security"><option value="low">Low</option>' +
            '<option value="impossible" selected>Impossible</option></select>' +
            `<input type="submit" value="Submit" name="seclev_submit"><input type="hidden" name="user_token" value="${s.token}"></form>`,
        ),
      );
    case '/hidden/report': {
      // Linked from nowhere: only a start URL leads here.
      const q = fields.get('q') ?? '';
      return send(200, layout('Report', `<p>Report for ${s.security === 'low' ? q : escapeHtml(q)}</p>`));
    }
    default:
      return send(404, layout('Not found', '<p>No such page</p>'));
  }
}

/** Starts the login site on 127.0.0.1 (a random port). */
export async function startLoginSite(options: LoginSiteOptions = {}): Promise<LoginSite> {
  const limit = options.sessionRequestLimit ?? 0;
  const sessions = new Map<string, Session>();
  const site: LoginSite = {
    port: 0,
    counts: new Map(),
    fieldCounts: new Map(),
    loggedOut: new Map(),
    logins: 0,
    failedLogins: 0,
    expiries: 0,
    securityLevel: 'low',
    password: 'Fixture-Secret-7',
    stop: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const method = req.method ?? 'GET';
      const fields = new URLSearchParams(method === 'POST' ? body : url.search);
      count(site.counts, `${method} ${url.pathname}`);
      for (const name of new Set(fields.keys())) count(site.fieldCounts, `${method} ${url.pathname} ${name}`);
      const cookie = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      let session = cookie === undefined ? undefined : sessions.get(cookie);
      const headers: Record<string, string | string[]> = { ...html };
      if (session === undefined) {
        const sid = randomBytes(12).toString('hex');
        session = { user: undefined, token: '', requests: 0, security: 'low' };
        sessions.set(sid, session);
        headers['set-cookie'] = `sid=${sid}; Path=/; HttpOnly`;
      } else if (session.user !== undefined && limit > 0 && ++session.requests > limit) {
        // The session expires: the server forgets who it was.
        session.user = undefined;
        site.expiries += 1;
      }
      const send = (status: number, text: string, extra: Record<string, string> = {}) => {
        res.writeHead(status, { ...headers, ...extra });
        res.end(text);
      };
      const redirect = (to: string) => send(302, '', { location: to });
      answer({ site, session, method, url, fields, send, redirect });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.port = (server.address() as net.AddressInfo).port;
  site.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}
