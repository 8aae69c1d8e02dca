import { Cookie } from 'tough-cookie';
import type { FindingKind } from './finding-builder.ts';
import { buildFinding } from './finding-builder.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the cookie-flags check. */
export const cookieFlagsCheckId = 'cookie-flags';

type Flag = 'secure' | 'httponly' | 'samesite';

const BASE = {
  checkId: cookieFlagsCheckId,
  owasp: 'A05:2021-Security Misconfiguration',
  severity: 'low' as const,
  references: [
    { link: 'https://owasp.org/www-community/controls/SecureCookieAttribute', name: 'OWASP: Secure cookie attribute' },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Session_Management_Cheat_Sheet.html#cookies',
      name: 'OWASP Session Management Cheat Sheet: Cookies',
    },
  ],
};

const KINDS: Record<Flag, FindingKind> = {
  secure: {
    ...BASE,
    title: 'Cookie without Secure flag',
    cwe: 614,
    cvssVector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
    description: 'An HTTPS origin sets a cookie without the Secure attribute.',
    risk: 'The browser also sends the cookie over plain HTTP, where a network attacker can read it.',
    remediation: 'Add the `Secure` attribute to every cookie set by an HTTPS site.',
  },
  httponly: {
    ...BASE,
    title: 'Cookie without HttpOnly flag',
    cwe: 1004,
    cvssVector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
    description: 'The site sets a cookie without the HttpOnly attribute.',
    risk: 'Scripts, including injected ones, can read the cookie and steal the session.',
    remediation: 'Add the `HttpOnly` attribute to cookies that scripts do not need to read.',
  },
  samesite: {
    ...BASE,
    title: 'Cookie without SameSite attribute',
    cwe: 1275,
    cvssVector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:N/I:L/A:N',
    description: 'The site sets a cookie without a SameSite attribute.',
    risk: 'Browsers that do not default to Lax send the cookie on cross-site requests, which eases cross-site request forgery.',
    remediation:
      'Add `SameSite=Lax` (or `Strict`) to the cookie; `SameSite=None` only together with `Secure` when cross-site use is needed.',
  },
};

/** The flags a Set-Cookie header lacks on this origin (Secure counts only on HTTPS). */
export function missingCookieFlags(setCookie: string, isHttps: boolean): Flag[] {
  const attributes = setCookie
    .split(';')
    .slice(1)
    .map((part) => part.trim().toLowerCase());
  const has = (name: string): boolean => attributes.some((a) => a === name || a.startsWith(`${name}=`));
  const missing: Flag[] = [];
  if (isHttps && !has('secure')) missing.push('secure');
  if (!has('httponly')) missing.push('httponly');
  if (!has('samesite')) missing.push('samesite');
  return missing;
}

/**
 * Cookie flags: for each Set-Cookie the origin sends, one finding per cookie name per origin per
 * missing flag (Secure on HTTPS origins only, HttpOnly, SameSite), located at
 * `origin/?cookie=NAME&flag=FLAG` so that fixing one flag patches just that finding.
 */
export function createCookieFlagsCheck(): PageCheck {
  const reported = new Set<string>();
  return {
    id: cookieFlagsCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      for (const header of page.exchange.headers) {
        if (header.name !== 'set-cookie') continue;
        const cookie = Cookie.parse(header.value, { loose: true });
        if (cookie === undefined || cookie.key === '') continue;
        for (const flag of missingCookieFlags(header.value, page.origin.scheme === 'https')) {
          const key = `${page.originText} ${cookie.key} ${flag}`;
          if (reported.has(key)) continue;
          reported.add(key);
          await context.report(
            buildFinding(KINDS[flag], {
              location: `${page.originText}/?cookie=${encodeURIComponent(cookie.key)}&flag=${flag}`,
              host: page.origin.host,
              exchange: page.exchange,
              title: `${KINDS[flag].title}: ${cookie.key}`,
              observation: `${page.url.href} sets cookie ${cookie.key} without the ${flag === 'samesite' ? 'SameSite' : flag === 'secure' ? 'Secure' : 'HttpOnly'} attribute.`,
              extraHighlights: [
                { field: 'response.headers.set-cookie', value: header.value, offset: 0, length: header.value.length },
              ],
              cookie: {
                domain: cookie.domain ?? page.origin.host,
                name: cookie.key,
                path: cookie.path ?? '/',
                value: cookie.value,
                httponly: cookie.httpOnly,
                secure: cookie.secure,
                ...(cookie.expires instanceof Date ? { expires: cookie.expires } : {}),
              },
            }),
          );
        }
      }
    },
  };
}
