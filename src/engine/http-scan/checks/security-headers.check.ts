import type { Severity } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import { headerValue, type CheckContext, type CrawledPage, type PageCheck } from './page-check.ts';

/** Stable id of the missing-security-headers check. */
export const securityHeadersCheckId = 'http-security-headers';

const OWASP = 'A05:2021-Security Misconfiguration';
const VECTOR = 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N';
const SEVERITY: Severity = 'low';
const HEADERS_REFERENCE = { link: 'https://owasp.org/www-project-secure-headers/', name: 'OWASP Secure Headers Project' };

interface HeaderRule {
  header: string;
  isMissing(page: CrawledPage): boolean;
  kind: FindingKind;
}

function kind(header: string, cwe: number, description: string, risk: string, remediation: string): FindingKind {
  return {
    checkId: securityHeadersCheckId,
    title: `Missing security header: ${header}`,
    cwe,
    cvssVector: VECTOR,
    severity: SEVERITY,
    owasp: OWASP,
    description,
    risk,
    remediation,
    references: [HEADERS_REFERENCE, { link: 'https://owasp.org/Top10/A05_2021-Security_Misconfiguration/', name: 'OWASP Top 10 2021 A05' }],
  };
}

const RULES: HeaderRule[] = [
  {
    header: 'content-security-policy',
    isMissing: (page) => headerValue(page.exchange, 'content-security-policy') === undefined,
    kind: kind('Content-Security-Policy', 693, 'HTML responses of this origin carry no Content-Security-Policy header.', 'Without a policy the browser runs any injected script, so an XSS flaw is fully exploitable.', 'Send a `Content-Security-Policy` header on every HTML response, e.g. `default-src \'self\'; frame-ancestors \'self\'`, and tighten it per page.'),
  },
  {
    header: 'x-frame-options',
    isMissing: (page) => headerValue(page.exchange, 'x-frame-options') === undefined && !/frame-ancestors/i.test(headerValue(page.exchange, 'content-security-policy') ?? ''),
    kind: kind('X-Frame-Options', 1021, 'HTML responses of this origin may be framed by any site: neither X-Frame-Options nor a CSP frame-ancestors directive is sent.', 'Another site can frame these pages and trick users into clicking (clickjacking).', 'Send `X-Frame-Options: DENY` (or `SAMEORIGIN`), or a CSP `frame-ancestors` directive.'),
  },
  {
    header: 'x-content-type-options',
    isMissing: (page) => (headerValue(page.exchange, 'x-content-type-options') ?? '').trim().toLowerCase() !== 'nosniff',
    kind: kind('X-Content-Type-Options', 693, 'HTML responses of this origin lack `X-Content-Type-Options: nosniff`.', 'Browsers may sniff content types and run uploaded or reflected content as script or HTML.', 'Send `X-Content-Type-Options: nosniff` on every response.'),
  },
  {
    header: 'strict-transport-security',
    isMissing: (page) => page.origin.scheme === 'https' && headerValue(page.exchange, 'strict-transport-security') === undefined,
    kind: kind('Strict-Transport-Security', 319, 'This HTTPS origin sends no Strict-Transport-Security header.', 'A network attacker can downgrade first visits to plain HTTP and read or change the traffic.', 'Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` on HTTPS responses.'),
  },
];

/**
 * Missing security headers: judged once per origin on its first successful HTML response; one
 * finding per missing header per origin, located at `origin/?header=NAME` (a query rather than
 * a fragment, because the fingerprint normaliser drops fragments).
 */
export function createSecurityHeadersCheck(): PageCheck {
  const judged = new Set<string>();
  return {
    id: securityHeadersCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      if (!page.isHtml || page.exchange.status >= 400 || judged.has(page.originText)) return;
      judged.add(page.originText);
      for (const rule of RULES) {
        if (!rule.isMissing(page)) continue;
        await context.report(
          buildFinding(rule.kind, {
            location: `${page.originText}/?header=${rule.header}`,
            host: page.origin.host,
            exchange: page.exchange,
            observation: `The response to ${page.url.href} (status ${page.exchange.status}) has no valid ${rule.header} header.`,
          }),
        );
      }
    },
  };
}
