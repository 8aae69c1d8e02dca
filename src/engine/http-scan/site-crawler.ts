import type { ScanLimits, ScanSink } from '../../core/scans/scan-engine.ts';
import type { FindingInput } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { CheckContext, CrawledPage, PageCheck } from './checks/page-check.ts';
import { isHtmlResponse } from './checks/page-check.ts';
import { classifyFailure, type HttpExchange } from './guarded-http-client.ts';
import {
  extractJsonCalls,
  extractJsonUrls,
  extractJsUrls,
  isJavaScriptType,
  isJsonType,
  parseRobots,
  parseSitemap,
} from './discovery.ts';
import { extractPageLinks, formSubmission } from './html-links.ts';
import { jsonLeaves } from './injection.ts';
import { dedupKey, normaliseUrl, originOf, originText } from './scan-scope.ts';
import type { ScanSession } from './scan-session.ts';

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

/** Paths a crawler must not follow: they end the session it crawls with. */
const SESSION_ENDING = /\/(?:log-?out|log-?off|sign-?out|sign-?off)\b/i;
/** Forms the crawler does not submit: they delete or unsubscribe something. */
const DESTRUCTIVE_FORM = /\b(?:delete|remove|destroy|drop|unsubscribe|deactivate)\b/i;

/** How the crawler sends the body of a JSON API call found in a script. */
const jsonContentType = 'application/json';

/** Names of the fields of a body (urlencoded fields, or JSON leaves by key path), sorted and distinct: a form's or call's identity. */
function fieldNames(body: string, contentType: string | undefined): string {
  if (contentType === jsonContentType) {
    try {
      return `json:${[...new Set(jsonLeaves(JSON.parse(body)).map((leaf) => leaf.name))].sort().join('&')}`;
    } catch {
      return 'json:';
    }
  }
  return [...new Set(new URLSearchParams(body).keys())].sort().join('&');
}

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
  const { session, limits, sink, signal } = options;
  const counters = session.progress.counters;
  // A FIFO read from `head`: Array#shift() moves every element of a long queue.
  let queue: QueueItem[] = [];
  let head = 0;
  const seen = new Set<string>();
  const warned = new Set<string>();
  const result: CrawlResult = { startFailure: undefined };
  let pagesStarted = 0;
  let active = 0;
  // Idle workers wait on one promise; it is resolved (and replaced) only when someone waits.
  let waiters = 0;
  let wake: (() => void) | undefined;
  let wakeSignal = new Promise<void>((resolve) => (wake = resolve));
  const notify = (): void => {
    if (waiters === 0) return;
    waiters = 0;
    wake?.();
    wakeSignal = new Promise<void>((resolve) => (wake = resolve));
  };
  signal.addEventListener('abort', notify, { once: true });

  const warnOnce = (key: string, message: string): void => {
    if (warned.has(key)) return;
    warned.add(key);
    sink.warning(message);
  };

  /** Queues a request unless its key was seen or it is out of scope or past a limit; true when its key is (now) seen. */
  const enqueue = (
    raw: URL,
    depth: number,
    options: { isExtraSeed?: boolean; method?: 'GET' | 'POST'; body?: string; contentType?: string } = {},
  ): boolean => {
    const url = normaliseUrl(raw);
    const method = options.method ?? 'GET';
    const key =
      method === 'GET'
        ? dedupKey(url)
        : `${method} ${dedupKey(url)} ${fieldNames(options.body ?? '', options.contentType)}`;
    if (seen.has(key)) return true;
    if (!session.scope.isUrlAllowed(url) || SESSION_ENDING.test(url.pathname)) return false;
    if (depth > limits.maxDepth) {
      warnOnce('depth', `maxDepth limit reached: links deeper than ${limits.maxDepth} were not followed`);
      return false;
    }
    // Past the page limit a queued URL would never be visited: keep memory bounded by the limit.
    if (pagesStarted + queue.length - head >= limits.maxPages) {
      warnOnce('pages', `maxPages limit reached: the crawl stopped after ${limits.maxPages} pages`);
      return false;
    }
    seen.add(key);
    const item: QueueItem = { url, depth, isExtraSeed: options.isExtraSeed === true, method };
    if (options.body !== undefined) item.body = options.body;
    if (options.contentType !== undefined) item.contentType = options.contentType;
    queue.push(item);
    notify();
    return true;
  };

  // Links starting with `/` whose URL the crawl has seen, by the scheme and host they were found
  // on: most links of a site point to pages already queued, and such a link needs no parsing to
  // know it. A reference starting with `/` (a path from the root, or a network path) resolves
  // against the base's scheme and host alone, never its path, and `seen` only grows.
  const knownLinks = new Set<string>();

  /** Enqueues references found in a document, resolved against `base`; unparsable ones are skipped. */
  const enqueueAll = (references: Iterable<string>, base: URL, depth: number): void => {
    for (const href of references) {
      const known = href.startsWith('/') ? `${base.protocol}//${base.host}${href}` : undefined;
      if (known !== undefined && knownLinks.has(known)) continue;
      let url: URL;
      try {
        url = new URL(href, base);
      } catch {
        continue; // javascript:, broken escapes
      }
      if (enqueue(url, depth) && known !== undefined) knownLinks.add(known);
    }
  };

  /**
   * Enqueues the JSON API calls of a script (`fetch(url, {method: 'POST', headers: {JSON},
   * body: JSON.stringify({...})})`) as POSTs of that JSON body, like a POST form; calls whose URL
   * says delete or unsubscribe are skipped like such forms.
   */
  const enqueueJsonCalls = (code: string, base: URL, depth: number): void => {
    for (const call of extractJsonCalls(code)) {
      let url: URL;
      try {
        url = new URL(call.url, base);
      } catch {
        continue;
      }
      if (DESTRUCTIVE_FORM.test(url.pathname)) continue;
      url.hash = '';
      enqueue(url, depth, { method: call.method, body: call.body, contentType: jsonContentType });
    }
  };

  const context: CheckContext = {
    session,
    signal,
    report: (finding: FindingInput) => sink.finding(finding),
    willCrawl: (url: URL) => seen.has(dedupKey(normaliseUrl(url))),
  };

  /**
   * Follows what a response offers: its redirect, and by content the links, forms and inline
   * scripts of HTML, URLs and JSON API calls in JavaScript, URLs in JSON, robots.txt paths and
   * sitemaps, sitemap entries.
   */
  const followLinks = (item: QueueItem, exchange: HttpExchange, page: CrawledPage): void => {
    const next = item.depth + 1;
    const location = exchange.headers.find((h) => h.name === 'location')?.value;
    if (exchange.status >= 300 && exchange.status < 400 && location !== undefined)
      enqueueAll([location], item.url, item.depth);
    if (page.links !== undefined) {
      enqueueAll(page.links.links, item.url, next);
      for (const script of page.links.scripts) {
        enqueueAll(extractJsUrls(script), item.url, next);
        enqueueJsonCalls(script, item.url, next);
      }
      for (const form of page.links.forms) {
        const submission = formSubmission(form, item.url);
        if (submission === undefined) continue;
        if (
          submission.method === 'POST' &&
          DESTRUCTIVE_FORM.test(`${form.action} ${form.fields.map(([name]) => name).join(' ')}`)
        )
          continue;
        enqueue(submission.url, next, submission.body === undefined ? {} : { method: 'POST', body: submission.body });
      }
      return;
    }
    if (exchange.status !== 200) return;
    const type = exchange.headers.find((h) => h.name === 'content-type')?.value;
    if (item.url.pathname === '/robots.txt' && (type === undefined || type.toLowerCase().startsWith('text/plain'))) {
      const hints = parseRobots(exchange.body);
      enqueueAll([...hints.paths, ...hints.sitemaps], item.url, next);
    } else if (isJavaScriptType(type)) {
      enqueueAll(extractJsUrls(exchange.body), item.url, next);
      enqueueJsonCalls(exchange.body, item.url, next);
    } else if (isJsonType(type)) {
      enqueueAll(extractJsonUrls(exchange.body), item.url, next);
    } else if ((type !== undefined && /\bxml\b/i.test(type)) || /^\s*<\?xml/.test(exchange.body)) {
      const entries = parseSitemap(exchange.body);
      enqueueAll([...entries.pages, ...entries.sitemaps], item.url, next);
    }
  };

  const visit = async (item: QueueItem): Promise<void> => {
    const origin = originOf(item.url);
    if (origin === undefined) return;
    let exchange: HttpExchange;
    try {
      exchange = await session.send(
        item.method,
        item.url,
        signal,
        item.body === undefined ? {} : { body: { contentType: item.contentType ?? formContentType, text: item.body } },
      );
    } catch (err) {
      const failure = classifyFailure(err, limits.requestTimeoutMs, signal.aborted);
      if (failure.kind === 'aborted' || signal.aborted) throw failure;
      if (item.url.href === options.start.href) result.startFailure = failure.message;
      else if (item.isExtraSeed)
        warnOnce(`origin ${originText(origin)}`, `${originText(origin)} skipped: ${failure.message}`);
      else if (failure.kind === 'denied')
        warnOnce(`denied ${origin.host}`, `${origin.host} skipped: ${failure.message}`);
      return;
    }
    counters.pagesCrawled += 1;
    session.progress.touch();
    const isHtml = isHtmlResponse(exchange);
    const page: CrawledPage = {
      url: item.url,
      origin,
      originText: originText(origin),
      exchange,
      isHtml,
      links: isHtml ? extractPageLinks(exchange.body) : undefined,
    };
    followLinks(item, exchange, page);
    for (const check of options.checks) {
      try {
        await check.inspect(page, context);
      } catch (err) {
        if (signal.aborted) throw err;
        sink.warning(
          `check ${check.id} failed on ${item.url.href}: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      counters.checksDone += 1;
      session.progress.touch();
    }
  };

  const worker = async (): Promise<void> => {
    while (!signal.aborted) {
      const item = queue[head];
      if (item !== undefined) {
        queue[head] = undefined as unknown as QueueItem;
        head += 1;
        if (head > 1024 && head * 2 > queue.length) {
          queue = queue.slice(head);
          head = 0;
        }
      }
      if (item === undefined) {
        if (active === 0) {
          notify();
          return;
        }
        waiters += 1;
        await wakeSignal;
        continue;
      }
      if (pagesStarted >= limits.maxPages) {
        warnOnce('pages', `maxPages limit reached: the crawl stopped after ${limits.maxPages} pages`);
        queue = [];
        head = 0;
        continue;
      }
      pagesStarted += 1;
      active += 1;
      try {
        await visit(item);
      } catch {
        // Only an abort reaches here; the loop condition ends the worker.
      } finally {
        active -= 1;
        notify();
      }
    }
  };

  enqueue(options.start, 0);
  for (const seed of options.extraSeeds) enqueue(seed, 0, { isExtraSeed: true });
  // Every origin's robots.txt and sitemap.xml: maps of the site the links may not reveal.
  for (const origin of [options.start, ...options.extraSeeds]) {
    enqueue(new URL('/robots.txt', origin), 0);
    enqueue(new URL('/sitemap.xml', origin), 0);
  }
  await Promise.all(Array.from({ length: crawlConcurrency }, () => worker()));
  signal.removeEventListener('abort', notify);
  // Late proofs (stored payloads, canary hits) once nothing is left to crawl; checks wait side by side.
  if (!signal.aborted) {
    await Promise.all(
      options.checks.map(async (check) => {
        try {
          await check.finish?.(context);
        } catch (err) {
          if (!signal.aborted)
            sink.warning(
              `check ${check.id} failed at the end of the crawl: ${err instanceof Error ? err.message : String(err)}`,
            );
        }
      }),
    );
  }
  return result;
}
