import type { ScanLimits, ScanSink } from '../../core/scans/scan-engine.ts';
import type { FindingInput } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { CheckContext, CrawledPage, PageCheck } from './checks/page-check.ts';
import { isHtmlResponse } from './checks/page-check.ts';
import { classifyFailure, type HttpExchange } from './guarded-http-client.ts';
import { extractPageLinks, formSubmissionUrl } from './html-links.ts';
import { dedupKey, normaliseUrl, originOf, originText } from './scan-scope.ts';
import type { ScanSession } from './scan-session.ts';

/** Requests in flight at once (crawler and checks together share the budget's bound). */
export const crawlConcurrency = 8;

/** A URL waiting to be crawled. */
interface QueueItem {
  url: URL;
  depth: number;
  /** A start URL of an extra origin: a refused connection is a warning, not an error. */
  isExtraSeed: boolean;
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
 * links, scripts, stylesheets, frames, GET forms and redirects inside the scope; runs every check
 * on every fetched page as it arrives. maxPages and maxDepth end the crawl with a warning; the
 * signal ends it at once (the caller decides what an abort means).
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

  const enqueue = (raw: URL, depth: number, isExtraSeed = false): void => {
    const url = normaliseUrl(raw);
    const key = dedupKey(url);
    if (seen.has(key) || !session.scope.isUrlAllowed(url)) return;
    if (depth > limits.maxDepth) {
      warnOnce('depth', `maxDepth limit reached: links deeper than ${limits.maxDepth} were not followed`);
      return;
    }
    seen.add(key);
    queue.push({ url, depth, isExtraSeed });
    notify();
  };

  const context: CheckContext = {
    session,
    signal,
    report: (finding: FindingInput) => sink.finding(finding),
  };

  const followLinks = (item: QueueItem, exchange: HttpExchange, page: CrawledPage): void => {
    const location = exchange.headers.find((h) => h.name === 'location')?.value;
    if (exchange.status >= 300 && exchange.status < 400 && location !== undefined) {
      try {
        enqueue(new URL(location, item.url), item.depth);
      } catch {
        // A malformed Location is the site's problem, not a crawl error.
      }
    }
    if (page.links === undefined) return;
    const targets = [...page.links.links, ...page.links.forms.map((form) => formSubmissionUrl(form, item.url)?.href).filter((href) => href !== undefined)];
    for (const href of targets) {
      try {
        enqueue(new URL(href, item.url), item.depth + 1);
      } catch {
        // Unparsable references (javascript:, broken escapes) are skipped.
      }
    }
  };

  const visit = async (item: QueueItem): Promise<void> => {
    const origin = originOf(item.url);
    if (origin === undefined) return;
    let exchange: HttpExchange;
    try {
      exchange = await session.send('GET', item.url, signal);
    } catch (err) {
      const failure = classifyFailure(err, limits.requestTimeoutMs, signal.aborted);
      if (failure.kind === 'aborted' || signal.aborted) throw failure;
      if (item.url.href === options.start.href) result.startFailure = failure.message;
      else if (item.isExtraSeed) warnOnce(`origin ${originText(origin)}`, `${originText(origin)} skipped: ${failure.message}`);
      else if (failure.kind === 'denied') warnOnce(`denied ${origin.host}`, `${origin.host} skipped: ${failure.message}`);
      return;
    }
    counters.pagesCrawled += 1;
    session.progress.touch();
    const isHtml = isHtmlResponse(exchange);
    const page: CrawledPage = { url: item.url, origin, originText: originText(origin), exchange, isHtml, links: isHtml ? extractPageLinks(exchange.body) : undefined };
    followLinks(item, exchange, page);
    for (const check of options.checks) {
      try {
        await check.inspect(page, context);
      } catch (err) {
        if (signal.aborted) throw err;
        sink.warning(`check ${check.id} failed on ${item.url.href}: ${err instanceof Error ? err.message : String(err)}`);
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
  for (const seed of options.extraSeeds) enqueue(seed, 0, true);
  await Promise.all(Array.from({ length: crawlConcurrency }, () => worker()));
  signal.removeEventListener('abort', notify);
  return result;
}
