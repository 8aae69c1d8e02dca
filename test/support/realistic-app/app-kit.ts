/**
 * What the realistic application's pages share: the request and answer shapes, the state of one
 * twin (accounts, sessions, guestbook, uploads), the page layout with its Logout link and menu,
 * and small helpers (escaping, cookies, a seeded random source).
 */
import { createHash, randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { AppDatabase } from './database.ts';
import { realisticAccounts } from './manifest.ts';

/** One account of the application. */
export interface Account {
  username: string;
  password: string;
  email: string;
  /** DVWA's security level, kept per account: `impossible` makes every page answer as the safe twin. */
  level: 'low' | 'medium' | 'high' | 'impossible';
}

/** A logged-in session. */
export interface Session {
  id: string;
  username: string;
  createdAt: number;
  requests: number;
  /** The anti-CSRF token of the safe twin's forms (per session). */
  token: string;
}

/** How long a session lives. */
export interface SessionLimits {
  maxRequests: number;
  maxAgeMs: number;
}

/** The state of one twin. */
export interface AppState {
  isSafe: boolean;
  db: AppDatabase;
  limits: SessionLimits;
  accounts: Map<string, Account>;
  sessions: Map<string, Session>;
  /** Tokens the login form handed out, with their expiry (epoch ms). */
  loginTokens: Map<string, number>;
  guestbook: Array<{ name: string; message: string }>;
  uploads: Map<string, { body: Buffer; type: string }>;
  /** The last weak session id handed out (DVWA's weak_id counter). */
  weakId: number;
  /** Secret signing the safe twin's profile cookie. */
  secret: string;
  /** Logins that succeeded, and password changes, for the benchmark's record. */
  counters: { logins: number; failedLogins: number; passwordChanges: number; levelChanges: number; expired: number };
}

/** A request as a page sees it. */
export interface AppRequest {
  req: http.IncomingMessage;
  method: string;
  url: URL;
  body: Buffer;
  cookies: Map<string, string>;
  state: AppState;
  /** The logged-in session, if any. */
  session: Session | undefined;
  account: Account | undefined;
  /** The safe twin, or an account switched to the `impossible` level. */
  isSafe: boolean;
}

/** A page's answer. */
export interface AppResponse {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Extra delay before answering (a sleeping query or shell). */
  delayMs?: number;
}

/** A page handler, or undefined when the path is not its own. */
export type Page = (request: AppRequest) => AppResponse | Promise<AppResponse> | undefined;

/** The twin's fresh state: the accounts (the scanner's user, the default admin and two more). */
export function createState(isSafe: boolean, db: AppDatabase, limits: SessionLimits): AppState {
  const accounts = new Map<string, Account>();
  const add = (username: string, password: string, email: string): void =>
    void accounts.set(username, { username, password, email, level: 'low' });
  add(
    realisticAccounts.admin.username,
    isSafe ? randomBytes(12).toString('base64url') : realisticAccounts.admin.password,
    'admin@dvwa.example',
  );
  add(realisticAccounts.user.username, realisticAccounts.user.password, 'gordon.brown@dvwa.example');
  add('1337', 'charley', 'hack.me@dvwa.example');
  add('pablo', 'letmein', 'pablo.picasso@dvwa.example');
  return {
    isSafe,
    db,
    limits,
    accounts,
    sessions: new Map(),
    loginTokens: new Map(),
    guestbook: [{ name: 'test', message: 'This is a test comment.' }],
    uploads: new Map(),
    weakId: 0,
    secret: randomBytes(16).toString('hex'),
    counters: { logins: 0, failedLogins: 0, passwordChanges: 0, levelChanges: 0, expired: 0 },
  };
}

/** HTML-escapes text. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** MD5 of a text, hex (the password hashes the leaky API shows). */
export const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

/** The cookies of a request. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return cookies;
}

/** The session cookie's name. */
export const SESSION_COOKIE = 'RASESSID';

/** A Set-Cookie value with the flags both twins give their cookies (no Secure: the app is served over HTTP). */
export const cookie = (name: string, value: string, extra = ''): string =>
  `${name}=${value}; Path=/; HttpOnly; SameSite=Lax${extra}`;

/** The session cookie: without SameSite on the vulnerable twin (as PHP sets it by default), so a cross-site POST carries it. */
export const sessionCookie = (state: AppState, value: string, extra = ''): string =>
  state.isSafe ? cookie(SESSION_COOKIE, value, extra) : `${SESSION_COOKIE}=${value}; Path=/; HttpOnly${extra}`;

/** The form fields of a URL-encoded body (or a query string). */
export function formFields(body: Buffer | string): URLSearchParams {
  return new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'));
}

/** A request's parameter from the query (GET) or the body (POST), as PHP's $_REQUEST would give it. */
export function param(request: AppRequest, name: string): string | null {
  const source = request.method === 'POST' ? formFields(request.body) : request.url.searchParams;
  return source.get(name);
}

/** The safe twin's anti-CSRF hidden input (empty on the vulnerable twin). */
export const tokenInput = (request: AppRequest): string =>
  request.isSafe && request.session !== undefined
    ? `<input type="hidden" name="user_token" value="${request.session.token}">`
    : '';

/** Whether the safe twin's form came with the session's token. */
export const hasValidToken = (request: AppRequest): boolean =>
  request.session !== undefined && param(request, 'user_token') === request.session.token;

/** The links every logged-in page shows (the pages the client-side menu leads to are not among them). */
const STATIC_LINKS: Array<[string, string]> = [
  ['/', 'Home'],
  ['/vulnerabilities/sqli/', 'SQL Injection'],
  ['/vulnerabilities/exec/', 'Command Injection'],
  ['/vulnerabilities/csrf/', 'CSRF'],
  ['/vulnerabilities/fi/?page=include.php', 'File Inclusion'],
  ['/vulnerabilities/xss_r/', 'XSS (Reflected)'],
  ['/vulnerabilities/xss_s/', 'XSS (Stored)'],
  ['/vulnerabilities/weak_id/', 'Weak Session IDs'],
  ['/vulnerabilities/open_redirect/', 'Open HTTP Redirect'],
  ['/vulnerabilities/profile/', 'Profile'],
  ['/security', 'DVWA Security'],
  ['/about', 'About'],
];

/** A logged-in page: title, the static menu, the user line and the Logout link around `content`. */
export function layout(request: AppRequest, title: string, content: string, scripts: string[] = []): string {
  const account = request.account;
  const menu = STATIC_LINKS.map(([href, text]) => `<li><a href="${href}">${text}</a></li>`).join('');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} :: Damn Vulnerable Web Application (DVWA)</title>
<link rel="stylesheet" href="/static/main.css">${scripts.map((s) => `<script src="${s}" defer></script>`).join('')}</head>
<body><div id="container"><div id="header"><img src="/static/logo.png" alt="DVWA"></div>
<div id="main_menu"><ul class="menuBlocks">${menu}<li><a href="/logout">Logout</a></li></ul></div>
<div id="main_body"><div class="body_padded"><h1>${escapeHtml(title)}</h1>
${content}
</div></div>
<div id="system_info"><em>Username:</em> ${escapeHtml(account?.username ?? '')}<br><em>Security Level:</em> ${account?.level ?? ''}</div>
<div id="footer"><p>Damn Vulnerable Web Application (DVWA)</p></div></div></body></html>`;
}

/** An HTML answer. */
export const html = (body: string, status = 200, headers: Record<string, string | string[]> = {}): AppResponse => ({
  status,
  headers: { 'content-type': 'text/html;charset=utf-8', ...headers },
  body,
});

/** A 302 to `location`. */
export const redirect = (location: string, headers: Record<string, string | string[]> = {}): AppResponse => ({
  status: 302,
  headers: { location, ...headers },
  body: '',
});

/** mulberry32: a small seeded random source (the answer delays repeat from run to run). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
