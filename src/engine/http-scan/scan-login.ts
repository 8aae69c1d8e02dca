import type { ScanSink } from '../../core/scans/scan-engine.ts';
import { compileSelector, selectElements } from '../fingerprint/css-selector.ts';
import { readPageSignals } from '../fingerprint/page-signals.ts';
import { startLoginSession, type SelectorCompiler } from './check-kit/login-session.ts';
import type { ScanSession } from './check-kit/scan-session.ts';
import type { HttpExchange } from './check-kit/guarded-http-client.ts';

const htmlType = [{ name: 'content-type', value: 'text/html' }];

/**
 * The login's selector matcher (check-kit/login-session.ts): the fingerprinter's CSS subset
 * (fingerprint/css-selector.ts, the one the settings API checks selectors with) run on the
 * page's elements; undefined for a selector outside the subset.
 */
export const compilePageSelector: SelectorCompiler = (selector) => {
  const compiled = compileSelector(selector);
  if (compiled === undefined) return undefined;
  return (html) => {
    const page = readPageSignals('', htmlType, html);
    return selectElements(compiled, page.elements, page.elementsByTag).length > 0;
  };
};

/**
 * With the profile's `login` extension, logs the scan in before the crawl and keeps it logged
 * in (check-kit/login-session.ts); a failed login is a warning and the scan goes on without.
 * Answers the login's exchanges (the crawl's passive checks read them: the session cookie is set there).
 */
export async function logInWhenAsked(
  session: ScanSession,
  start: URL,
  sink: ScanSink,
  signal: AbortSignal,
): Promise<Array<{ url: URL; exchange: HttpExchange }>> {
  const login = session.settings.login;
  // Settings stored before the extension have no login at all.
  if (login === null || login === undefined) return [];
  const keeper = await startLoginSession({ session, login, start, sink, selectors: compilePageSelector }, signal);
  return keeper?.exchanges ?? [];
}
