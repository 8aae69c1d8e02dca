import type { ScanLimits, ScanSink } from '../../core/scans/scan-engine.ts';
import type { FindingInput } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { CheckContext, CrawledPage, PageCheck } from './check-kit/page-check.ts';
import { isHtmlResponse } from './check-kit/page-check.ts';
import { classifyFailure, type HttpExchange } from './check-kit/guarded-http-client.ts';
import {
  extractJsonCalls,
  extractJsonUrls,
  extractJsUrls,
  isJavaScriptType,
  isJsonType,
  parseRobots,
  parseSitemap,
} from './check-kit/discovery.ts';
import { extractPageLinks, formSubmissions } from './check-kit/html-links.ts';
import { bodyFieldNames, isDestructivePath, isDestructiveSubmission } from './crawl-forms.ts';
import { dedupKey, normaliseUrl, originOf, originText, type Origin } from './check-kit/scan-scope.ts';
import type { ScanSession } from './check-kit/scan-session.ts';
import { requestFieldNames } from './check-kit/session-ending.ts';
import type { PageRenderer } from './browser/page-renderer.ts';
import { CrawlShare } from './crawl-share.ts';

/** Requests in flight at once (crawler and checks together share the budget's bound). */
export const crawlConcurrency = 8;

/** A request waiting to be crawled: a GET of a URL, or a POST of a form. */
interface QueueItem {
  url: URL;
  depth: number;
  /** A start URL of an extra origin: a refused connection is a warning, not an error. */
  isExtraSeed: boolean;
  method: 'GET' | 'POST';
  /** The urlencoded fields of a POST form, or the JSON text of an API call found in a script. */
  body?: string;
  /** The type of `body` when it is not a form's (`application/json`). */
  contentType?: string;
}

/** How the crawler sends a form body. */
const formContentType = 'application/x-www-form-urlencoded';

/** How the crawler sends the body of a JSON API call found in a script. */
const jsonContentType = 'application/json';

/** What the crawl learnt about the start page of the target. */
export interface CrawlResult {
  /** Set when the target's own start page got no HTTP response. */
  startFailure: string | undefined;
}

/** Inputs of one crawl. */
export interface CrawlOptions {
  session: ScanSession;
  checks: PageCheck[];
  limits: ScanLimits;
  sink: ScanSink;
  /** Ends the crawl (the caller's abort or the duration limit). */
  signal: AbortSignal;
  start: URL;
  extraSeeds: URL[];
  /**
   * The profile's start_urls: root-relative paths (resolved against `start`) or absolute URLs,
   * queued beside the start URL; one outside the scope is skipped with a warning.
   */
  startUrls?: readonly string[];
  /** The answers of the scan's login: every check but the active ones reads them (the session cookie is set there). */
  loginPages?: ReadonlyArray<{ url: URL; exchange: HttpExchange }>;
  /** Renders HTML pages in a browser: the links and forms of the rendered DOM are followed too (render_javascript). */
  renderer?: PageRenderer | undefined;
}

/** How a request is queued: a GET unless said otherwise, an extra origin's start URL or not. */
interface EnqueueOptions {
  isExtraSeed?: boolean;
  method?: 'GET' | 'POST';
  body?: string;
  contentType?: string;
  /** The clicked submit button of a form's variant (`name=value`): variants of one form are told apart by it. */
  variant?: string;
}

/** The state of one crawl, shared by its steps. */
interface Crawl {
  readonly options: CrawlOptions;
  readonly context: CheckContext;
  readonly result: CrawlResult;
  /** A FIFO read from `head`: Array#shift() moves every element of a long queue. */
  queue: QueueItem[];
  head: number;
  /** Keys of the requests queued so far (dedupKey for a GET, method, URL and field names otherwise). */
  readonly seen: Set<string>;
  /**
   * Links starting with `/` whose URL the crawl has seen, by the scheme and host they were found
   * on: most links of a site point to pages already queued, and such a link needs no parsing to
   * know it. A reference starting with `/` (a path from the root, or a network path) resolves
   * against the base's scheme and host alone, never its path, and `seen` only grows.
   */
  readonly knownLinks: Set<string>;
  /** Keys of the warnings already given (each is given once). */
  readonly warned: Set<string>;
  pagesStarted: number;
  /** The share of the known work done, reported with the scan's progress. */
  readonly share: CrawlShare;
  /** Requests being visited now. */
  active: number;
  /** Idle workers wait on one promise; it is resolved (and replaced) only when someone waits. */
  waiters: number;
  wake: (() => void) | undefined;
  wakeSignal: Promise<void>;
}

/**
 * Crawls breadth-first from the start URL (and extra origins) with bounded concurrency, following
 * links, scripts, stylesheets, frames, GET and POST forms, JSON API calls found in scripts and
 * redirects inside the scope; runs every check on every fetched page as it arrives, and each
 * check's finish() once the queue is drained.
 * maxPages and maxDepth end the crawl with a warning; the signal ends it at once (the caller
 * decides what an abort means).
 */
export async function crawlSite(options: CrawlOptions): Promise<CrawlResult> {
  const crawl = createCrawl(options);
  const onAbort = (): void => wakeWorkers(crawl);
  options.signal.addEventListener('abort', onAbort, { once: true });
  seedQueue(crawl);
  options.session.progress.measureWith(() => crawl.share.of(crawl));
  await Promise.all([inspectLoginPages(crawl), ...Array.from({ length: crawlConcurrency }, () => crawlWorker(crawl))]);
  options.signal.removeEventListener('abort', onAbort);
  if (!options.signal.aborted) await finishChecks(crawl);
  return crawl.result;
}

/** The state of a new crawl: an empty queue, and the context the checks get. */
function createCrawl(options: CrawlOptions): Crawl {
  const { session, signal, sink } = options;
  const seen = new Set<string>();
  const crawl: Crawl = {
    options,
    context: {
      session,
      signal,
      report: (finding: FindingInput) => sink.finding(finding),
      willCrawl: (url: URL) => seen.has(dedupKey(normaliseUrl(url))),
    },
    result: { startFailure: undefined },
    queue: [],
    head: 0,
    seen,
    knownLinks: new Set<string>(),
    warned: new Set<string>(),
    pagesStarted: 0,
    share: new CrawlShare(options.checks.length, options.limits.maxPages, session.progress.counters),
    active: 0,
    waiters: 0,
    wake: undefined,
    wakeSignal: Promise.resolve(),
  };
  crawl.wakeSignal = new Promise<void>((resolve) => (crawl.wake = resolve));
  return crawl;
}

/** Wakes the idle workers, if any wait: something was queued, a visit ended, or the crawl was aborted. */
function wakeWorkers(crawl: Crawl): void {
  if (crawl.waiters === 0) return;
  crawl.waiters = 0;
  crawl.wake?.();
  crawl.wakeSignal = new Promise<void>((resolve) => (crawl.wake = resolve));
}

/** Gives a warning once per key. */
function warnOnce(crawl: Crawl, key: string, message: string): void {
  if (crawl.warned.has(key)) return;
  crawl.warned.add(key);
  crawl.options.sink.warning(message);
}

/** Warns that the crawl reached maxPages. */
function warnPageLimit(crawl: Crawl): void {
  const { maxPages } = crawl.options.limits;
  warnOnce(crawl, 'pages', `maxPages limit reached: the crawl stopped after ${maxPages} pages`);
}

/** Queues the start URL, the extra origins, and every origin's robots.txt and sitemap.xml. */
function seedQueue(crawl: Crawl): void {
  const { start, extraSeeds } = crawl.options;
  enqueue(crawl, start, 0);
  for (const seed of extraSeeds) enqueue(crawl, seed, 0, { isExtraSeed: true });
  for (const text of crawl.options.startUrls ?? []) enqueueStartUrl(crawl, text);
  // Every origin's robots.txt and sitemap.xml: maps of the site the links may not reveal.
  for (const origin of [start, ...extraSeeds]) {
    enqueue(crawl, new URL('/robots.txt', origin), 0);
    enqueue(crawl, new URL('/sitemap.xml', origin), 0);
  }
}

/** Queues a start URL of the profile at depth 0, or warns once why it was skipped (outside the scope, unusable). */
function enqueueStartUrl(crawl: Crawl, text: string): void {
  const { start, session } = crawl.options;
  let url: URL;
  try {
    url = new URL(text, start);
  } catch {
    warnOnce(crawl, `start ${text}`, `start URL ${text} skipped: not a URL`);
    return;
  }
  if (!session.scope.isUrlAllowed(url)) {
    warnOnce(crawl, `start ${url.href}`, `start URL ${url.href} skipped: outside the scan's scope`);
    return;
  }
  enqueue(crawl, url, 0);
}

/** Queues a request unless its key was seen or it is out of scope or past a limit; true when its key is (now) seen. */
function enqueue(crawl: Crawl, raw: URL, depth: number, options: EnqueueOptions = {}): boolean {
  const { session, limits } = crawl.options;
  const url = normaliseUrl(raw);
  const method = options.method ?? 'GET';
  const key =
    (method === 'GET'
      ? dedupKey(url)
      : `${method} ${dedupKey(url)} ${bodyFieldNames(options.body ?? '', options.contentType)}`) +
    (options.variant === undefined || options.variant === '' ? '' : ` button:${options.variant}`);
  if (crawl.seen.has(key)) return true;
  if (!session.scope.isUrlAllowed(url)) return false;
  // Requests that end the session (logout, password changes, security switches; check-kit/session-ending.ts).
  const body =
    options.body === undefined
      ? undefined
      : { contentType: options.contentType ?? formContentType, text: options.body };
  if (session.endings.ends(method, url, requestFieldNames(url, body))) return false;
  if (depth > limits.maxDepth) {
    warnOnce(crawl, 'depth', `maxDepth limit reached: links deeper than ${limits.maxDepth} were not followed`);
    return false;
  }
  // Past the page limit a queued URL would never be visited: keep memory bounded by the limit.
  if (crawl.pagesStarted + crawl.queue.length - crawl.head >= limits.maxPages) {
    warnPageLimit(crawl);
    return false;
  }
  crawl.seen.add(key);
  const item: QueueItem = { url, depth, isExtraSeed: options.isExtraSeed === true, method };
  if (options.body !== undefined) item.body = options.body;
  if (options.contentType !== undefined) item.contentType = options.contentType;
  crawl.queue.push(item);
  wakeWorkers(crawl);
  return true;
}

/** Enqueues references found in a document, resolved against `base`; unparsable ones are skipped. */
function enqueueAll(crawl: Crawl, references: Iterable<string>, base: URL, depth: number): void {
  for (const href of references) {
    const known = href.startsWith('/') ? `${base.protocol}//${base.host}${href}` : undefined;
    if (known !== undefined && crawl.knownLinks.has(known)) continue;
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      continue; // javascript:, broken escapes
    }
    if (enqueue(crawl, url, depth) && known !== undefined) crawl.knownLinks.add(known);
  }
}

/**
 * Enqueues the JSON API calls of a script (`fetch(url, {method: 'POST', headers: {JSON},
 * body: JSON.stringify({...})})`) as POSTs of that JSON body, like a POST form; calls whose URL
 * says delete or unsubscribe are skipped like such forms.
 */
function enqueueJsonCalls(crawl: Crawl, code: string, base: URL, depth: number): void {
  for (const call of extractJsonCalls(code)) {
    let url: URL;
    try {
      url = new URL(call.url, base);
    } catch {
      continue;
    }
    if (isDestructivePath(url.pathname)) continue;
    url.hash = '';
    enqueue(crawl, url, depth, { method: call.method, body: call.body, contentType: jsonContentType });
  }
}

/**
 * Follows what a response offers: its redirect, and by content the links, forms and inline
 * scripts of HTML, URLs and JSON API calls in JavaScript, URLs in JSON, robots.txt paths and
 * sitemaps, sitemap entries.
 */
function followLinks(crawl: Crawl, item: QueueItem, exchange: HttpExchange, page: CrawledPage): void {
  const location = exchange.headers.find((h) => h.name === 'location')?.value;
  if (exchange.status >= 300 && exchange.status < 400 && location !== undefined)
    enqueueAll(crawl, [location], item.url, item.depth);
  if (page.links !== undefined) followHtmlLinks(crawl, item, page.links);
  else if (exchange.status === 200) followDocumentLinks(crawl, item, exchange);
}

/**
 * Follows the links, inline scripts and forms of an HTML page: every variant of a form (one per
 * submit button, formSubmissions), but none whose button or action says delete, remove, reset
 * or drop (nor a POST form whose field names say so).
 */
function followHtmlLinks(crawl: Crawl, item: QueueItem, links: NonNullable<CrawledPage['links']>): void {
  const next = item.depth + 1;
  enqueueAll(crawl, links.links, item.url, next);
  for (const script of links.scripts) {
    enqueueAll(crawl, extractJsUrls(script), item.url, next);
    enqueueJsonCalls(crawl, script, item.url, next);
  }
  for (const form of links.forms) {
    for (const submission of formSubmissions(form, item.url)) {
      if (isDestructiveSubmission(form, submission)) continue;
      const variant = new URLSearchParams(submission.buttonFields).toString();
      enqueue(
        crawl,
        submission.url,
        next,
        submission.body === undefined
          ? { variant }
          : { method: 'POST', body: submission.body, contentType: submission.contentType, variant },
      );
    }
  }
}

/** Follows what a document that is not HTML offers, by its type: robots.txt, JavaScript, JSON or a sitemap. */
function followDocumentLinks(crawl: Crawl, item: QueueItem, exchange: HttpExchange): void {
  const next = item.depth + 1;
  const type = exchange.headers.find((h) => h.name === 'content-type')?.value;
  if (item.url.pathname === '/robots.txt' && (type === undefined || type.toLowerCase().startsWith('text/plain'))) {
    const hints = parseRobots(exchange.body);
    enqueueAll(crawl, [...hints.paths, ...hints.sitemaps], item.url, next);
  } else if (isJavaScriptType(type)) {
    enqueueAll(crawl, extractJsUrls(exchange.body), item.url, next);
    enqueueJsonCalls(crawl, exchange.body, item.url, next);
  } else if (isJsonType(type)) {
    enqueueAll(crawl, extractJsonUrls(exchange.body), item.url, next);
  } else if ((type !== undefined && /\bxml\b/i.test(type)) || /^\s*<\?xml/.test(exchange.body)) {
    const entries = parseSitemap(exchange.body);
    enqueueAll(crawl, [...entries.pages, ...entries.sitemaps], item.url, next);
  }
}

/** The next queued request, or undefined when the queue is empty (the read part is dropped once it is most of it). */
function dequeue(crawl: Crawl): QueueItem | undefined {
  const item = crawl.queue[crawl.head];
  if (item === undefined) return undefined;
  crawl.queue[crawl.head] = undefined as unknown as QueueItem;
  crawl.head += 1;
  if (crawl.head > 1024 && crawl.head * 2 > crawl.queue.length) {
    crawl.queue = crawl.queue.slice(crawl.head);
    crawl.head = 0;
  }
  return item;
}

/** One of the crawl's workers: visits queued requests until the queue is drained and no visit runs, or the crawl is aborted. */
async function crawlWorker(crawl: Crawl): Promise<void> {
  const { signal, limits } = crawl.options;
  while (!signal.aborted) {
    const item = dequeue(crawl);
    if (item === undefined) {
      if (crawl.active === 0) {
        wakeWorkers(crawl);
        return;
      }
      crawl.waiters += 1;
      await crawl.wakeSignal;
      continue;
    }
    if (crawl.pagesStarted >= limits.maxPages) {
      warnPageLimit(crawl);
      crawl.queue = [];
      crawl.head = 0;
      continue;
    }
    crawl.pagesStarted += 1;
    crawl.active += 1;
    try {
      await visit(crawl, item);
    } catch {
      // Only an abort reaches here; the loop condition ends the worker.
    } finally {
      crawl.active -= 1;
      wakeWorkers(crawl);
    }
  }
}

/** Sends a queued request, follows what its response offers and runs every check on it; throws only on an abort. */
async function visit(crawl: Crawl, item: QueueItem): Promise<void> {
  const { session } = crawl.options;
  const origin = originOf(item.url);
  if (origin === undefined) return;
  const exchange = await fetchItem(crawl, item, origin);
  if (exchange === undefined) return crawl.share.visitFailed();
  session.progress.counters.pagesCrawled += 1;
  session.progress.touch();
  const page = crawledPage(item.url, origin, exchange);
  followLinks(crawl, item, exchange, page);
  // The browser renders the page while the checks inspect the answer.
  await Promise.all([followRenderedLinks(crawl, item, exchange), inspectPage(crawl, page)]);
}

/** With a renderer, follows the links and forms of a GET-fetched HTML page's rendered DOM (its scripts run). */
async function followRenderedLinks(crawl: Crawl, item: QueueItem, exchange: HttpExchange): Promise<void> {
  const { renderer, signal } = crawl.options;
  if (renderer === undefined || item.method !== 'GET' || exchange.status !== 200 || !isHtmlResponse(exchange)) return;
  if (!renderer.shouldRender(exchange)) return;
  const rendered = await renderer.render(item.url, { document: exchange });
  if (signal.aborted) throw new Error('aborted');
  if (rendered !== undefined) followHtmlLinks(crawl, item, rendered.links);
}

/**
 * Sends a queued request; undefined when it got no response: the start page's failure is kept in
 * the result, an extra origin's or a denied host's is a warning, and an abort throws.
 */
async function fetchItem(crawl: Crawl, item: QueueItem, origin: Origin): Promise<HttpExchange | undefined> {
  const { session, signal, limits, start } = crawl.options;
  try {
    return await session.send(
      item.method,
      item.url,
      signal,
      item.body === undefined ? {} : { body: { contentType: item.contentType ?? formContentType, text: item.body } },
    );
  } catch (err) {
    const failure = classifyFailure(err, limits.requestTimeoutMs, signal.aborted);
    if (failure.kind === 'aborted' || signal.aborted) throw failure;
    if (item.url.href === start.href) crawl.result.startFailure = failure.message;
    else if (item.isExtraSeed)
      warnOnce(crawl, `origin ${originText(origin)}`, `${originText(origin)} skipped: ${failure.message}`);
    else if (failure.kind === 'denied')
      warnOnce(crawl, `denied ${origin.host}`, `${origin.host} skipped: ${failure.message}`);
    return undefined;
  }
}

/** A fetched answer as the checks see it: HTML pages with their links and forms read. */
function crawledPage(url: URL, origin: Origin, exchange: HttpExchange): CrawledPage {
  const isHtml = isHtmlResponse(exchange);
  return {
    url,
    origin,
    originText: originText(origin),
    exchange,
    isHtml,
    links: isHtml ? extractPageLinks(exchange.body) : undefined,
  };
}

/** Runs the checks on the login's answers (CrawlOptions.loginPages); an abort ends it quietly (the workers see it). */
async function inspectLoginPages(crawl: Crawl): Promise<void> {
  for (const { url, exchange } of crawl.options.loginPages ?? []) {
    const origin = originOf(url);
    if (origin === undefined || crawl.options.signal.aborted) continue;
    const page = crawledPage(url, origin, exchange);
    page.isSessionUpkeep = true;
    try {
      await inspectPage(crawl, page);
    } catch {
      return; // an abort
    }
  }
}

/** Runs every check on a fetched page, one after another; a check that fails is a warning unless the crawl was aborted. */
async function inspectPage(crawl: Crawl, page: CrawledPage): Promise<void> {
  const { session, signal, sink, checks } = crawl.options;
  for (const check of checks) {
    try {
      await check.inspect(page, crawl.context);
    } catch (err) {
      if (signal.aborted) throw err;
      sink.warning(`check ${check.id} failed on ${page.url.href}: ${err instanceof Error ? err.message : String(err)}`);
    }
    session.progress.counters.checksDone += 1;
    if (page.isSessionUpkeep !== true) crawl.share.pageChecked();
    session.progress.touch();
  }
}

/** Late proofs (stored payloads, canary hits) once nothing is left to crawl; checks wait side by side. */
async function finishChecks(crawl: Crawl): Promise<void> {
  const { signal, sink, checks } = crawl.options;
  await Promise.all(
    checks.map(async (check) => {
      try {
        await check.finish?.(crawl.context);
      } catch (err) {
        if (!signal.aborted)
          sink.warning(
            `check ${check.id} failed at the end of the crawl: ${err instanceof Error ? err.message : String(err)}`,
          );
      }
    }),
  );
}
