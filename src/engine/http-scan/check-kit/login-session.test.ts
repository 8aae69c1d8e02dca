import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ScanSink } from '../../../core/scans/scan-engine.ts';
import { defaultScanProfileSettings, type ProfileLogin } from '../../../core/scans/scan-profile-settings.ts';
import type { GuardedHttpClient, HttpExchange, HttpRequestSpec } from './guarded-http-client.ts';
import { extractPageLinks } from './html-links.ts';
import { fillLoginForm, findLoginForm } from './login-form.ts';
import { LoginSession, startLoginSession } from './login-session.ts';
import { RequestBudget } from './request-budget.ts';
import { ScanScope } from './scan-scope.ts';
import { ProgressReporter, ScanSession } from './scan-session.ts';

const origin = 'http://127.0.0.1:8080';
const loginForm = (token: string) =>
  '<form action="/login" method="post"><input name="user"><input type="password" name="pass">' +
  `<input type="hidden" name="csrf" value="${token}"><input type="submit" name="Login" value="Login"></form>`;

/**
 * An application in memory: a form login with an anti-CSRF token and a button, a session
 * cookie, pages that redirect to /login when logged out, and pages that misbehave on purpose.
 */
class App {
  readonly sessions = new Map<string, { user: boolean; token: string }>();
  logins = 0;
  requests: string[] = [];
  /** True: a login answers the home page in place (200), without a redirect. */
  answersInPlace = false;
  /** True: a logged-in visitor of the login page is sent on to /home. */
  sendsLoggedInOn = false;
  private next = 0;
  /** Ends every session (an expiry). */
  expire(): void {
    for (const s of this.sessions.values()) s.user = false;
  }

  handle(spec: HttpRequestSpec): HttpExchange {
    const url = spec.url;
    this.requests.push(`${spec.method} ${url.pathname}`);
    const sid = /sid=(\w+)/.exec(spec.headers.find((h) => h.name === 'cookie')?.value ?? '')?.[1];
    let session = sid === undefined ? undefined : this.sessions.get(sid);
    const headers: Array<{ name: string; value: string }> = [{ name: 'content-type', value: 'text/html' }];
    if (session === undefined) {
      const id = `s${(this.next += 1)}`;
      session = { user: false, token: '' };
      this.sessions.set(id, session);
      headers.push({ name: 'set-cookie', value: `sid=${id}; Path=/` });
    }
    const answer = (status: number, body: string, location?: string): HttpExchange => ({
      request: spec,
      status,
      headers: location === undefined ? headers : [...headers, { name: 'location', value: location }],
      body,
      isTruncated: false,
    });
    const page = (text: string) => answer(200, `<html><body><a href="/bye">Sign off</a> ${text}</body></html>`);
    if (url.pathname === '/login') {
      if (spec.method === 'POST') {
        const fields = new URLSearchParams(spec.body);
        if (fields.get('csrf') === session.token && fields.get('pass') === 'right' && fields.has('Login')) {
          session.user = true;
          this.logins += 1;
          return this.answersInPlace ? page('Welcome to /home') : answer(302, '', '/home');
        }
        return answer(302, '', '/login');
      }
      if (session.user && this.sendsLoggedInOn) return answer(302, '', '/home');
      session.token = `t${this.next}`;
      return answer(200, `<html><body>${loginForm(session.token)}</body></html>`);
    }
    if (url.pathname === '/api/admin') return answer(401, '{}');
    if (url.pathname === '/popup') return answer(200, '<html><body>a bare page</body></html>');
    if (!session.user && url.pathname === '/other-login')
      return answer(200, `<html><body>${loginForm('x')}</body></html>`);
    if (!session.user && url.pathname === '/soft') return answer(200, '<html><body>Session over</body></html>');
    if (!session.user && url.pathname === '/quiet') return answer(200, '<html><body>Come back</body></html>');
    if (url.pathname === '/flaky' && this.requests.filter((r) => r === 'GET /flaky').length > 1)
      return answer(200, '<html><body>Fatal error</body></html>');
    if (!session.user) return answer(302, '', '/login');
    if (url.pathname === '/vanish') session.user = false;
    if (url.pathname === '/goodbye') {
      session.user = false;
      return answer(302, '', '/login');
    }
    return page(`Welcome to ${url.pathname}`);
  }
}

const login = (overrides: Partial<ProfileLogin> = {}): ProfileLogin => ({
  url: '/login',
  fields: [
    { name: 'user', value: 'admin' },
    { name: 'pass', value: 'right' },
  ],
  logged_in_text: 'Sign off',
  logged_in_selector: null,
  logged_out_text: null,
  logged_out_selector: null,
  ...overrides,
});

function setUp(app: App) {
  const warnings: string[] = [];
  const sink: ScanSink = {
    finding: async () => undefined,
    progress: () => undefined,
    warning: (w) => warnings.push(w),
  };
  const target = { scheme: 'http' as const, host: '127.0.0.1', port: 8080, scopeName: '127.0.0.1' };
  const client: GuardedHttpClient = {
    send: async (spec) => app.handle(spec),
    addressesOf: async () => ['127.0.0.1'],
    close: async () => undefined,
  };
  const settings = { ...defaultScanProfileSettings };
  const progress = new ProgressReporter(sink, { pagesCrawled: 0, requestsSent: 0, checksDone: 0 });
  const session = new ScanSession(
    target,
    settings,
    new ScanScope(target, settings),
    client,
    new RequestBudget(0, 8),
    progress,
  );
  return { session, warnings, sink, signal: new AbortController().signal };
}

async function loggedIn(app: App, overrides: Partial<ProfileLogin> = {}, maxRelogins?: number) {
  const parts = setUp(app);
  const keeper = await startLoginSession(
    {
      session: parts.session,
      login: login(overrides),
      start: new URL(`${origin}/`),
      sink: parts.sink,
      selectors: () => undefined,
      ...(maxRelogins === undefined ? {} : { maxRelogins }),
    },
    parts.signal,
  );
  assert.ok(keeper instanceof LoginSession, parts.warnings.join('\n'));
  const get = (path: string) => parts.session.send('GET', new URL(path, origin), parts.signal);
  return { ...parts, keeper, get };
}

describe('login forms', () => {
  it('finds the login form among others and fills it as a browser submits it', () => {
    const html =
      '<form action="/search"><input name="q"><input type="submit" value="Go"></form>' +
      '<form action="/login" method="post"><input name="user"><input type="password" name="pass">' +
      '<input type="hidden" name="csrf" value="tok"><input type="submit" name="Login" value="Login"></form>';
    const form = findLoginForm(html, ['user', 'pass']);
    assert.equal(form?.action, '/login');
    const filled = fillLoginForm(form!, [
      { name: 'user', value: 'admin' },
      { name: 'pass', value: 'secret' },
      { name: 'remember', value: '1' },
    ]);
    assert.deepEqual(filled.fields, [
      ['user', 'admin'],
      ['pass', 'secret'],
      ['csrf', 'tok'],
      ['remember', '1'],
    ]);
    assert.deepEqual(filled.buttons[0]?.fields, [['Login', 'Login']]);
    // A given value for the button picks and sets it.
    const chosen = fillLoginForm(form!, [{ name: 'Login', value: 'Sign in' }]);
    assert.deepEqual(chosen.buttons[0]?.fields, [['Login', 'Sign in']]);
    assert.equal(findLoginForm('<form action="/search"><input name="q"></form>', ['user']), undefined);
    // A lone password form is a login form even when no given name matches.
    const lone = extractPageLinks('<form action="/in" method="post"><input type="password" name="pw"></form>');
    assert.equal(
      findLoginForm('<form action="/in" method="post"><input type="password" name="pw"></form>', ['x'])?.action,
      lone.forms[0]?.action,
    );
  });
});

describe('LoginSession', () => {
  it('logs in with the served anti-CSRF token and the button, and says why a login fails', async () => {
    const app = new App();
    const { get } = await loggedIn(app);
    assert.equal(app.logins, 1);
    assert.match((await get('/home')).body, /Welcome to \/home/);
    const wrong = setUp(new App());
    const keeper = await startLoginSession(
      {
        session: wrong.session,
        login: login({
          fields: [
            { name: 'user', value: 'admin' },
            { name: 'pass', value: 'wrong' },
          ],
          logged_in_text: null,
        }),
        start: new URL(`${origin}/`),
        sink: wrong.sink,
        selectors: () => undefined,
      },
      wrong.signal,
    );
    assert.equal(keeper, undefined);
    assert.equal(wrong.warnings.length, 1);
    assert.match(wrong.warnings[0]!, /^login failed: .*shows the login form again/);
  });

  it('sees a redirect to the login page, logs in again and answers with the retry', async () => {
    const app = new App();
    const { get, keeper } = await loggedIn(app);
    app.expire();
    const answer = await get('/account');
    assert.equal(answer.status, 200);
    assert.match(answer.body, /Welcome to \/account/);
    assert.equal(app.logins, 2);
    assert.equal(keeper.relogins, 1);
  });

  it('keeps a login answered in place (no redirect) alive through the start page', async () => {
    const app = new App();
    app.answersInPlace = true;
    const { get, keeper } = await loggedIn(app);
    assert.equal((await get('/api/admin')).status, 401);
    assert.equal(keeper.relogins, 0);
    assert.equal(app.requests.at(-1), 'GET /');
    app.expire();
    assert.match((await get('/account')).body, /Welcome to \/account/);
    assert.equal(keeper.relogins, 1);
  });

  it('takes a false alarm in its stride when the login page sends a logged-in visitor on', async () => {
    const app = new App();
    app.sendsLoggedInOn = true;
    // The logged-out selector matches nothing here; the text "Welcome to /bait" is made to look logged out.
    const { get, keeper, warnings } = await loggedIn(app, { logged_out_text: 'to /bait' });
    assert.match((await get('/bait')).body, /Welcome to \/bait/);
    assert.equal(app.logins, 1);
    assert.deepEqual(warnings, []);
    assert.ok(keeper.relogins >= 1);
    assert.match((await get('/home')).body, /Welcome/);
  });

  it('logs in once for many requests that find the session lost at the same time', async () => {
    const app = new App();
    const { get, keeper } = await loggedIn(app);
    app.expire();
    const answers = await Promise.all(['/a', '/b', '/c', '/d', '/e'].map((path) => get(path)));
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 200, 200],
    );
    assert.equal(keeper.relogins, 1);
  });

  it('takes the login form on another page, the logged-out text, or a page losing the logged-in text as a logout', async () => {
    const app = new App();
    const { get, keeper } = await loggedIn(app, { logged_out_text: 'Session over' });
    assert.match((await get('/quiet')).body, /Welcome/);
    let relogins = 0;
    for (const path of ['/other-login', '/soft', '/quiet']) {
      app.expire();
      const answer = await get(path);
      assert.match(answer.body, /Welcome/, path);
      assert.equal(keeper.relogins, (relogins += 1), path);
    }
  });

  it('asks the landing page before believing a 401 or a page without the logged-in text', async () => {
    const app = new App();
    const { get, keeper } = await loggedIn(app);
    assert.equal((await get('/api/admin')).status, 401);
    assert.equal((await get('/api/admin')).status, 401);
    // /popup never had the logged-in text: not a signal at all.
    await get('/popup');
    // /flaky had it, then answers an error page while the session lives: one look at the landing page.
    assert.match((await get('/flaky')).body, /Welcome/);
    const before = app.requests.length;
    assert.match((await get('/flaky')).body, /Fatal error/);
    assert.deepEqual(app.requests.slice(before), ['GET /flaky', 'GET /home']);
    assert.equal(keeper.relogins, 0);
    assert.equal(app.logins, 1);
  });

  it('remembers a request that logs out (seen alone, right after a login) and never sends it again', async () => {
    const app = new App();
    const { get, keeper, session, warnings } = await loggedIn(app);
    const answer = await get('/goodbye');
    assert.equal(answer.status, 302);
    assert.ok(
      warnings.some((w) => w.startsWith('GET /goodbye logged the scan out')),
      warnings.join('\n'),
    );
    const sent = app.requests.filter((r) => r === 'GET /goodbye').length;
    assert.ok(sent >= 2 && sent <= 3, String(sent));
    await assert.rejects(get('/goodbye'), /ends the session/);
    assert.equal(app.requests.filter((r) => r === 'GET /goodbye').length, sent);
    // Logged in again after it.
    assert.match((await get('/home')).body, /Welcome/);
    assert.ok(keeper.relogins >= 1);
    assert.ok(session.endings.ends('GET', new URL('/goodbye', origin), []));
    // By name: never sent at all.
    await assert.rejects(get('/logout'), /ends the session/);
    assert.ok(!app.requests.includes('GET /logout'));
  });

  it('stops logging in again past the bound, with one warning', async () => {
    const app = new App();
    const { get, keeper, warnings } = await loggedIn(app, {}, 2);
    for (let i = 0; i < 4; i += 1) {
      app.expire();
      await get(`/page${i}`);
    }
    assert.equal(keeper.relogins, 2);
    assert.equal(warnings.filter((w) => w.includes('lost more than 2 times')).length, 1);
    assert.equal((await get('/later')).status, 302);
  });
});
