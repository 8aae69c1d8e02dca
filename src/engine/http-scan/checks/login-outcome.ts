import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { headerValues } from './header-policies.ts';

/** What a login answer looks like, reduced to the signals that tell success from failure. */
export interface LoginAnswer {
  status: number;
  /** The redirect target (path and query, resolved against the request) of a 3xx. */
  location: string | undefined;
  /** The answer shows a password input again (the login form). */
  hasPasswordInput: boolean;
  /** The answer says the login failed. */
  hasErrorText: boolean;
}

const PASSWORD_INPUT = /<input\b[^>]*type\s*=\s*["']?password\b/i;
const ERROR_TEXT =
  /\b(?:invalid|incorrect|wrong|failed|failure|denied|unauthori[sz]ed|not recogni[sz]ed|try again|locked|blocked|too many|disabled|suspended)\b/i;
// A redirect back to a login page or to an error says the login failed.
const FAILED_REDIRECT = /(?:log-?in|sign-?in|log-?on|error|fail|denied|invalid)/i;

/** Reduces an exchange to its login signals. */
export function loginAnswerOf(exchange: HttpExchange): LoginAnswer {
  const raw = headerValues(exchange, 'location')[0];
  let location: string | undefined;
  if (exchange.status >= 300 && exchange.status < 400 && raw !== undefined) {
    try {
      const url = new URL(raw, exchange.request.url);
      location = `${url.pathname}${url.search}`;
    } catch {
      location = undefined;
    }
  }
  return {
    status: exchange.status,
    location,
    hasPasswordInput: PASSWORD_INPUT.test(exchange.body),
    hasErrorText: ERROR_TEXT.test(exchange.body),
  };
}

/**
 * True when a form login answer is a clear success compared with the baseline (the answer to
 * random credentials): a redirect elsewhere than the baseline's and not back to the login page
 * (`loginPaths`) or an error; or a 2xx page without the login form and without an error message
 * where the baseline showed the form again or did not answer 2xx. Errors (4xx, 5xx) never are.
 */
export function isFormLoginAccepted(baseline: LoginAnswer, attempt: LoginAnswer, loginPaths: string[]): boolean {
  if (attempt.status < 200 || attempt.status >= 400) return false;
  if (attempt.status >= 300) {
    if (attempt.location === undefined) return false;
    const path = attempt.location.replace(/[?#].*$/, '');
    if (loginPaths.includes(path) || FAILED_REDIRECT.test(attempt.location)) return false;
    return !(baseline.status >= 300 && baseline.status < 400 && baseline.location === attempt.location);
  }
  if (attempt.hasPasswordInput || attempt.hasErrorText) return false;
  return baseline.hasPasswordInput || baseline.status >= 300;
}

/** True when HTTP basic authentication accepted the attempt: the baseline was refused with 401, the attempt got a 2xx. */
export function isBasicLoginAccepted(baseline: LoginAnswer, attempt: LoginAnswer): boolean {
  return baseline.status === 401 && attempt.status >= 200 && attempt.status < 300;
}

/** True when the site throttles or locks out: further attempts would only add to a lockout counter. */
export function isThrottled(baseline: LoginAnswer, attempt: LoginAnswer): boolean {
  return attempt.status === 429 || attempt.status === 423 || (attempt.status === 403 && baseline.status !== 403);
}

/** A short human description of an answer, for the finding's evidence. */
export function describeLoginAnswer(answer: LoginAnswer): string {
  if (answer.location !== undefined) return `${answer.status} redirecting to ${answer.location}`;
  if (answer.hasPasswordInput) return `${answer.status} with the login form again`;
  return `${answer.status}${answer.hasErrorText ? ' with an error message' : ''}`;
}
