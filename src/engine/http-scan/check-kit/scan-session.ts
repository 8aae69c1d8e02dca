import { CookieJar } from 'tough-cookie';
import type { ScanCounters, ScanSink, ScanTarget } from '../../../core/scans/scan-engine.ts';
import type { ScanProfileSettings } from '../../../core/scans/scan-profile-settings.ts';
import type { HttpHeader } from '../../../core/vulnerabilities/vulnerability.types.ts';
import type { GuardedHttpClient, HttpExchange } from './guarded-http-client.ts';
import type { RequestBudget } from './request-budget.ts';
import { originOf, originText, type ScanScope } from './scan-scope.ts';
import { HttpRequestError } from './guarded-http-client.ts';
import { requestFieldNames, SessionEndings } from './session-ending.ts';

/** The User-Agent of scan requests unless the profile's custom_headers set one. */
export const scannerUserAgent = 'perimeter-scanner/0.1 (+application scan)';

/** What a request may add to the session's own: a body, headers, and whether cookies it sets are kept. */
export interface SessionRequestOptions {
  body?: { contentType: string; text: string };
  /** Request headers besides the session's (same-named session headers are replaced). */
  extraHeaders?: HttpHeader[];
  /**
   * False: cookies the answer sets are not kept in the scan's jar. A login attempt of a check
   * must not leave the rest of the scan crawling as the account it logged into.
   */
  storeCookies?: boolean;
  /**
   * False: the request carries no cookie of the scan's jar or the profile (a fresh visitor); a
   * `cookie` header in extraHeaders is still sent. For checks that need fresh sessions.
   */
  sendCookies?: boolean;
  /**
   * True for the requests that keep a login alive (the login itself, a check that the session
   * still lives): the SessionKeeper does not watch them, and they are never refused as
   * session-ending.
   */
  isSessionUpkeep?: boolean;
}

/** A request as the SessionKeeper sees it. */
export interface KeptRequest {
  method: string;
  url: URL;
  body?: { contentType: string; text: string };
}

/**
 * Keeps the scan logged in (login-session.ts): every watched request waits while a login runs
 * (a login waits for the requests in flight), and each answer is shown to it; `retry` means the
 * session had been lost and is renewed: the keeper sends the request once more, and that answer
 * is the request's.
 */
export interface SessionKeeper {
  /** Resolves once no login is running; the request then counts as in flight until leave(). */
  ready(): Promise<void>;
  /** The request that ready() let through has its answer (or none). */
  leave(): void;
  /** Counts the logins so far: a request remembers the one it was sent in. */
  readonly generation: number;
  /** Judges an answer: `retry` when the session was lost (and is now renewed), else `keep`. */
  afterAnswer(
    request: KeptRequest,
    exchange: HttpExchange,
    generation: number,
    signal: AbortSignal,
  ): Promise<'keep' | 'retry'>;
  /** Sends a request again (`send`) once the session is renewed, alone, and judges the answer, which is returned. */
  retry(request: KeptRequest, signal: AbortSignal, send: () => Promise<HttpExchange>): Promise<HttpExchange>;
}

/** Reports counters to the sink at most every `intervalMs`, and always on flush. */
export class ProgressReporter {
  private lastAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private fractionOf: (() => number) | undefined;

  constructor(
    private readonly sink: ScanSink,
    readonly counters: ScanCounters,
    private readonly intervalMs = 250,
  ) {}

  /** Call after a counter moved: reports now, or once the interval has passed. */
  touch(): void {
    // A report is due already: it reads the counters when it runs (a scan touches these thousands of times a second).
    if (this.timer !== undefined) return;
    const wait = this.lastAt + this.intervalMs - Date.now();
    if (wait <= 0) {
      this.report();
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.report(), wait);
      this.timer.unref();
    }
  }

  /** Makes every report carry the share of the work done, as `fractionOf` judges it then (ScanCounters.fraction). */
  measureWith(fractionOf: () => number): void {
    this.fractionOf = fractionOf;
  }

  /** Reports the final totals and stops the pending timer. */
  flush(): void {
    this.report();
  }

  private report(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.lastAt = Date.now();
    this.sink.progress(
      this.fractionOf === undefined ? { ...this.counters } : { ...this.counters, fraction: this.fractionOf() },
    );
  }
}

/**
 * Everything one scan's requests share: the guarded client, the request budget, the cookie jar
 * and the profile's headers, cookies and basic auth, so crawler and checks send alike and count
 * alike. Requests outside the scope are refused here, a last line behind the crawler's filter.
 */
export class ScanSession {
  private readonly jar = new CookieJar(undefined, { looseMode: true, rejectPublicSuffixes: false });
  private readonly fixedHeaders: HttpHeader[];
  private readonly profileCookies: Array<[string, string]>;

  constructor(
    readonly target: ScanTarget,
    readonly settings: ScanProfileSettings,
    readonly scope: ScanScope,
    private readonly client: GuardedHttpClient,
    private readonly budget: RequestBudget,
    readonly progress: ProgressReporter,
    /** False: cookies answers set are never kept or sent back, every request stands alone (stateless tests). */
    private readonly keepsSiteCookies = true,
  ) {
    this.profileCookies = [
      ...settings.custom_cookies,
      ...(settings.session_cookie === null ? [] : [settings.session_cookie]),
    ].map((c) => [c.name, c.value]);
    const custom = settings.custom_headers.filter((h) => h.name.toLowerCase() !== 'cookie');
    const headers: HttpHeader[] = [];
    if (!custom.some((h) => h.name.toLowerCase() === 'user-agent'))
      headers.push({ name: 'user-agent', value: scannerUserAgent });
    headers.push({ name: 'accept', value: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    if (settings.basic_auth !== null) {
      const token = Buffer.from(`${settings.basic_auth.username}:${settings.basic_auth.password}`, 'utf8').toString(
        'base64',
      );
      headers.push({ name: 'authorization', value: `Basic ${token}` });
    }
    // Custom headers come last so that the profile may override accept or authorization.
    const overridden = new Set(custom.map((h) => h.name.toLowerCase()));
    this.fixedHeaders = [...headers.filter((h) => !overridden.has(h.name)), ...custom];
    for (const h of settings.custom_headers)
      if (h.name.toLowerCase() === 'cookie') this.profileCookies.push(...parseCookieHeader(h.value));
  }

  private hasSiteCookies = false;
  private keeper: SessionKeeper | undefined;

  /** What ends this scan's session (session-ending.ts): the crawler never queues it, send() never sends it. */
  readonly endings = new SessionEndings();

  /** Installs the keeper of a logged-in session: from now on it sees every answer but its own requests'. */
  keepSession(keeper: SessionKeeper): void {
    this.keeper = keeper;
  }

  /**
   * `origin/path` of every request that got an answer the checks could read (below 500, not
   * 429), and the count of those that got none: what a completed scan reached (ScanOutcome.coverage).
   */
  readonly answered = new Set<string>();
  unanswered = 0;

  /** Counts a request's answer, or its lack of one, toward the scan's coverage. */
  private cover(url: URL, status: number | undefined): void {
    const origin = originOf(url);
    if (status !== undefined && status < 500 && status !== 429 && origin !== undefined)
      this.answered.add(`${originText(origin)}${url.pathname}`);
    else this.unanswered += 1;
  }

  /**
   * Sends one request through the budget (no redirect following), with an optional body and
   * optional extra headers (an Origin, a marker; each replaces a same-named session header);
   * throws HttpRequestError (also for a request that ends the session: session-ending.ts). With
   * a keeper, the request waits while a login runs, and a request whose answer shows the
   * session lost is sent again once the keeper logged in anew: the answer is the retry's. The
   * cookies an answer to a forged Cookie header sets are not kept.
   */
  async send(
    method: string,
    url: URL,
    signal: AbortSignal,
    options: SessionRequestOptions = {},
  ): Promise<HttpExchange> {
    if (options.isSessionUpkeep === true) return this.sendOnce(method, url, signal, options);
    const request: KeptRequest = options.body === undefined ? { method, url } : { method, url, body: options.body };
    const fieldNames = requestFieldNames(url, options.body);
    const ending = this.endings.reason(method, url, fieldNames);
    // Not `denied` (the crawler reads that as a host the guard refused): no answer, quietly.
    if (ending !== undefined)
      throw new HttpRequestError('other', `${method} ${url.pathname} not sent: it ends the session (${ending})`);
    const keeper = this.keeper;
    // A request without the session's cookies (a fresh visitor, or cookies a check forged) says nothing of the session.
    if (keeper === undefined || options.sendCookies === false || forgesCookies(options))
      return this.sendOnce(method, url, signal, options);
    await keeper.ready();
    const generation = keeper.generation;
    let exchange: HttpExchange;
    try {
      exchange = await this.sendOnce(method, url, signal, options);
    } finally {
      keeper.leave();
    }
    const verdict = await keeper.afterAnswer(request, exchange, generation, signal);
    if (verdict === 'keep' || this.endings.ends(method, url, fieldNames)) return exchange;
    return keeper.retry(request, signal, () => this.sendOnce(method, url, signal, options));
  }

  /** Sends one request through the budget, unwatched. */
  private async sendOnce(
    method: string,
    url: URL,
    signal: AbortSignal,
    options: SessionRequestOptions,
  ): Promise<HttpExchange> {
    const { body, extraHeaders } = options;
    if (!this.scope.isUrlAllowed(url)) throw new Error(`refusing to request ${url.href}: outside the scan's scope`);
    const release = await this.budget.acquire(signal);
    try {
      let headers = [...this.fixedHeaders];
      const cookie = options.sendCookies === false ? '' : this.cookieHeader(url);
      if (cookie !== '') headers.push({ name: 'cookie', value: cookie });
      if (body !== undefined) headers.push({ name: 'content-type', value: body.contentType });
      if (extraHeaders !== undefined && extraHeaders.length > 0) {
        const replaced = new Set(extraHeaders.map((h) => h.name.toLowerCase()));
        headers = [...headers.filter((h) => !replaced.has(h.name.toLowerCase())), ...extraHeaders];
      }
      this.progress.counters.requestsSent += 1;
      this.progress.touch();
      let exchange: HttpExchange;
      try {
        exchange = await this.client.send(
          body === undefined ? { method, url, headers } : { method, url, headers, body: body.text },
          signal,
        );
      } catch (err) {
        if (!signal.aborted) this.cover(url, undefined);
        throw err;
      }
      this.cover(url, exchange.status);
      for (const header of exchange.headers) {
        // The answer to forged cookies (a payload in the session cookie) sets a session the scan does not own.
        if (header.name !== 'set-cookie' || options.storeCookies === false || !this.keepsSiteCookies) continue;
        if (forgesCookies(options)) continue;
        this.jar.setCookieSync(header.value, url.href, { ignoreError: true });
        this.hasSiteCookies = true;
      }
      return exchange;
    } finally {
      release();
    }
  }

  /** Cookies the site set for this URL, then the profile's (which win on a shared name). */
  private cookieHeader(url: URL): string {
    if (!this.hasSiteCookies && this.profileCookies.length === 0) return '';
    const pairs = new Map<string, string>();
    // Most sites set no cookie: the jar's look-up (domain and path matching) is then skipped.
    if (this.hasSiteCookies)
      for (const [name, value] of parseCookieHeader(this.jar.getCookieStringSync(url.href))) pairs.set(name, value);
    for (const [name, value] of this.profileCookies) pairs.set(name, value);
    return [...pairs].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** True when a request sends its own Cookie header (extraHeaders) instead of the session's. */
function forgesCookies(options: SessionRequestOptions): boolean {
  return options.extraHeaders?.some((h) => h.name.toLowerCase() === 'cookie') === true;
}

/** Splits `a=1; b=2` into pairs. */
function parseCookieHeader(text: string): Array<[string, string]> {
  return text
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.includes('='))
    .map((part) => {
      const index = part.indexOf('=');
      return [part.slice(0, index), part.slice(index + 1)];
    });
}
