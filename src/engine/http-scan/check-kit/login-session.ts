import type { ScanSink } from '../../../core/scans/scan-engine.ts';
import type { ProfileLogin } from '../../../core/scans/scan-profile-settings.ts';
import type { HttpExchange } from './guarded-http-client.ts';
import { extractPageLinks, formSubmission } from './html-links.ts';
import { fillLoginForm, findLoginForm, formNames } from './login-form.ts';
import { isHtmlResponse } from './page-check.ts';
import type { KeptRequest, ScanSession, SessionKeeper } from './scan-session.ts';

/**
 * Compiles a CSS selector into a test of an HTML page, or undefined when it cannot. Passed in:
 * the engine's selector matcher (fingerprint/css-selector.ts) lives in a folder that imports
 * this one.
 */
export type SelectorCompiler = (selector: string) => ((html: string) => boolean) | undefined;

/** Logins after the first one a scan may make; past it the scan warns and goes on as it is. */
export const maxRelogins = 20;
/** Redirects followed from the login page and from the login form's answer. */
const maxRedirects = 5;
const formContentType = 'application/x-www-form-urlencoded';

/** How a login ended. */
export type LoginResult = { isLoggedIn: true; landing: URL } | { isLoggedIn: false; reason: string };

/** What a logged-out page looks like once the login form is known: where it posts and which given fields it holds. */
interface LoginFormSignature {
  method: 'GET' | 'POST';
  /** origin + path of the form's action. */
  action: string;
  /** The given field names the form holds (the login form elsewhere holds them all). */
  names: string[];
}

/** How strongly an answer says the session is lost: `strong` logs in again at once, `weak` first asks the landing page. */
type LogoutSignal = 'strong' | 'weak';

/** Inputs of a login session. */
export interface LoginSessionOptions {
  session: ScanSession;
  login: ProfileLogin;
  /** The scan's start URL: a root-relative login URL is resolved against it. */
  start: URL;
  sink: Pick<ScanSink, 'warning'>;
  selectors: SelectorCompiler;
  /** Logins after the first one (default maxRelogins). */
  maxRelogins?: number;
}

/** origin + path of a URL: the identity of a page here (query aside). */
function pageKey(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** The location an answer redirects to, resolved, or undefined. */
function redirectOf(exchange: HttpExchange, url: URL): URL | undefined {
  if (exchange.status < 300 || exchange.status >= 400) return undefined;
  const location = exchange.headers.find((h) => h.name === 'location')?.value;
  if (location === undefined) return undefined;
  try {
    return new URL(location, url);
  } catch {
    return undefined;
  }
}

/**
 * Keeps a scan logged in through a form login (the profile's `login` extension): logs in at the
 * start, watches every answer of the scan for a logout (a redirect to the login page, the login
 * form on another page, the logged-out indicator: at once; a 401 or the logged-in indicator gone
 * from a page that showed it: once the landing page says the session is lost), logs in again
 * (alone: new requests wait, requests in flight are let finish) and sends the request again,
 * alone. A request logged out again when sent alone right after a login (or after an answer
 * that showed the session alive), while the landing page says the session is lost, ended it:
 * it is remembered in the session's endings (never sent again) with one warning. Past
 * maxRelogins the scan warns and goes on as it is.
 */
/** Exchanges of logins kept for the checks (a login is 2 to 7 requests; later logins repeat the first). */
const maxKeptExchanges = 8;

export class LoginSession implements SessionKeeper {
  /** Successful logins so far (SessionKeeper). */
  generation = 0;
  /** Logins after the first. */
  relogins = 0;
  private readonly loginUrl: URL;
  private readonly maxRelogins: number;
  private readonly loggedInTests: Array<(html: string) => boolean> = [];
  private readonly loggedOutTests: Array<(html: string) => boolean> = [];
  private signature: LoginFormSignature | undefined;
  /** origin + path of the login page (as given, and where it redirected to) and of the form's action. */
  private readonly loginPages = new Set<string>();
  private landing: URL | undefined;
  private pending: Promise<boolean> | undefined;
  private alive: Promise<boolean> | undefined;
  private isGivenUp = false;
  /** Closed while a login runs alone (see exclusive). */
  private gate: Promise<void> | undefined;
  private inFlight = 0;
  private drained: (() => void) | undefined;
  /** Watched requests sent so far, and their count at the last login or clean retry (see isFresh). */
  private watchedSent = 0;
  private freshAt = -1;
  /** Pages (origin + path) that showed the logged-in indicator. */
  private readonly indicatorPages = new Set<string>();
  /** Requests (method, origin + path) whose logged-out look proved wrong: not judged again. */
  private readonly ignored = new Set<string>();
  private readonly warned = new Set<string>();
  /**
   * The exchanges of logins (the login page, the form's submission, the redirects), up to
   * maxKeptExchanges: the crawl never sees them otherwise, and the session cookie is set there.
   */
  readonly exchanges: Array<{ url: URL; exchange: HttpExchange }> = [];

  constructor(private readonly options: LoginSessionOptions) {
    const { login, start, selectors } = options;
    this.loginUrl = new URL(login.url, start);
    this.maxRelogins = options.maxRelogins ?? maxRelogins;
    if (login.logged_in_text !== null) this.loggedInTests.push(textTest(login.logged_in_text));
    if (login.logged_out_text !== null) this.loggedOutTests.push(textTest(login.logged_out_text));
    for (const [selector, tests] of [
      [login.logged_in_selector, this.loggedInTests],
      [login.logged_out_selector, this.loggedOutTests],
    ] as const) {
      if (selector === null) continue;
      const test = selectors(selector);
      if (test === undefined)
        this.warnOnce(`selector ${selector}`, `login selector ${selector} cannot be matched: ignored`);
      else tests.push(test);
    }
  }

  /** Resolves once no login runs (SessionKeeper); the request then counts as in flight until leave(). */
  async ready(): Promise<void> {
    while (this.gate !== undefined) await this.gate;
    this.inFlight += 1;
    this.watchedSent += 1;
  }

  /** A request let through by ready() has its answer (SessionKeeper). */
  leave(): void {
    this.inFlight -= 1;
    if (this.inFlight === 0) this.drained?.();
  }

  /**
   * Runs `work` alone: new requests wait, and it starts once the requests in flight have their
   * answers (a request of the scan landing during a login could change its anti-CSRF token or
   * end the new session).
   */
  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    while (this.gate !== undefined) await this.gate;
    let open = (): void => undefined;
    this.gate = new Promise<void>((resolve) => (open = resolve));
    try {
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      return await work();
    } finally {
      this.drained = undefined;
      this.gate = undefined;
      open();
    }
  }

  /**
   * Logs in, alone (see exclusive): GETs the login page (following redirects inside the
   * scope), fills its login form with the given values, submits it as a browser would, follows
   * the redirects, and checks the landing page (the logged-in indicator present; without one,
   * no login form and no logged-out indicator). A failed attempt is tried once more.
   */
  login(signal: AbortSignal): Promise<LoginResult> {
    return this.exclusive(async () => {
      const first = await this.attempt(signal);
      return first.isLoggedIn ? first : this.attempt(signal);
    });
  }

  /** One login attempt (see login). */
  private async attempt(signal: AbortSignal): Promise<LoginResult> {
    const { session, login } = this.options;
    if (!session.scope.isUrlAllowed(this.loginUrl))
      return { isLoggedIn: false, reason: `the login page ${this.loginUrl.href} is outside the scan's scope` };
    const page = await this.fetch('GET', this.loginUrl, signal);
    if (page.exchange.status !== 200)
      return { isLoggedIn: false, reason: `the login page ${page.url.href} answered ${page.exchange.status}` };
    const names = login.fields.map((f) => f.name);
    const form = findLoginForm(page.exchange.body, names);
    // Still logged in (a false alarm): many applications send a logged-in visitor of the login page on.
    if (form === undefined && this.generation > 0 && pageKey(page.url) !== pageKey(this.loginUrl))
      if (this.judgeLanding(page.exchange, page.url) === undefined) return this.loggedInAt(page.url);
    if (form === undefined) return { isLoggedIn: false, reason: `no login form on ${page.url.href}` };
    const submission = formSubmission(fillLoginForm(form, login.fields), page.url);
    if (submission === undefined)
      return { isLoggedIn: false, reason: `the login form of ${page.url.href} cannot be submitted` };
    const held = formNames(form);
    this.signature = {
      method: submission.method,
      action: pageKey(submission.url),
      names: names.filter((name) => held.has(name)),
    };
    this.loginPages.add(pageKey(this.loginUrl)).add(pageKey(page.url)).add(pageKey(submission.url));
    const body =
      submission.body === undefined
        ? undefined
        : { contentType: submission.contentType ?? formContentType, text: submission.body };
    const landed = await this.fetch(submission.method, submission.url, signal, body);
    const verdict = this.judgeLanding(landed.exchange, landed.url);
    if (verdict !== undefined) return { isLoggedIn: false, reason: verdict };
    return this.loggedInAt(landed.url);
  }

  /** Records a login that landed on `url` (a new generation, fresh). */
  private loggedInAt(url: URL): LoginResult {
    // A login answered in place (no redirect): its URL is the form's; the start page tells the session's state instead.
    this.landing = this.loginPages.has(pageKey(url)) ? this.options.start : url;
    this.generation += 1;
    this.freshAt = this.watchedSent;
    this.alive = undefined;
    return { isLoggedIn: true, landing: url };
  }

  /** Why the page after a login is not a logged-in page, or undefined when it is. */
  private judgeLanding(exchange: HttpExchange, url: URL): string | undefined {
    const where = `the page after the login (${url.href}, status ${exchange.status})`;
    if (this.loggedInTests.length > 0)
      return this.loggedInTests.some((test) => test(exchange.body))
        ? undefined
        : `${where} lacks the logged-in indicator`;
    if (exchange.status >= 400) return `${where} is an error`;
    if (this.loggedOutTests.some((test) => test(exchange.body))) return `${where} shows the logged-out indicator`;
    if (this.showsLoginForm(exchange, url)) return `${where} shows the login form again`;
    return undefined;
  }

  /** True when an HTML answer holds the login form (same method and action, the given fields). */
  private showsLoginForm(exchange: HttpExchange, url: URL): boolean {
    const signature = this.signature;
    if (signature === undefined || !isHtmlResponse(exchange)) return false;
    // Most pages name none of the login's fields: no parsing needed.
    if (!signature.names.every((name) => exchange.body.includes(name))) return false;
    return extractPageLinks(exchange.body).forms.some((form) => {
      const submission = formSubmission(form, url);
      if (submission === undefined || submission.method !== signature.method) return false;
      if (pageKey(submission.url) !== signature.action) return false;
      const names = formNames(form);
      return signature.names.every((name) => names.has(name));
    });
  }

  /** Sends a request of the login's own (unwatched) and follows its redirects inside the scope. */
  private async fetch(
    method: string,
    url: URL,
    signal: AbortSignal,
    body?: { contentType: string; text: string },
  ): Promise<{ exchange: HttpExchange; url: URL }> {
    const { session } = this.options;
    let exchange = await session.send(method, url, signal, {
      isSessionUpkeep: true,
      ...(body === undefined ? {} : { body }),
    });
    this.keep(url, exchange);
    let at = url;
    for (let hop = 0; hop < maxRedirects; hop += 1) {
      const next = redirectOf(exchange, at);
      if (next === undefined || !session.scope.isUrlAllowed(next)) break;
      next.hash = '';
      at = next;
      exchange = await session.send('GET', at, signal, { isSessionUpkeep: true });
      this.keep(at, exchange);
    }
    return { exchange, url: at };
  }

  /** Keeps an exchange of a login for the checks (the first logins' only). */
  private keep(url: URL, exchange: HttpExchange): void {
    if (this.exchanges.length < maxKeptExchanges) this.exchanges.push({ url, exchange });
  }

  /** What an answer says of the session: a logout signal, or undefined. */
  private logoutSignal(request: KeptRequest, exchange: HttpExchange): LogoutSignal | undefined {
    const isHtml = isHtmlResponse(exchange);
    const page = pageKey(request.url);
    const isLoginPage = this.loginPages.has(page);
    let signal: LogoutSignal | undefined;
    const target = redirectOf(exchange, request.url);
    // A login page that is also the landing page (a form on the home page) is where ordinary redirects go too.
    if (target !== undefined && this.loginPages.has(pageKey(target)))
      signal = this.landing !== undefined && pageKey(target) === pageKey(this.landing) ? 'weak' : 'strong';
    else if (isHtml && this.loggedOutTests.some((test) => test(exchange.body))) signal = 'strong';
    else if (!isLoginPage && this.showsLoginForm(exchange, request.url)) signal = 'strong';
    else if (exchange.status === 401) signal = 'weak';
    else if (isHtml && exchange.status === 200 && this.loggedInTests.length > 0) {
      if (this.loggedInTests.some((test) => test(exchange.body))) this.indicatorPages.add(page);
      else if (this.indicatorPages.has(page)) signal = 'weak';
    }
    // The login page and the form's action look logged out by nature: ask the landing page first.
    return signal === 'strong' && isLoginPage ? 'weak' : signal;
  }

  /** Judges an answer of the scan (SessionKeeper): `retry` once the session is renewed. */
  async afterAnswer(
    request: KeptRequest,
    exchange: HttpExchange,
    generation: number,
    signal: AbortSignal,
  ): Promise<'keep' | 'retry'> {
    if (this.isGivenUp) return 'keep';
    const verdict = this.logoutSignal(request, exchange);
    if (verdict === undefined || this.ignored.has(requestKey(request))) return 'keep';
    if (this.generation !== generation) return 'retry'; // sent before the latest login
    if (verdict === 'weak' && (await this.isAlive(signal))) {
      this.ignored.add(requestKey(request));
      return 'keep';
    }
    return (await this.renew(generation, signal)) ? 'retry' : 'keep';
  }

  /**
   * Sends a request again, alone (SessionKeeper). Logged out again: if the session lives, its
   * page only looks logged out (not judged again); else, sent right after a login (fresh), the
   * request ended the session: it joins the session's endings (one warning) and the scan logs
   * in again; not fresh, it is tried once more right after a login.
   */
  retry(request: KeptRequest, signal: AbortSignal, send: () => Promise<HttpExchange>): Promise<HttpExchange> {
    return this.exclusive(async () => {
      let answer = await send();
      for (let tries = 0; ; tries += 1) {
        const wasFresh = this.isFresh();
        this.watchedSent += 1;
        if (this.isGivenUp) break;
        // Alive after it: what comes next alone is judged on its own (fresh).
        if (this.logoutSignal(request, answer) === undefined) {
          this.freshAt = this.watchedSent;
          break;
        }
        if (await this.checkAlive(signal)) {
          this.ignored.add(requestKey(request));
          this.freshAt = this.watchedSent;
          break;
        }
        if (wasFresh) {
          if (this.options.session.endings.learn(request.method, request.url))
            this.options.sink.warning(
              `${request.method} ${request.url.pathname} logged the scan out: it is never requested again in this scan`,
            );
          await this.relogin(signal);
          break;
        }
        if (tries > 0 || !(await this.relogin(signal))) break;
        answer = await send();
      }
      return answer;
    });
  }

  /** True when no watched request was sent since the last login or clean retry. */
  private isFresh(): boolean {
    return this.freshAt === this.watchedSent;
  }

  /** Logs in again inside an exclusive section, within the bound; true when it worked. */
  private async relogin(signal: AbortSignal): Promise<boolean> {
    if (!this.countRelogin()) return false;
    const result = await this.attempt(signal);
    if (!result.isLoggedIn) this.warnOnce(`relogin ${result.reason}`, `login again failed: ${result.reason}`);
    return result.isLoggedIn;
  }

  /** Counts a login after the first; false (with one warning, and the keeper giving up) past the bound. */
  private countRelogin(): boolean {
    if (this.relogins >= this.maxRelogins) {
      this.isGivenUp = true;
      this.warnOnce(
        'relogins',
        `login: the session was lost more than ${this.maxRelogins} times; the scan goes on without logging in again (pages behind the login may be missed)`,
      );
      return false;
    }
    this.relogins += 1;
    return true;
  }

  /** True when the landing page of the last login reads as logged in (asked now). */
  private async checkAlive(signal: AbortSignal): Promise<boolean> {
    const landing = this.landing;
    if (landing === undefined) return false;
    const exchange = await this.options.session.send('GET', landing, signal, { isSessionUpkeep: true });
    return redirectOf(exchange, landing) === undefined && this.judgeLanding(exchange, landing) === undefined;
  }

  /** checkAlive shared by the answers that ask at the same time. */
  private isAlive(signal: AbortSignal): Promise<boolean> {
    if (this.alive !== undefined) return this.alive;
    const check = this.checkAlive(signal);
    this.alive = check;
    // The answer holds for the requests that asked while it was on its way, not for later ones.
    const forget = (): void => {
      if (this.alive === check) this.alive = undefined;
    };
    check.then(forget, forget);
    return check;
  }

  /** Logs in again unless someone did since `generation` (one login at a time); false when it failed or the bound is reached. */
  private renew(generation: number, signal: AbortSignal): Promise<boolean> {
    if (this.generation !== generation) return Promise.resolve(true);
    if (this.pending !== undefined) return this.pending;
    if (!this.countRelogin()) return Promise.resolve(false);
    const login = this.exclusive(() =>
      this.generation !== generation
        ? Promise.resolve<LoginResult>({ isLoggedIn: true, landing: this.loginUrl })
        : this.attempt(signal).then((first) => (first.isLoggedIn ? first : this.attempt(signal))),
    );
    this.pending = login
      .then((result) => {
        if (!result.isLoggedIn) this.warnOnce(`relogin ${result.reason}`, `login again failed: ${result.reason}`);
        return result.isLoggedIn;
      })
      .catch((err: unknown) => {
        if (signal.aborted) throw err;
        this.warnOnce('relogin error', `login again failed: ${err instanceof Error ? err.message : String(err)}`);
        return false;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.options.sink.warning(message);
  }
}

/** The key of a request whose look is judged: method, origin and path. */
function requestKey(request: KeptRequest): string {
  return `${request.method} ${pageKey(request.url)}`;
}

/** A test of a page for a text (the raw HTML holds it). */
function textTest(text: string): (html: string) => boolean {
  return (html) => html.includes(text);
}

/**
 * Logs the scan in (the profile's `login`) and keeps it logged in: the session gets the
 * LoginSession as its keeper. A failed first login is one warning and the scan goes on
 * unauthenticated (what is public still gets scanned; the warning says the pages behind the
 * login were not); undefined then.
 */
export async function startLoginSession(
  options: LoginSessionOptions,
  signal: AbortSignal,
): Promise<LoginSession | undefined> {
  const keeper = new LoginSession(options);
  let result: LoginResult;
  try {
    result = await keeper.login(signal);
  } catch (err) {
    if (signal.aborted) throw err;
    result = { isLoggedIn: false, reason: err instanceof Error ? err.message : String(err) };
  }
  if (!result.isLoggedIn) {
    options.sink.warning(
      `login failed: ${result.reason}; the scan went on without logging in, so the pages behind the login were not scanned`,
    );
    return undefined;
  }
  options.session.keepSession(keeper);
  return keeper;
}
