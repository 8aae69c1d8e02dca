import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import type { HttpHeader } from '../../../core/vulnerabilities/vulnerability.types.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { extractPageLinks, type PageLinks } from '../check-kit/html-links.ts';
import type { ScanSession } from '../check-kit/scan-session.ts';
import { findBrowser, launchConfinedBrowser } from './browser-launch.ts';
import { activityInitScript, isPageQuiet } from './page-activity.ts';

/** Pages rendered at once (the machine's cores are shared with the crawl). */
export const maxRenderedPages = 2;
/** Crawled pages rendered per scan at most (about a second each): a large site's later pages are read only. */
export const maxCrawlRenderings = 500;
/** Time limit of a page's navigation (its document and the load event). */
const navigationTimeoutMs = 10_000;
/** How long a loaded page is given to settle (its scripts' fetches answered) before it is read. */
const settleTimeoutMs = 3_000;
/** A page is settled once no request of it has been in flight, and nothing has happened in it, for this long. */
const quietMs = 150;
/** Sink writes and script files kept per rendering at most. */
const maxSinkWrites = 50;
const maxScriptFiles = 10;
/** Time limit of any other step (opening a context, reading the DOM, closing). */
const stepTimeoutMs = 5_000;

/** The name of the in-page function a DOM-XSS payload calls (defined by the init script). */
export const canaryFunctionName = '__perimeterCanary';
/** The binding the canary function reports through. */
const canaryBindingName = '__perimeterCanaryHit';

/**
 * Runs before any script of a page: defines the canary function (it reports its token, and the
 * HTML sink whose value held that token, through the binding), and reports the strings given to
 * the HTML sinks (innerHTML, outerHTML, insertAdjacentHTML, document.write/writeln) that hold a
 * scanner token, so that a call can name its sink and a payload that reached a sink without
 * running can be tried in another form.
 */
const canaryInitScript = `(() => {
  const seen = [];
  const note = (sink, value) => {
    if (typeof value !== 'string' || !value.includes('prmtr')) return;
    seen.push([sink, value]);
    try { window.${canaryBindingName}('write', value.slice(0, 2000), sink); } catch {}
  };
  const wrapSetter = (proto, prop, sink) => {
    const d = Object.getOwnPropertyDescriptor(proto, prop);
    if (!d || !d.set) return;
    Object.defineProperty(proto, prop, { ...d, set(v) { note(sink, v); return d.set.call(this, v); } });
  };
  wrapSetter(Element.prototype, 'innerHTML', 'innerHTML');
  wrapSetter(Element.prototype, 'outerHTML', 'outerHTML');
  const iah = Element.prototype.insertAdjacentHTML;
  Element.prototype.insertAdjacentHTML = function (p, v) { note('insertAdjacentHTML', v); return iah.call(this, p, v); };
  for (const name of ['write', 'writeln']) {
    const f = Document.prototype[name];
    Document.prototype[name] = function (...parts) { note('document.' + name, parts.join('')); return f.apply(this, parts); };
  }
  Object.defineProperty(window, '${canaryFunctionName}', {
    value: (token) => {
      const hit = seen.find(([, v]) => v.includes(String(token)));
      try { window.${canaryBindingName}('call', String(token), hit ? hit[0] : ''); } catch {}
    },
  });
})();`;

/** Headers of the browser's requests that the scan's session sets itself, or that must not pass. */
const sessionOwnedHeaders =
  /^(?:host|connection|content-length|cookie|user-agent|accept|accept-encoding|accept-language|upgrade-insecure-requests|sec-.*|proxy-.*|authorization)$/i;
/**
 * Headers of an answer that no longer describe the decoded body handed to the browser. Set-Cookie
 * passes (the session's jar keeps the cookie too), so that scripts read what they may
 * (an XSRF-TOKEN cookie echoed in a header); the browser's own Cookie header is not sent: the
 * session's jar is the scan's.
 */
const droppedAnswerHeaders = /^(?:content-length|content-encoding|transfer-encoding|connection|keep-alive)$/i;
/** Resource types the browser does without (no request is sent; an image's onerror fires). */
const skippedResourceTypes = new Set(['image', 'media', 'font']);

/** A call of the canary function in a rendered page. */
export interface CanaryCall {
  token: string;
  /** The HTML sink whose value held the token (`innerHTML`, `document.write`), or '' when none did (script code). */
  sink: string;
}

/** A string holding a scanner token that a script gave an HTML sink. */
export interface SinkWrite {
  sink: string;
  /** The string (its first 2,000 characters). */
  value: string;
}

/** What one rendering gave. */
export interface RenderedPage {
  /** Links, forms and inline scripts of the rendered DOM, and `location` targets of onclick handlers. */
  links: PageLinks;
  /** The answer to the page's own document request (as the browser got it), if there was one. */
  document: HttpExchange | undefined;
  canaryCalls: CanaryCall[];
  sinkWrites: SinkWrite[];
  /** Code of the page's scripts: inline ones of the rendered DOM, and the JavaScript files it loaded (the first few). */
  scripts: string[];
  /** URLs the page asked for that are outside the scope (or not http(s)): refused, never requested. */
  refused: string[];
}

/** Options of one rendering. */
export interface RenderOptions {
  /** The crawler's answer for the URL (a GET): handed to the browser instead of requesting the page again. */
  document?: HttpExchange;
}

/** Renders pages in headless Chromium for one scan; every request of a page goes through the scan's session. */
export interface PageRenderer {
  /**
   * Whether the crawler should render a fetched page: it has a script (a page without one
   * renders as it reads), and fewer than maxCrawlRenderings pages were rendered for the crawl
   * (past that, one warning). Counts the page when true.
   */
  shouldRender(exchange: HttpExchange): boolean;
  /** Loads `url` and reads its rendered DOM; undefined when no browser could be started, the page failed, or the scan ended. */
  render(url: URL, options?: RenderOptions): Promise<RenderedPage | undefined>;
  /** Closes the browser (every ending of the scan, abort included). */
  close(): Promise<void>;
}

/** What the handlers of a tab collect during the rendering it serves. */
interface RenderState {
  canaryCalls: CanaryCall[];
  sinkWrites: SinkWrite[];
  /** Bodies of the JavaScript files the page loaded. */
  scriptFiles: string[];
  refused: string[];
  /** The crawler's answer, served for the first main-document request. */
  cached: HttpExchange | undefined;
  document: HttpExchange | undefined;
  /** Routed requests not answered yet, and when the last one started or ended (Date.now()). */
  inFlight: number;
  lastActivity: number;
}

/**
 * A browser tab kept for the scan: its own context (storage, the canary binding, the routing)
 * and page, reused from one rendering to the next (a new page costs a renderer process).
 */
interface Tab {
  context: BrowserContext;
  page: Page;
  /** The rendering the tab serves now, if any. */
  state: RenderState | undefined;
}

/** True when HTML holds a script element or an inline event handler: without one, a page renders as it reads. */
export function hasScript(html: string): boolean {
  return /<script\b|\son[a-z]+\s*=/i.test(html);
}

/** `location = '…'`, `location.href = '…'`, `location.assign('…')` in onclick handlers of the rendered DOM. */
const ONCLICK_NAVIGATION =
  /\bonclick\s*=\s*(?:"[^"]*?|'[^']*?)location(?:\.href)?\s*(?:=\s*|\.(?:assign|replace)\(\s*)(?:&#39;|&quot;|'|")([^'"&]+)/gi;

/** Targets of onclick navigations in rendered HTML. */
export function onclickTargets(html: string): string[] {
  return [...html.matchAll(ONCLICK_NAVIGATION)].map((m) => m[1] ?? '').filter((t) => t !== '');
}

/** `promise`, or a rejection once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The headers of a browser request the session passes on: the page's own (X-*, custom ones), never what the session sets. */
function passedHeaders(headers: Record<string, string>): HttpHeader[] {
  return Object.entries(headers)
    .filter(([name]) => !sessionOwnedHeaders.test(name) && name.toLowerCase() !== 'content-type')
    .map(([name, value]) => ({ name, value }));
}

/** The answer's headers as the browser gets them (one value per name: Set-Cookie lines joined by a line feed, as Playwright wants; decoded-body headers dropped). */
export function answerHeaders(exchange: HttpExchange): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { name, value } of exchange.headers) {
    if (droppedAnswerHeaders.test(name)) continue;
    const separator = name.toLowerCase() === 'set-cookie' ? '\n' : ', ';
    headers[name] = headers[name] === undefined ? value : `${headers[name]}${separator}${value}`;
  }
  return headers;
}

/** Options of a scan's renderer. */
export interface PageRendererOptions {
  session: ScanSession;
  /** The scan's signal: an abort ends every rendering and closes the browser. */
  signal: AbortSignal;
  warn: (message: string) => void;
  /** The browser executable (else PERIMETER_SCAN_BROWSER, /usr/bin/chromium, or PATH). */
  browserPath?: string | undefined;
}

/**
 * The renderer of one scan. Chromium is started lazily at the first rendering (a failure is one
 * warning, "JavaScript rendering skipped: …", and every later rendering gives undefined) and
 * confined: every request of its pages is routed through the scan's session (scope, egress
 * guard, budget, cookies, profile headers) and fulfilled with its answer; requests outside the
 * scope and other schemes are aborted, service workers blocked and WebSockets closed, and the
 * launch flags send anything that escapes the routing to a closed port. At most
 * maxRenderedPages tabs render at once, each reused from page to page; every step has a time
 * limit; the scan's signal closes the browser.
 */
export function createPageRenderer(options: PageRendererOptions): PageRenderer {
  return new ScanBrowser(options);
}

/** The browser of one scan and its tabs. */
class ScanBrowser implements PageRenderer {
  private readonly idle: Tab[] = [];
  private readonly waiting: Array<(tab: Tab | undefined) => void> = [];
  private tabsOpen = 0;
  private launching: Promise<Browser | undefined> | undefined;
  private isClosed = false;
  private closing: Promise<void> | undefined;
  private crawlRenderings = 0;

  constructor(private readonly options: PageRendererOptions) {
    options.signal.addEventListener('abort', () => void this.close(), { once: true });
  }

  shouldRender(exchange: HttpExchange): boolean {
    if (this.isClosed || !hasScript(exchange.body)) return false;
    if (this.crawlRenderings === maxCrawlRenderings)
      this.options.warn(
        `JavaScript rendering stopped after ${maxCrawlRenderings} pages: later pages were read without running their scripts`,
      );
    this.crawlRenderings += 1;
    return this.crawlRenderings <= maxCrawlRenderings;
  }

  async render(url: URL, renderOptions: RenderOptions = {}): Promise<RenderedPage | undefined> {
    if (this.isClosed || this.options.signal.aborted) return undefined;
    const tab = await this.takeTab();
    if (tab === undefined) return undefined;
    const state: RenderState = {
      canaryCalls: [],
      sinkWrites: [],
      scriptFiles: [],
      refused: [],
      cached: renderOptions.document,
      document: undefined,
      inFlight: 0,
      lastActivity: Date.now(),
    };
    let isBroken = true;
    try {
      // A blank page first: a URL differing only by its fragment would otherwise not load again.
      await tab.page.goto('about:blank', { timeout: stepTimeoutMs });
      tab.state = state;
      await loadPage(tab.page, url, state);
      const html = await within(tab.page.content(), stepTimeoutMs, 'reading the rendered page');
      const links = extractPageLinks(html);
      links.links.push(...onclickTargets(html));
      isBroken = false;
      return {
        links,
        document: state.document,
        canaryCalls: state.canaryCalls,
        sinkWrites: state.sinkWrites,
        scripts: [...links.scripts, ...state.scriptFiles],
        refused: state.refused,
      };
    } catch {
      return undefined;
    } finally {
      this.giveBack(tab, isBroken);
    }
  }

  /** Closes the browser once; every caller (the abort, the scan's end) waits for the same closing. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.isClosed = true;
      for (const resolve of this.waiting.splice(0)) resolve(undefined);
      const launched = await this.launching;
      await launched?.close().catch(() => undefined);
    })();
    return this.closing;
  }

  /** The browser, started at the first call; undefined (after one warning) when it cannot start. */
  private browser(): Promise<Browser | undefined> {
    this.launching ??= (async () => {
      const found = findBrowser(this.options.browserPath);
      if (found.path === undefined) {
        this.options.warn(
          `JavaScript rendering skipped: no browser found (${found.tried}); the scan went on without it`,
        );
        return undefined;
      }
      try {
        const launched = await launchConfinedBrowser(found.path);
        if (this.isClosed) {
          await launched.close().catch(() => undefined);
          return undefined;
        }
        return launched;
      } catch (err) {
        const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0];
        this.options.warn(
          `JavaScript rendering skipped: ${found.path} could not be started (${reason}); the scan went on without it`,
        );
        return undefined;
      }
    })();
    return this.launching;
  }

  /** An idle tab, a new one while fewer than maxRenderedPages are open, or the next one freed; undefined once the scan ends. */
  private async takeTab(): Promise<Tab | undefined> {
    if (this.isClosed) return undefined;
    const tab = this.idle.pop();
    if (tab !== undefined) return tab;
    if (this.tabsOpen >= maxRenderedPages) return new Promise((resolve) => this.waiting.push(resolve));
    this.tabsOpen += 1;
    try {
      const launched = await this.browser();
      if (launched === undefined || this.isClosed) throw new Error('no browser');
      return await openTab(launched, this.options);
    } catch {
      this.tabsOpen -= 1;
      return undefined;
    }
  }

  /** Gives a tab back for the next rendering, or drops a broken one (its place goes to a waiter, who opens a new tab). */
  private giveBack(tab: Tab, isBroken: boolean): void {
    tab.state = undefined;
    const next = this.waiting.shift();
    if (isBroken || this.isClosed) {
      this.tabsOpen -= 1;
      void tab.context.close().catch(() => undefined);
      if (next !== undefined) void this.takeTab().then(next);
    } else if (next !== undefined) next(tab);
    else this.idle.push(tab);
  }
}

/** Opens a tab: a context with the canary binding, the init script and the routing through the session, and its page. */
async function openTab(launched: Browser, options: PageRendererOptions): Promise<Tab> {
  const { session, signal } = options;
  const context = await within(
    launched.newContext({ serviceWorkers: 'block', acceptDownloads: false }),
    stepTimeoutMs,
    'opening a browser context',
  );
  try {
    const tab: Tab = { context, page: undefined as unknown as Page, state: undefined };
    // Pop-ups (window.open, target=_blank) are closed at once: only the tab's own page renders.
    context.on('page', (opened) => {
      if (tab.page !== undefined && opened !== tab.page) void opened.close().catch(() => undefined);
    });
    await context.exposeBinding(canaryBindingName, (_source, kind: unknown, text: unknown, sink: unknown) => {
      const name = typeof sink === 'string' ? sink : '';
      if (kind === 'call') tab.state?.canaryCalls.push({ token: String(text), sink: name });
      else if (kind === 'write' && tab.state !== undefined && tab.state.sinkWrites.length < maxSinkWrites)
        tab.state.sinkWrites.push({ sink: name, value: String(text) });
    });
    await context.addInitScript(canaryInitScript);
    await context.addInitScript(activityInitScript);
    await context.routeWebSocket(/.*/, (ws) => ws.close({ code: 1008, reason: 'not allowed during a scan' }));
    await context.route('**/*', async (route) => {
      const state = tab.state;
      if (state === undefined) return void (await route.abort('blockedbyclient').catch(() => undefined));
      const request = route.request();
      const isMainDocument = request.isNavigationRequest() && request.frame() === tab.page.mainFrame();
      const cached = isMainDocument ? state.cached : undefined;
      if (isMainDocument) state.cached = undefined;
      state.inFlight += 1;
      state.lastActivity = Date.now();
      let answer: HttpExchange | undefined;
      try {
        answer = await routeRequest(route, { session, signal, refused: state.refused, cached });
      } finally {
        state.inFlight -= 1;
        state.lastActivity = Date.now();
      }
      if (isMainDocument && answer !== undefined) state.document = answer;
      else if (answer !== undefined && request.resourceType() === 'script' && state.scriptFiles.length < maxScriptFiles)
        state.scriptFiles.push(answer.body);
    });
    tab.page = await within(context.newPage(), stepTimeoutMs * 2, 'opening a page');
    tab.page.setDefaultTimeout(stepTimeoutMs);
    return tab;
  } catch (err) {
    await context.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Opens the page and lets its scripts run: the load event, then quiet or settleTimeoutMs (a slow
 * page is read as it is). Quiet is both sides' view for quietMs: no routed request in flight
 * (every request of the page passes the routing), and nothing pending in the page itself (its
 * fetches and the callbacks on their answers, its DOM changes: page-activity.ts), so that an
 * answer the routing has sent is rendered before the page is read, however loaded the machine.
 */
async function loadPage(page: Page, url: URL, state: RenderState): Promise<void> {
  try {
    await page.goto(url.href, { waitUntil: 'load', timeout: navigationTimeoutMs });
  } catch (err) {
    // A navigation that timed out still has a DOM to read; a page closed by an abort throws below.
    if (page.isClosed()) throw err;
  }
  const deadline = Date.now() + settleTimeoutMs;
  while (Date.now() < deadline) {
    const isRoutingQuiet = state.inFlight === 0 && Date.now() - state.lastActivity >= quietMs;
    if (isRoutingQuiet && (await isPageQuiet(page, quietMs, Math.max(deadline - Date.now(), 1)))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Answers one request of a page: from `cached` (the crawler's answer) when given, else
 * through the session; aborts what is not http(s), out of scope, an image, media or font, or
 * got no answer (the session also refuses what would end the scan's session: a logout, a
 * password change). The exchange the browser got, if any.
 */
async function routeRequest(
  route: Route,
  options: { session: ScanSession; signal: AbortSignal; refused: string[]; cached: HttpExchange | undefined },
): Promise<HttpExchange | undefined> {
  const request = route.request();
  let url: URL;
  try {
    url = new URL(request.url());
  } catch {
    await route.abort('blockedbyclient').catch(() => undefined);
    return undefined;
  }
  const isWeb = url.protocol === 'http:' || url.protocol === 'https:';
  if (!isWeb || !options.session.scope.isUrlAllowed(url)) {
    options.refused.push(url.href);
    await route.abort('blockedbyclient').catch(() => undefined);
    return undefined;
  }
  if (skippedResourceTypes.has(request.resourceType())) {
    await route.abort('blockedbyclient').catch(() => undefined);
    return undefined;
  }
  try {
    let exchange = options.cached;
    if (exchange === undefined || request.method() !== 'GET') {
      const body = request.postData();
      const contentType = request.headers()['content-type'];
      exchange = await options.session.send(request.method(), url, options.signal, {
        extraHeaders: passedHeaders(request.headers()),
        ...(body === null ? {} : { body: { contentType: contentType ?? 'text/plain;charset=UTF-8', text: body } }),
      });
    }
    await route.fulfill({ status: exchange.status, headers: answerHeaders(exchange), body: exchange.body });
    return exchange;
  } catch {
    await route.abort('failed').catch(() => undefined);
    return undefined;
  }
}
