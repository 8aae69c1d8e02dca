import { spotsOf, type SiteModule, type SiteRequest, type SiteResponse, type Spot } from './types.ts';

/**
 * The authentication spots of the fixture site: login forms over plain HTTP or posting to an
 * http:// action, a password field with autocomplete="on", and two administration panels that
 * accept default credentials (an HTML form at /admin/login, HTTP basic authentication at
 * /manager/html). The safe twin redirects its login pages to HTTPS when served over HTTP, uses
 * autocomplete="current-password", and accepts no default credentials (its forms re-render with
 * an error, its basic challenge stays 401). Every login attempt is recorded in loginAttempts.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const page = (title: string, body: string, status = 200): SiteResponse => ({
  status,
  headers: html,
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`,
});

/** Login answers take this long, so that overlapping attempts would show in the arrival times. */
export const loginDelayMs = 25;

/** One login attempt the fixture received (form or basic). */
export interface LoginAttempt {
  /** The server's port (which twin and run). */
  port: number;
  path: string;
  user: string;
  password: string;
  /** performance.now() on arrival. */
  at: number;
}

/** Every login attempt received by any fixture server of this process. */
export const loginAttempts: LoginAttempt[] = [];

const record = (request: SiteRequest, user: string, password: string): void => {
  loginAttempts.push({
    port: request.req.socket.localPort ?? 0,
    path: request.url.pathname,
    user,
    password,
    at: performance.now(),
  });
};

/** The safe twin serves logins only over HTTPS: over HTTP it redirects. */
const toHttps = (request: SiteRequest): SiteResponse => ({
  status: 301,
  headers: { location: `https://${request.req.headers.host ?? '127.0.0.1'}${request.url.pathname}` },
  body: '',
});

interface LoginPage {
  title: string;
  /** The form's action on the vulnerable site (the safe twin posts to the page itself). */
  vulnerableAction: string;
  fields: string;
  /** The password input, vulnerable and safe. */
  password: { vulnerable: string; safe: string };
  /** True when the vulnerable site accepts the pair. */
  isDefaultAccepted?(user: string, password: string): boolean;
}

const LOGINS: Record<string, LoginPage> = {
  '/signin': {
    title: 'Sign in',
    vulnerableAction: '/signin',
    fields: '<input name="username" autocomplete="username">',
    password: {
      vulnerable: '<input type="password" name="password" autocomplete="on">',
      safe: '<input type="password" name="password" autocomplete="current-password">',
    },
  },
  '/secure-login': {
    title: 'Secure login',
    vulnerableAction: 'http://login.fixture.invalid/session',
    fields: '<input type="email" name="email">',
    password: {
      vulnerable: '<input type="password" name="secret">',
      safe: '<input type="password" name="secret" autocomplete="current-password">',
    },
  },
  '/admin/login': {
    title: 'Administration',
    vulnerableAction: '/admin/login',
    fields:
      '<input type="hidden" name="csrf" value="f1x7ure"><input name="user"><label><input type="checkbox" name="remember" value="1"> remember me</label>',
    password: {
      vulnerable: '<input type="password" name="pass">',
      safe: '<input type="password" name="pass" autocomplete="current-password">',
    },
    isDefaultAccepted: (user, password) => user === 'admin' && password === 'admin',
  },
};

function login(request: SiteRequest, spec: LoginPage): SiteResponse {
  if (request.isSafe && request.scheme === 'http') return toHttps(request);
  const action = request.isSafe ? request.url.pathname : spec.vulnerableAction;
  const form = (error: string): SiteResponse =>
    page(
      spec.title,
      `${error}<form method="post" action="${action}">${spec.fields}${request.isSafe ? spec.password.safe : spec.password.vulnerable}<input type="submit" value="Log in"></form>`,
    );
  if (request.method !== 'POST') return form('');
  const fields = new URLSearchParams(request.body);
  const user = fields.get('user') ?? fields.get('username') ?? fields.get('email') ?? '';
  const password = fields.get('pass') ?? fields.get('password') ?? fields.get('secret') ?? '';
  record(request, user, password);
  const isAccepted = !request.isSafe && spec.isDefaultAccepted?.(user, password) === true;
  // A real panel: the login sets the session cookie the dashboard and its actions need.
  const answer = isAccepted
    ? {
        status: 303,
        headers: {
          location: '/admin/dashboard',
          'set-cookie': `${adminSessionCookie}=s3ss10n; Path=/; HttpOnly; SameSite=Lax${request.scheme === 'https' ? '; Secure' : ''}`,
        },
        body: '',
      }
    : form('<p class="error">Invalid user name or password.</p>');
  return { ...answer, delayMs: loginDelayMs };
}

/** /manager/html: a Tomcat-like manager behind HTTP basic authentication; tomcat/tomcat opens it on the vulnerable site. */
function manager(request: SiteRequest): SiteResponse {
  const header = request.req.headers.authorization ?? '';
  const match = /^Basic\s+(\S+)$/i.exec(header);
  if (match === null)
    return {
      ...page('401 Unauthorized', '<p>Authentication required.</p>', 401),
      headers: { ...html, 'www-authenticate': 'Basic realm="Tomcat Manager Application"' },
    };
  const [user = '', password = ''] = Buffer.from(match[1]!, 'base64').toString('utf8').split(':');
  record(request, user, password);
  const isAccepted = !request.isSafe && user === 'tomcat' && password === 'tomcat';
  const answer = isAccepted
    ? page('Tomcat Web Application Manager', '<p>Applications: /, /manager</p>')
    : {
        ...page('401 Unauthorized', '<p>Wrong credentials.</p>', 401),
        headers: { ...html, 'www-authenticate': 'Basic realm="Tomcat Manager Application"' },
      };
  return { ...answer, delayMs: loginDelayMs };
}

/** The session cookie of a successful administration login: a scan must never crawl on with it. */
export const adminSessionCookie = 'admin_session';

function handle(request: SiteRequest): SiteResponse | undefined {
  const path = request.url.pathname;
  const spec = LOGINS[path];
  if (spec !== undefined) return login(request, spec);
  if (path === '/manager/html') return manager(request);
  if (path === '/admin/dashboard')
    return request.isSafe ? page('Not found', '<p>Not found</p>', 404) : page('Dashboard', '<p>Welcome, admin.</p>');
  return undefined;
}

const spot = spotsOf('authentication');

const spots: Spot[] = [
  spot('login-over-http', 'login-over-http', '/signin', 'the sign-in form is served over plain HTTP', 'http'),
  spot(
    'admin-login-over-http',
    'login-over-http',
    '/admin/login',
    'the administration login is served over plain HTTP',
    'http',
  ),
  spot(
    'login-posts-to-http',
    'login-over-http',
    '/secure-login',
    'the login form posts to an http:// action on another host',
  ),
  spot(
    'password-autocomplete-on',
    'password-autocomplete',
    '/signin',
    'the sign-in password field says autocomplete="on"',
  ),
  spot(
    'default-credentials-form',
    'default-credentials',
    '/admin/login',
    'admin/admin opens the administration panel (HTML form)',
  ),
  spot(
    'default-credentials-basic',
    'default-credentials',
    '/manager/html',
    'tomcat/tomcat opens the manager (HTTP basic authentication)',
  ),
];

/** The authentication spots of the fixture site (see index.ts); each path answers fixed on the safe twin. */
export const authenticationModule: SiteModule = {
  name: 'authentication',
  spots,
  links: [...Object.keys(LOGINS), '/manager/html'],
  handle,
};
