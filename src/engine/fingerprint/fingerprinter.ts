import { setMaxListeners } from 'node:events';
import type {
  FingerprintOptions,
  FingerprintOrigin,
  FingerprintReport,
  Fingerprinter,
  TechnologyObservation,
} from '../../core/surface/exposure-engines.ts';
import { defaultScanProfileSettings, type ScanProfileSettings } from '../../core/scans/scan-profile-settings.ts';
import type { DnsResolver } from '../dns/resolver.ts';
import {
  classifyFailure,
  createGuardedHttpClient,
  type GuardedHttpClient,
  type HttpExchange,
} from '../http-scan/check-kit/guarded-http-client.ts';
import { RequestBudget } from '../http-scan/check-kit/request-budget.ts';
import { ScanScope, originOf, originText } from '../http-scan/check-kit/scan-scope.ts';
import { ProgressReporter, ScanSession } from '../http-scan/check-kit/scan-session.ts';
import type { EgressGuard } from '../net/egress-guard.ts';
import { readPageSignals } from './page-signals.ts';
import { loadShippedRuleSet, type RuleSet } from './rule-set.ts';
import { detectTechnologies } from './technology-matcher.ts';

/** Origins fingerprinted side by side. */
export const fingerprintOriginConcurrency = 8;
/** Redirects of the start page followed at most (each inside the origin's scope). */
export const fingerprintMaxRedirects = 3;

/** What the fingerprinter needs: the egress guard and resolver every connection goes through, and optionally a rule set (the shipped one by default). */
export interface FingerprinterDeps {
  guard: EgressGuard;
  resolver: DnsResolver;
  rules?: RuleSet;
}

/** What one pass shares: the client, a request budget per host, the settings the session reads. */
interface Pass {
  client: GuardedHttpClient;
  rules: RuleSet;
  options: FingerprintOptions;
  signal: AbortSignal;
  budgets: Map<string, RequestBudget>;
  requests: number;
  warnings: string[];
}

/** Where a redirect leads, when it stays inside the origin's scope (never a loop back to the same URL). */
function redirectTarget(exchange: HttpExchange, from: URL, scope: ScanScope): URL | undefined {
  if (exchange.status < 300 || exchange.status >= 400) return undefined;
  const location = exchange.headers.find((h) => h.name.toLowerCase() === 'location')?.value;
  if (location === undefined) return undefined;
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    return undefined;
  }
  next.hash = '';
  if (next.href === from.href || originOf(next) === undefined || !scope.isUrlAllowed(next)) return undefined;
  return next;
}

/**
 * Fingerprints one origin: GET / (redirects followed inside the scope), then the rule set on
 * the last answer. Resolves with the technologies, or with none and a warning when the origin
 * did not answer; rejects only on abort.
 */
async function fingerprintOrigin(
  pass: Pass,
  origin: FingerprintOrigin,
): Promise<{ isAnswered: boolean; technologies: TechnologyObservation[] }> {
  const settings: ScanProfileSettings = {
    ...defaultScanProfileSettings,
    custom_headers: pass.options.customHeaders,
    requests_per_second: pass.options.requestsPerSecond,
  };
  const scope = new ScanScope(origin, settings);
  const start = new URL(`${originText(origin)}/`);
  const label = originText(origin);
  if (!scope.isUrlAllowed(start)) {
    pass.warnings.push(`${label}: ${origin.host} is not ${origin.scopeName} or a name under it: nothing was requested`);
    return { isAnswered: false, technologies: [] };
  }
  // The budget is per host: origins on several ports of one host share its requests per second.
  let budget = pass.budgets.get(origin.host);
  if (budget === undefined) {
    budget = new RequestBudget(settings.requests_per_second, 2);
    pass.budgets.set(origin.host, budget);
  }
  const counters = { pagesCrawled: 0, requestsSent: 0, checksDone: 0 };
  const progress = new ProgressReporter(
    { finding: async () => undefined, warning: () => undefined, progress: () => undefined },
    counters,
    0,
  );
  const session = new ScanSession(origin, settings, scope, pass.client, budget, progress, false);
  let url = start;
  let exchange: HttpExchange | undefined;
  try {
    for (let hop = 0; hop <= fingerprintMaxRedirects; hop += 1) {
      const answer = await session.send('GET', url, pass.signal);
      exchange = answer;
      const next = redirectTarget(answer, url, scope);
      if (next === undefined || hop === fingerprintMaxRedirects) break;
      url = next;
    }
  } catch (err) {
    const failure = classifyFailure(err, pass.options.requestTimeoutMs, pass.signal.aborted);
    if (failure.kind === 'aborted' || pass.signal.aborted) throw failure;
    // A redirect hop that failed leaves the last answer to fingerprint.
    if (exchange === undefined) pass.warnings.push(`${label}: ${failure.message}`);
  } finally {
    pass.requests += counters.requestsSent;
  }
  if (exchange === undefined) return { isAnswered: false, technologies: [] };
  const signals = readPageSignals(url.href, exchange.headers, exchange.body);
  const technologies = detectTechnologies(pass.rules, signals).map((t) => ({
    host: origin.host,
    port: origin.port,
    serviceProtocol: origin.scheme,
    ...t,
  }));
  return { isAnswered: true, technologies };
}

/**
 * engine/fingerprint: technologies and versions of web origins from one GET of the start page,
 * with the Wappalyzer-format rule set (rule-set.ts). Every connection dials through the egress
 * guard; requests_per_second is honoured per host, the custom headers are sent, every request
 * has the time limit and the pass stops on the signal. An origin that does not answer is a
 * warning, never a throw.
 */
export function createFingerprinter(deps: FingerprinterDeps): Fingerprinter {
  return {
    async fingerprint(origins, options, callerSignal) {
      const report: FingerprintReport = { technologies: [], origins: 0, requests: 0, warnings: [] };
      const distinct = new Map<string, FingerprintOrigin>();
      for (const origin of origins) {
        const normalised = { ...origin, host: origin.host.toLowerCase() };
        distinct.set(originText(normalised), normalised);
      }
      if (callerSignal.aborted || distinct.size === 0) {
        if (callerSignal.aborted) report.warnings.push('aborted before any origin was fingerprinted');
        return report;
      }
      const rules = deps.rules ?? loadShippedRuleSet();
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
      const pass: Pass = { client, rules, options, signal, budgets: new Map(), requests: 0, warnings: report.warnings };
      const queue = [...distinct.values()];
      let next = 0;
      const worker = async (): Promise<void> => {
        while (!signal.aborted && next < queue.length) {
          const origin = queue[next]!;
          next += 1;
          try {
            const result = await fingerprintOrigin(pass, origin);
            if (result.isAnswered) report.origins += 1;
            report.technologies.push(...result.technologies);
          } catch (err) {
            if (!signal.aborted)
              report.warnings.push(`${originText(origin)}: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.min(fingerprintOriginConcurrency, queue.length) }, () => worker()));
      } finally {
        callerSignal.removeEventListener('abort', forward);
        await client.close();
      }
      report.requests = pass.requests;
      if (signal.aborted)
        report.warnings.push(`aborted: ${queue.length - Math.min(next, queue.length)} origin(s) not fingerprinted`);
      return report;
    },
  };
}
