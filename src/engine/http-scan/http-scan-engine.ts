import { setMaxListeners } from 'node:events';
import type { ScanEngine, ScanLimits, ScanOutcome, ScanSink, ScanTarget } from '../../core/scans/scan-engine.ts';
import type { ScanProfileSettings } from '../../core/scans/scan-profile-settings.ts';
import type { DnsResolver } from '../dns/resolver.ts';
import type { EgressGuard } from '../net/egress-guard.ts';
import { createCookieFlagsCheck } from './checks/cookie-flags.check.ts';
import { createDirectoryListingCheck } from './checks/directory-listing.check.ts';
import { createExposedGitCheck } from './checks/exposed-git.check.ts';
import { createBackupFilesCheck } from './checks/backup-files.check.ts';
import { createExposedEnvFileCheck } from './checks/exposed-env-file.check.ts';
import { createExposedSvnCheck } from './checks/exposed-svn.check.ts';
import { createPhpinfoCheck } from './checks/phpinfo.check.ts';
import { createDefaultPageCheck } from './checks/default-page.check.ts';
import { createSecretsInJavaScriptCheck } from './checks/secrets-in-javascript.check.ts';
import { createServerStatusCheck } from './checks/server-status.check.ts';
import { createSourceMapCheck } from './checks/source-map.check.ts';
import { createStackTraceCheck } from './checks/stack-trace.check.ts';
import type { PageCheck } from './check-kit/page-check.ts';
import { createCommandInjectionCheck } from './checks/command-injection.check.ts';
import { createCodeEvaluationCheck } from './checks/code-evaluation.check.ts';
import { createInsecureDeserializationCheck } from './checks/insecure-deserialization.check.ts';
import { createOpenRedirectCheck } from './checks/open-redirect.check.ts';
import { createPathTraversalCheck } from './checks/path-traversal.check.ts';
import { createReflectedXssCheck } from './checks/reflected-xss.check.ts';
import { createSqlInjectionCheck } from './checks/sql-injection.check.ts';
import { createTemplateInjectionCheck } from './checks/template-injection.check.ts';
import { createSecurityHeadersCheck } from './checks/security-headers.check.ts';
import { createClickjackingCheck } from './checks/clickjacking.check.ts';
import { createCorsCheck } from './checks/cors.check.ts';
import { createDefaultCredentialsCheck } from './checks/default-credentials.check.ts';
import { createCsrfCheck } from './checks/csrf.check.ts';
import { createFileUploadCheck } from './checks/file-upload.check.ts';
import { createSensitiveDataCheck } from './checks/sensitive-data.check.ts';
import { createSessionIdCheck } from './checks/session-id.check.ts';
import { createHttpMethodsCheck } from './checks/http-methods.check.ts';
import { createLoginOverHttpCheck } from './checks/login-over-http.check.ts';
import { createMixedContentCheck } from './checks/mixed-content.check.ts';
import { createPasswordAutocompleteCheck } from './checks/password-autocomplete.check.ts';
import { createVersionDisclosureCheck } from './checks/version-disclosure.check.ts';
import { createCrlfInjectionCheck } from './checks/crlf-injection.check.ts';
import { createSsrfCheck, ssrfCheckId } from './checks/ssrf.check.ts';
import { createStoredXssCheck } from './checks/stored-xss.check.ts';
import { createXxeCheck } from './checks/xxe.check.ts';
import { defaultCanaryConfig, type CanaryConfig } from '../../config/canary.ts';
import { CanaryListener, type ScanCanary } from './check-kit/canary-listener.ts';
import { createGuardedHttpClient, HttpRequestError, type GuardedHttpClient } from './check-kit/guarded-http-client.ts';
import { probeEndpoint } from './http-probe.ts';
import { RequestBudget } from './check-kit/request-budget.ts';
import { ScanScope, originText } from './check-kit/scan-scope.ts';
import { ProgressReporter, ScanSession } from './check-kit/scan-session.ts';
import { crawlConcurrency, crawlSite } from './site-crawler.ts';
import { logInWhenAsked } from './scan-login.ts';
import { createPageRenderer, type PageRenderer } from './browser/page-renderer.ts';
import { createDomXssCheck } from './checks/dom-xss.check.ts';
import { runStatelessTests } from './stateless-tests.ts';

/**
 * The checks of one scan, fresh per scan (each keeps its own per-origin state). Without the
 * scan's canary the SSRF check does nothing and XXE is tested in band only; the list is the
 * same either way.
 */
export function createDefaultChecks(
  options: { canary?: ScanCanary | undefined; renderer?: PageRenderer | undefined } = {},
): PageCheck[] {
  return [
    createSecurityHeadersCheck(),
    createCookieFlagsCheck(),
    createDirectoryListingCheck(),
    createExposedGitCheck(),
    createReflectedXssCheck(),
    // Injection (active) checks.
    createSqlInjectionCheck(),
    createPathTraversalCheck(),
    createOpenRedirectCheck(),
    createTemplateInjectionCheck(),
    createCommandInjectionCheck(),
    createCodeEvaluationCheck(),
    createInsecureDeserializationCheck(),
    createXxeCheck(options.canary),
    createCrlfInjectionCheck(),
    createSsrfCheck(options.canary),
    createStoredXssCheck(),
    // DOM-based XSS needs the browser: only with render_javascript.
    ...(options.renderer === undefined ? [] : [createDomXssCheck(options.renderer)]),
    // Exposure checks (probes of fixed paths and backup names, passive recognisers).
    createExposedSvnCheck(),
    createExposedEnvFileCheck(),
    createBackupFilesCheck(),
    createPhpinfoCheck(),
    createServerStatusCheck(),
    createDefaultPageCheck(),
    createStackTraceCheck(),
    createSourceMapCheck(),
    createSecretsInJavaScriptCheck(),
    // Configuration checks (headers are above: security headers, cookie flags).
    createCorsCheck(),
    createMixedContentCheck(),
    createHttpMethodsCheck(),
    createClickjackingCheck(),
    createVersionDisclosureCheck(),
    // Authentication checks.
    createLoginOverHttpCheck(),
    createPasswordAutocompleteCheck(),
    createDefaultCredentialsCheck(),
    // Application checks (issue 37): uploads, CSRF, session identifiers, data in API answers.
    createFileUploadCheck(),
    createCsrfCheck(),
    createSessionIdCheck(),
    createSensitiveDataCheck(),
  ];
}

/** The scheme of an extra port of the target host: TLS ports are https, the rest the target's. */
function schemeOfPort(port: number, target: ScanTarget): 'http' | 'https' {
  if (port === 443 || port === 8443) return 'https';
  if (port === 80 || port === 3000 || port === 8000 || port === 8080) return 'http';
  return target.scheme;
}

/**
 * The scan's share of the engine's canary, or undefined (with a warning) when it is disabled,
 * cannot bind, or listens on loopback while the target is elsewhere (it could not reach it).
 */
async function openCanary(
  canary: CanaryListener,
  targetAddresses: string[],
  sink: ScanSink,
): Promise<ScanCanary | undefined> {
  const skipped = (why: string): undefined => {
    sink.warning(
      `the SSRF canary is not available (${why}): ${ssrfCheckId} was skipped and XML external entities were tested in band only`,
    );
    return undefined;
  };
  if (!canary.canReach(targetAddresses))
    return skipped(
      'it listens on loopback, which the target cannot reach: set PERIMETER_SCAN_CANARY_LISTEN and PERIMETER_SCAN_CANARY_URL',
    );
  try {
    return await canary.open();
  } catch (err) {
    return skipped(err instanceof Error ? err.message : String(err));
  }
}

/** The page renderer of a scan with render_javascript (its browser starts at the first HTML page), else undefined. */
function rendererOf(
  settings: ScanProfileSettings,
  session: ScanSession,
  signal: AbortSignal,
  sink: ScanSink,
  browserPath: string | undefined,
): PageRenderer | undefined {
  if (settings.render_javascript !== true) return undefined;
  return createPageRenderer({ session, signal, warn: (message) => sink.warning(message), browserPath });
}

/** The target's addresses through the guard, or the outcome that ends the scan (aborted, denied, unresolved). */
async function addressesOfTarget(
  client: GuardedHttpClient,
  target: ScanTarget,
  signal: AbortSignal,
): Promise<string[] | ScanOutcome> {
  try {
    return await client.addressesOf(target.host);
  } catch (err) {
    if (signal.aborted) return { status: 'aborted' };
    const failure = err instanceof HttpRequestError ? err : new HttpRequestError('other', String(err));
    if (failure.kind === 'denied') return { status: 'unable_to_complete', error: `${target.host}: ${failure.message}` };
    return { status: 'unable_to_resolve', error: failure.message };
  }
}

/** Runs one scan: resolves through the guard, crawls with the checks, and maps the ending to an outcome. */
async function runScan(
  deps: { guard: EgressGuard; resolver: DnsResolver; canary: CanaryListener; browserPath: string | undefined },
  target: ScanTarget,
  settings: ScanProfileSettings,
  limits: ScanLimits,
  sink: ScanSink,
  signal: AbortSignal,
): Promise<ScanOutcome> {
  if (signal.aborted) return { status: 'aborted' };
  const duration = new AbortController();
  let isDurationHit = false;
  const timer = setTimeout(() => {
    isDurationHit = true;
    duration.abort(new Error('maxDurationMs reached'));
  }, limits.maxDurationMs);
  const scanSignal = AbortSignal.any([signal, duration.signal]);
  // Every waiting request (the budget's queue, the crawl's workers, the browser, a check's pause)
  // listens to the scan's signal for a moment: more than Node's default of 10 is the normal case.
  setMaxListeners(256, scanSignal);
  const progress = new ProgressReporter(sink, { pagesCrawled: 0, requestsSent: 0, checksDone: 0 });
  const client = createGuardedHttpClient({
    guard: deps.guard,
    resolver: deps.resolver,
    requestTimeoutMs: limits.requestTimeoutMs,
    signal: scanSignal,
  });
  let canary: ScanCanary | undefined;
  let renderer: PageRenderer | undefined;
  try {
    const scope = new ScanScope(target, settings);
    const start = new URL(`${originText({ scheme: target.scheme, host: target.host, port: target.port })}/`);
    if (!scope.isPortAllowed(target.port)) {
      sink.warning(`the target port ${target.port} is in blacklisted_ports: nothing was requested`);
      return { status: 'completed', coverage: { answered: [], unanswered: 0 } };
    }
    const addresses = await addressesOfTarget(client, target, signal);
    if (!Array.isArray(addresses)) return addresses;
    const budget = new RequestBudget(settings.requests_per_second, crawlConcurrency);
    const session = new ScanSession(target, settings, scope, client, budget, progress);
    const loginPages = await logInWhenAsked(session, start, sink, scanSignal);
    const extraSeeds = scope
      .extraPorts()
      .map((port) => new URL(`${originText({ scheme: schemeOfPort(port, target), host: target.host, port })}/`));
    canary = await openCanary(deps.canary, addresses, sink);
    renderer = rendererOf(settings, session, scanSignal, sink, deps.browserPath);
    const checks = createDefaultChecks({ canary, renderer });
    const result = await crawlSite({
      session,
      checks,
      limits,
      sink,
      signal: scanSignal,
      start,
      extraSeeds,
      startUrls: settings.start_urls,
      loginPages,
      renderer,
    });
    if (signal.aborted) return { status: 'aborted' };
    if (isDurationHit)
      sink.warning(
        `maxDurationMs limit reached: the scan stopped after ${limits.maxDurationMs} ms with what it had crawled`,
      );
    if (result.startFailure !== undefined && progress.counters.pagesCrawled === 0) {
      return { status: 'unable_to_complete', error: `${start.href}: ${result.startFailure}` };
    }
    return { status: 'completed', coverage: { answered: [...session.answered], unanswered: session.unanswered } };
  } catch (err) {
    if (signal.aborted) return { status: 'aborted' };
    return { status: 'unable_to_complete', error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
    progress.flush();
    // Closed on every ending, abort included: the canary stops listening with the last scan using it.
    await Promise.all([canary?.close(), renderer?.close(), client.close()]);
  }
}

/**
 * The application-scan engine (port ScanEngine): probe() validates an endpoint, scan() crawls
 * the target and runs the checks of createDefaultChecks() (configuration, exposure, injection
 * and authentication; docs/scanning.md lists them). Every connection passes the egress guard;
 * network trouble is an outcome or a warning, never a throw. statelessTests() runs surface
 * monitoring's single-request exposure checks over many origins (stateless-tests.ts). `canary` says where the SSRF canary
 * listens (default: 127.0.0.1, an ephemeral port); it listens only while a scan runs.
 */
export function createHttpScanEngine(deps: {
  guard: EgressGuard;
  resolver: DnsResolver;
  canary?: CanaryConfig;
  /** The browser of render_javascript (else PERIMETER_SCAN_BROWSER, /usr/bin/chromium, or PATH). */
  browserPath?: string;
}): ScanEngine {
  const canary = new CanaryListener(deps.canary ?? defaultCanaryConfig);
  return {
    probe: (endpoint, scopeName, signal, timeoutMs) => probeEndpoint(deps, endpoint, scopeName, signal, timeoutMs),
    scan: (target, settings, limits, sink, signal) =>
      runScan(
        { guard: deps.guard, resolver: deps.resolver, canary, browserPath: deps.browserPath },
        target,
        settings,
        limits,
        sink,
        signal,
      ),
    statelessTests: (origins, options, sink, signal) => runStatelessTests(deps, origins, options, sink, signal),
  };
}
