import type {
  ScanCounters,
  ScanSink,
  StatelessOptions,
  StatelessOrigin,
  StatelessOriginResult,
  StatelessOutcome,
} from '../../core/scans/scan-engine.ts';
import { defaultScanProfileSettings, type ScanProfileSettings } from '../../core/scans/scan-profile-settings.ts';
import { setMaxListeners } from 'node:events';
import type { DnsResolver } from '../dns/resolver.ts';
import type { EgressGuard } from '../net/egress-guard.ts';
import { createBackupFilesCheck, isSimilarBody } from './checks/backup-files.check.ts';
import { createDefaultPageCheck } from './checks/default-page.check.ts';
import { createDirectoryListingCheck } from './checks/directory-listing.check.ts';
import { createExposedEnvFileCheck } from './checks/exposed-env-file.check.ts';
import { createExposedGitCheck } from './checks/exposed-git.check.ts';
import { createExposedSvnCheck } from './checks/exposed-svn.check.ts';
import { isHtmlResponse, type CheckContext, type CrawledPage, type PageCheck } from './check-kit/page-check.ts';
import { createPhpinfoCheck } from './checks/phpinfo.check.ts';
import { withoutEchoes } from './checks/response-compare.ts';
import { createServerStatusCheck } from './checks/server-status.check.ts';
import { createStackTraceCheck } from './checks/stack-trace.check.ts';
import {
  classifyFailure,
  createGuardedHttpClient,
  type GuardedHttpClient,
  type HttpExchange,
} from './check-kit/guarded-http-client.ts';
import { extractPageLinks } from './check-kit/html-links.ts';
import { RequestBudget } from './check-kit/request-budget.ts';
import { ScanScope, originOf, originText, type Origin } from './check-kit/scan-scope.ts';
import { ProgressReporter, ScanSession } from './check-kit/scan-session.ts';

/** Origins tested side by side. */
export const statelessOriginConcurrency = 8;
/** Requests in flight to one origin at once (within its requests-per-second budget). */
export const statelessRequestsInFlight = 4;
/** Same-origin redirects of the start page followed at most. */
export const startPageMaxRedirects = 2;
/**
 * A path no site serves: its answer shows the site's not-found page (a debug 404 page of a
 * framework is a finding) and tells a soft-404 site apart. Fixed, so that a finding there keeps
 * its location (and fingerprint) from one run to the next.
 */
export const notFoundProbePath = '/perimeter-not-found';
/** Directories commonly left with automatic indexes on. */
export const listingProbePaths: readonly string[] = ['/uploads/', '/files/', '/backup/'];
/** Files whose backup copies (`.bak`, `~`, `.swp`, `.old`, `.orig`) are tried when they answer. */
export const wellKnownFilePaths: readonly string[] = ['/index.php', '/index.html', '/wp-config.php', '/config.php'];

/**
 * The checks of one run, fresh per run (each keeps per-origin state), by the pages they judge.
 * Each page has one role, so a finding always lands at the same location from run to run.
 */
interface StatelessChecks {
  /** Fixed-path probes (once per origin) and passive recognisers (phpinfo, server-status, default page): the start page. */
  probes: PageCheck[];
  /** Stack traces and framework debug pages: the start page and the not-found probe. */
  debug: PageCheck;
  /** Automatic indexes: the start page and the listing directories. */
  directory: PageCheck;
  /** Backup names: the start page and the well-known files that answered. */
  backups: PageCheck;
}

/** The application scanner's single-request exposure and debug checks (never an injection, a login or a crawl). */
function createStatelessChecks(): StatelessChecks {
  return {
    probes: [
      createExposedGitCheck(),
      createExposedSvnCheck(),
      createExposedEnvFileCheck(),
      createPhpinfoCheck(),
      createServerStatusCheck(),
      createDefaultPageCheck(),
    ],
    debug: createStackTraceCheck(),
    directory: createDirectoryListingCheck(),
    backups: createBackupFilesCheck(),
  };
}

/** True when `exchange` is the site's not-found page answered with 200 (a soft-404), echoes of the paths removed. */
function isSoftNotFound(exchange: HttpExchange, path: string, notFound: HttpExchange | undefined): boolean {
  if (notFound === undefined || notFound.status !== 200 || exchange.status !== 200) return false;
  return isSimilarBody(withoutEchoes(exchange.body, [path]), withoutEchoes(notFound.body, [notFoundProbePath]));
}

/** Where a redirect answer leads when it stays on the origin (another path), else undefined. */
function sameOriginRedirect(page: CrawledPage, own: Origin): URL | undefined {
  if (page.exchange.status < 300 || page.exchange.status >= 400) return undefined;
  const location = page.exchange.headers.find((h) => h.name === 'location')?.value;
  if (location === undefined) return undefined;
  let next: URL;
  try {
    next = new URL(location, page.url);
  } catch {
    return undefined;
  }
  const origin = originOf(next);
  if (origin === undefined || originText(origin) !== originText(own) || next.pathname === page.url.pathname)
    return undefined;
  next.hash = '';
  return next;
}

/** Adds the counters of each origin's reporter to the run's totals, which are reported at most every 250 ms. */
class RunProgress {
  readonly totals: ScanCounters = { pagesCrawled: 0, requestsSent: 0, checksDone: 0 };
  private readonly reporter: ProgressReporter;

  constructor(private readonly sink: ScanSink) {
    this.reporter = new ProgressReporter(sink, this.totals);
  }

  /** A reporter for one origin: every move of its counters moves the totals. */
  forOrigin(): ProgressReporter {
    let last: ScanCounters = { pagesCrawled: 0, requestsSent: 0, checksDone: 0 };
    const relay: ScanSink = {
      finding: (finding) => this.sink.finding(finding),
      warning: (message) => this.sink.warning(message),
      progress: (counters) => {
        this.totals.pagesCrawled += counters.pagesCrawled - last.pagesCrawled;
        this.totals.requestsSent += counters.requestsSent - last.requestsSent;
        this.totals.checksDone += counters.checksDone - last.checksDone;
        last = counters;
        this.reporter.touch();
      },
    };
    return new ProgressReporter(relay, { pagesCrawled: 0, requestsSent: 0, checksDone: 0 }, 0);
  }

  flush(): void {
    this.reporter.flush();
  }
}

/** What one origin's test needs besides the origin. */
interface OriginRun {
  client: GuardedHttpClient;
  options: StatelessOptions;
  sink: ScanSink;
  signal: AbortSignal;
  checks: StatelessChecks;
  progress: RunProgress;
}

/** One origin under test: its session, the context its checks get, and its result. */
interface OriginTest {
  run: OriginRun;
  own: Origin;
  /** The origin's root URL. */
  base: URL;
  session: ScanSession;
  progress: ProgressReporter;
  context: CheckContext;
  result: StatelessOriginResult;
}

/** Tests one origin; resolves with its result (rejects only on abort, with the requests counted so far in `result`). */
async function testOrigin(run: OriginRun, origin: StatelessOrigin, result: StatelessOriginResult): Promise<void> {
  const test = await openOriginTest(run, origin, result);
  if (test === undefined) return;
  const startPage = await fetchStartPage(test);
  if (startPage === undefined) return;
  await probeOrigin(test, startPage);
}

/**
 * The session of an origin's test, or undefined (with the error in `result`) when the origin is
 * out of its scope or its name does not resolve; an abort is rethrown.
 */
async function openOriginTest(
  run: OriginRun,
  origin: StatelessOrigin,
  result: StatelessOriginResult,
): Promise<OriginTest | undefined> {
  const { client, signal, sink } = run;
  const settings: ScanProfileSettings = {
    ...defaultScanProfileSettings,
    custom_headers: run.options.customHeaders,
    requests_per_second: run.options.requestsPerSecond,
  };
  const scope = new ScanScope(origin, settings);
  const own: Origin = { scheme: origin.scheme, host: origin.host, port: origin.port };
  const base = new URL(`${originText(own)}/`);
  if (!scope.isUrlAllowed(base)) {
    result.error = `${origin.host} is not ${origin.scopeName} or a name under it: nothing was requested`;
    return undefined;
  }
  try {
    await client.addressesOf(origin.host);
  } catch (err) {
    if (signal.aborted) throw err;
    result.error = err instanceof Error ? err.message : String(err);
    return undefined;
  }
  const progress = run.progress.forOrigin();
  const session = new ScanSession(
    origin,
    settings,
    scope,
    client,
    new RequestBudget(settings.requests_per_second, statelessRequestsInFlight),
    progress,
    false,
  );
  const context: CheckContext = { session, signal, report: (finding) => sink.finding(finding) };
  return { run, own, base, session, progress, context, result };
}

/** Copies the origin's count of requests sent into its result. */
function syncCount(test: OriginTest): void {
  test.result.requestsSent = test.progress.counters.requestsSent;
}

/** One GET of a page, or why no answer came (an abort is rethrown). */
async function fetchPage(test: OriginTest, url: URL): Promise<CrawledPage | { failure: string }> {
  const { signal, options } = test.run;
  try {
    const exchange = await test.session.send('GET', url, signal);
    test.progress.counters.pagesCrawled += 1;
    test.progress.touch();
    const isHtml = isHtmlResponse(exchange);
    return {
      url,
      origin: test.own,
      originText: originText(test.own),
      exchange,
      isHtml,
      links: isHtml ? extractPageLinks(exchange.body) : undefined,
    };
  } catch (err) {
    const failure = classifyFailure(err, options.requestTimeoutMs, signal.aborted);
    if (failure.kind === 'aborted' || signal.aborted) throw failure;
    return { failure: failure.message };
  } finally {
    syncCount(test);
  }
}

/** Runs the checks on a page side by side (their requests share the budget); an abort is rethrown once all settled. */
async function inspect(test: OriginTest, page: CrawledPage, list: PageCheck[]): Promise<void> {
  const { signal, sink } = test.run;
  const settled = await Promise.allSettled(
    list.map(async (check) => {
      try {
        await check.inspect(page, test.context);
      } catch (err) {
        if (signal.aborted) throw err;
        sink.warning(
          `check ${check.id} failed on ${page.url.href}: ${err instanceof Error ? err.message : String(err)}`,
        );
      } finally {
        test.progress.counters.checksDone += 1;
        test.progress.touch();
        syncCount(test);
      }
    }),
  );
  throwFirstRejection(settled);
}

/** Rethrows the reason of the first promise that was rejected, if any. */
function throwFirstRejection(settled: PromiseSettledResult<unknown>[]): void {
  const rejected = settled.find((s) => s.status === 'rejected');
  if (rejected !== undefined) throw rejected.reason;
}

/**
 * The start page, following redirects that stay on the origin (a hop that fails leaves the last
 * answer); undefined, with the error in the result, when the origin's root got no answer.
 */
async function fetchStartPage(test: OriginTest): Promise<CrawledPage | undefined> {
  const first = await fetchPage(test, test.base);
  if ('failure' in first) {
    test.result.error = first.failure;
    return undefined;
  }
  test.result.isAnswered = true;
  let startPage = first;
  for (let hop = 0; hop < startPageMaxRedirects; hop += 1) {
    const next = sameOriginRedirect(startPage, test.own);
    if (next === undefined) break;
    const page = await fetchPage(test, next);
    if ('failure' in page) break;
    startPage = page;
  }
  return startPage;
}

/**
 * Runs the checks of an origin that answered: the probes on the start page (each check once per
 * origin) while the not-found probe, the listing directories and the well-known files are fetched
 * and judged (a soft-404 answer is not). Every step is a task, so that an abort anywhere leaves no
 * promise without a handler; the first rejection is rethrown once all settled.
 */
async function probeOrigin(test: OriginTest, startPage: CrawledPage): Promise<void> {
  const { checks } = test.run;
  const tasks: Array<Promise<void>> = [];
  tasks.push(
    inspect(test, startPage, [
      ...checks.probes,
      checks.debug,
      ...(startPage.url.pathname.endsWith('/') ? [checks.directory] : []),
      checks.backups,
    ]),
  );
  const notFoundPage = fetchPage(test, new URL(notFoundProbePath, test.base));
  tasks.push(notFoundPage.then((page) => ('failure' in page ? undefined : inspect(test, page, [checks.debug]))));
  const fetchAndInspect = (paths: readonly string[], check: PageCheck): void => {
    for (const path of paths) {
      if (path === startPage.url.pathname) continue;
      tasks.push(
        Promise.all([fetchPage(test, new URL(path, test.base)), notFoundPage]).then(([page, notFound]) => {
          // A soft-404 answer is neither a directory nor a file: judging it would only cost requests.
          if (
            'failure' in page ||
            isSoftNotFound(page.exchange, path, 'failure' in notFound ? undefined : notFound.exchange)
          )
            return;
          return inspect(test, page, [check]);
        }),
      );
    }
  };
  fetchAndInspect(listingProbePaths, checks.directory);
  fetchAndInspect(wellKnownFilePaths, checks.backups);
  throwFirstRejection(await Promise.allSettled(tasks));
}

/**
 * Surface monitoring's stateless tests over a list of origins (port ScanEngine.statelessTests):
 * per origin the start page, then the fixed-path probes of the application scanner's exposure
 * checks, a not-found probe, the listing directories and the well-known files with their backup
 * names; only GET, no cookie kept, every request within the origin's budget. Findings go to the
 * sink as scan() reports them; an origin that does not answer is reported in the outcome.
 */
export async function runStatelessTests(
  deps: { guard: EgressGuard; resolver: DnsResolver },
  origins: StatelessOrigin[],
  options: StatelessOptions,
  sink: ScanSink,
  callerSignal: AbortSignal,
): Promise<StatelessOutcome> {
  const distinct = new Map<string, StatelessOrigin>();
  for (const origin of origins) {
    const key = originText({ scheme: origin.scheme, host: origin.host.toLowerCase(), port: origin.port });
    if (!distinct.has(key)) distinct.set(key, { ...origin, host: origin.host.toLowerCase() });
  }
  const results: StatelessOriginResult[] = [...distinct.values()].map((origin) => ({
    origin,
    isAnswered: false,
    requestsSent: 0,
  }));
  if (callerSignal.aborted)
    return { status: 'aborted', origins: results.map((r) => ({ ...r, error: 'aborted before it was tested' })) };
  // One listener on the caller's signal; the run's own signal is shared by every origin's waits and requests.
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const forward = (): void => controller.abort(callerSignal.reason);
  callerSignal.addEventListener('abort', forward, { once: true });
  const signal = controller.signal;
  const client = createGuardedHttpClient({
    guard: deps.guard,
    resolver: deps.resolver,
    requestTimeoutMs: options.requestTimeoutMs,
    signal,
  });
  const progress = new RunProgress(sink);
  const run: OriginRun = { client, options, sink, signal, checks: createStatelessChecks(), progress };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!signal.aborted) {
      const result = results[next];
      next += 1;
      if (result === undefined) return;
      try {
        await testOrigin(run, result.origin, result);
      } catch (err) {
        if (!signal.aborted) {
          // Only an abort should get here; anything else is the origin's failure, not the run's.
          result.error = err instanceof Error ? err.message : String(err);
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(statelessOriginConcurrency, results.length) }, () => worker()));
  } finally {
    callerSignal.removeEventListener('abort', forward);
    progress.flush();
    await client.close();
  }
  if (!signal.aborted) return { status: 'completed', origins: results };
  for (const result of results)
    if (!result.isAnswered && result.error === undefined) result.error = 'aborted before it answered';
  return { status: 'aborted', origins: results };
}
