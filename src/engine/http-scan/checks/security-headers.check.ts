import type { Severity } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import {
  cspPolicies,
  cspScriptWeaknesses,
  effectiveReferrerPolicy,
  headerValues,
  hstsMaxAge,
  minimumHstsMaxAge,
} from './header-policies.ts';
import { headerValue, type CheckContext, type CrawledPage, type PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the missing-or-weak security headers check. */
export const securityHeadersCheckId = 'http-security-headers';

const OWASP = 'A05:2021-Security Misconfiguration';
const VECTOR = 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N';
const SEVERITY: Severity = 'low';
const HEADERS_REFERENCE = {
  link: 'https://owasp.org/www-project-secure-headers/',
  name: 'OWASP Secure Headers Project',
};

/** What a header rule found wrong: the header is absent (or void), or present with a weak value. */
type Verdict = { isMissing: true } | { isMissing: false; reason: string; value: string; evidence: string };

interface HeaderRule {
  header: string;
  /** Undefined when the header does its job. */
  judge(page: CrawledPage): Verdict | undefined;
  missing: FindingKind;
  /** The kind of a weak value (undefined: the rule knows only absence). */
  weak?: FindingKind;
}

interface KindText {
  description: string;
  risk: string;
  remediation: string;
}

function kind(title: string, cwe: number, text: KindText): FindingKind {
  return {
    checkId: securityHeadersCheckId,
    title,
    cwe,
    cvssVector: VECTOR,
    severity: SEVERITY,
    owasp: OWASP,
    ...text,
    references: [
      HEADERS_REFERENCE,
      { link: 'https://owasp.org/Top10/A05_2021-Security_Misconfiguration/', name: 'OWASP Top 10 2021 A05' },
    ],
  };
}

const missing = (header: string, cwe: number, text: KindText): FindingKind =>
  kind(`Missing security header: ${header}`, cwe, text);
const weak = (header: string, cwe: number, text: KindText): FindingKind =>
  kind(`Weak security header: ${header}`, cwe, text);
const MISSING: Verdict = { isMissing: true };

/** A weak value: the reason and the offending part of the header value (the highlight). */
const weakValue = (value: string, reason: string, evidence: string): Verdict => ({
  isMissing: false,
  reason,
  value,
  evidence,
});

const SNIFF_RISK = 'Browsers may sniff content types and run uploaded or reflected content as script or HTML.';
const CSP_REMEDIATION =
  "Send a `Content-Security-Policy` header on every HTML response, e.g. `default-src 'self'; frame-ancestors 'self'`, and tighten it per page.";

const RULES: HeaderRule[] = [
  {
    header: 'content-security-policy',
    judge(page) {
      if (headerValue(page.exchange, 'content-security-policy') === undefined) return MISSING;
      const weakness = cspScriptWeaknesses(cspPolicies(page.exchange))[0];
      if (weakness === undefined) return undefined;
      const value =
        headerValues(page.exchange, 'content-security-policy').find((v) => v.includes(weakness.source)) ?? '';
      const reason =
        weakness.kind === 'unsafe-inline'
          ? `${weakness.directive} allows 'unsafe-inline' without a nonce or hash`
          : `${weakness.directive} allows scripts from any host (${weakness.source})`;
      return weakValue(value, reason, weakness.source);
    },
    missing: missing('Content-Security-Policy', 693, {
      description: 'HTML responses of this origin carry no Content-Security-Policy header.',
      risk: 'Without a policy the browser runs any injected script, so an XSS flaw is fully exploitable.',
      remediation: CSP_REMEDIATION,
    }),
    weak: weak('Content-Security-Policy', 693, {
      description:
        "The Content-Security-Policy of this origin lets scripts in that an attacker can inject: inline script without a nonce or hash (`'unsafe-inline'`), or scripts from any host (`*`, `https:`, `data:`).",
      risk: 'The policy does not stop an XSS payload from running, so it gives a false sense of protection.',
      remediation:
        "Remove `'unsafe-inline'` and wildcard or bare-scheme sources from `script-src` (or `default-src`); allow inline scripts by nonce or hash, e.g. `script-src 'nonce-…' 'strict-dynamic'; object-src 'none'; base-uri 'none'`.",
    }),
  },
  {
    header: 'x-frame-options',
    judge: (page) =>
      headerValue(page.exchange, 'x-frame-options') === undefined &&
      !/frame-ancestors/i.test(headerValue(page.exchange, 'content-security-policy') ?? '')
        ? MISSING
        : undefined,
    missing: missing('X-Frame-Options', 1021, {
      description:
        'HTML responses of this origin may be framed by any site: neither X-Frame-Options nor a CSP frame-ancestors directive is sent.',
      risk: 'Another site can frame these pages and trick users into clicking (clickjacking).',
      remediation: 'Send `X-Frame-Options: DENY` (or `SAMEORIGIN`), or a CSP `frame-ancestors` directive.',
    }),
  },
  {
    header: 'x-content-type-options',
    judge(page) {
      const value = headerValue(page.exchange, 'x-content-type-options');
      if (value === undefined) return MISSING;
      return value.trim().toLowerCase() === 'nosniff'
        ? undefined
        : weakValue(value, `the value is "${value}", not nosniff`, value);
    },
    missing: missing('X-Content-Type-Options', 693, {
      description: 'HTML responses of this origin lack `X-Content-Type-Options: nosniff`.',
      risk: SNIFF_RISK,
      remediation: 'Send `X-Content-Type-Options: nosniff` on every response.',
    }),
    weak: weak('X-Content-Type-Options', 693, {
      description:
        'HTML responses of this origin send X-Content-Type-Options with a value other than `nosniff`, which browsers ignore.',
      risk: SNIFF_RISK,
      remediation: 'Send exactly `X-Content-Type-Options: nosniff` on every response.',
    }),
  },
  {
    header: 'strict-transport-security',
    judge(page) {
      if (page.origin.scheme !== 'https') return undefined;
      const value = headerValue(page.exchange, 'strict-transport-security');
      if (value === undefined) return MISSING;
      const maxAge = hstsMaxAge(value);
      if (maxAge === undefined) return weakValue(value, 'it has no valid max-age', value);
      return maxAge < minimumHstsMaxAge
        ? weakValue(value, `max-age=${maxAge} is shorter than six months (${minimumHstsMaxAge} s)`, value)
        : undefined;
    },
    missing: missing('Strict-Transport-Security', 319, {
      description: 'This HTTPS origin sends no Strict-Transport-Security header.',
      risk: 'A network attacker can downgrade first visits to plain HTTP and read or change the traffic.',
      remediation: 'Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` on HTTPS responses.',
    }),
    weak: weak('Strict-Transport-Security', 319, {
      description:
        'This HTTPS origin sends Strict-Transport-Security with a max-age under six months (15768000 s), or without a valid max-age.',
      risk: 'Browsers forget the HTTPS-only rule soon after a visit, and a network attacker can downgrade the next visit to plain HTTP.',
      remediation:
        'Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` (at least six months) on HTTPS responses.',
    }),
  },
  {
    header: 'referrer-policy',
    judge(page) {
      const values = headerValues(page.exchange, 'referrer-policy');
      if (values.length === 0) return MISSING;
      const policy = effectiveReferrerPolicy(values);
      // An unknown value leaves the browser default (strict-origin-when-cross-origin): not weak.
      return policy === 'unsafe-url'
        ? weakValue(values.join(', '), 'unsafe-url sends the full URL to every site, over HTTP too', 'unsafe-url')
        : undefined;
    },
    missing: missing('Referrer-Policy', 200, {
      description: 'HTML responses of this origin carry no Referrer-Policy header.',
      risk: 'Browsers that do not default to a strict policy send the full URL of a page, with any tokens in its path or query, to the sites it links to or loads from.',
      remediation: 'Send `Referrer-Policy: strict-origin-when-cross-origin` (or `no-referrer`) on every response.',
    }),
    weak: weak('Referrer-Policy', 200, {
      description:
        'This origin sends `Referrer-Policy: unsafe-url`: the full URL goes in the Referer header to every site, even from HTTPS to HTTP.',
      risk: 'Tokens and personal data in paths and query strings leak to third parties and to network observers.',
      remediation:
        'Send `Referrer-Policy: strict-origin-when-cross-origin` (or `no-referrer`) instead of `unsafe-url`.',
    }),
  },
];

/**
 * Missing or weak security headers: judged once per origin on its first successful HTML
 * response; one finding per header per origin, located at `origin/?header=NAME` (a query rather
 * than a fragment, because the fingerprint normaliser drops fragments). A weak value (CSP with
 * 'unsafe-inline' or any-host script sources, HSTS under six months, X-Content-Type-Options
 * other than nosniff, Referrer-Policy unsafe-url) shares the location of the missing header and
 * differs in title: either way the header does not protect the origin, and fixing it patches it.
 */
export function createSecurityHeadersCheck(): PageCheck {
  const judged = new Set<string>();
  return {
    id: securityHeadersCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      if (!page.isHtml || page.exchange.status >= 400 || judged.has(page.originText)) return;
      judged.add(page.originText);
      for (const rule of RULES) {
        const verdict = rule.judge(page);
        if (verdict === undefined) continue;
        const location = `${page.originText}/?header=${rule.header}`;
        const facts = { location, host: page.origin.host, exchange: page.exchange };
        if (verdict.isMissing || rule.weak === undefined) {
          await context.report(
            buildFinding(rule.missing, {
              ...facts,
              observation: `The response to ${page.url.href} (status ${page.exchange.status}) has no valid ${rule.header} header.`,
            }),
          );
          continue;
        }
        const offset = Math.max(0, verdict.value.indexOf(verdict.evidence));
        await context.report(
          buildFinding(rule.weak, {
            ...facts,
            title: `${rule.weak.title} (${verdict.reason})`,
            observation: `The response to ${page.url.href} (status ${page.exchange.status}) sends a weak ${rule.header} header: ${verdict.reason}.`,
            extraHighlights: [
              {
                field: `response.headers.${rule.header}`,
                value: verdict.evidence,
                offset,
                length: verdict.evidence.length,
              },
            ],
          }),
        );
      }
    },
  };
}
