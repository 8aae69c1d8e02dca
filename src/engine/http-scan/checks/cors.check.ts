import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { sendCheckRequest } from './check-request.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import { headerValues } from './header-policies.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the CORS misconfiguration check. */
export const corsCheckId = 'cors-misconfiguration';

/** The arbitrary origin the check claims to come from (`.invalid` can never be registered). */
export const corsProbeOrigin = 'https://perimeter-cors-check.invalid';

/** Path patterns probed per origin at most (two requests each). */
export const maxCorsPatternsPerOrigin = 100;

// Static assets are public by nature: a CORS header on them exposes nothing.
const STATIC_TYPE = /^\s*(?:image\/|font\/|audio\/|video\/|text\/css|(?:text|application)\/(?:x-)?javascript)/i;

const REFERENCES = [
  { link: 'https://portswigger.net/web-security/cors', name: 'PortSwigger: Cross-origin resource sharing (CORS)' },
  {
    link: 'https://cheatsheetseries.owasp.org/cheatsheets/HTML5_Security_Cheat_Sheet.html#cross-origin-resource-sharing',
    name: 'OWASP HTML5 Security Cheat Sheet: CORS',
  },
];

const BASE = { checkId: corsCheckId, cwe: 942, owasp: 'A05:2021-Security Misconfiguration', references: REFERENCES };

const WITH_CREDENTIALS: FindingKind = {
  ...BASE,
  title: 'CORS: any origin may read authenticated responses',
  cvssVector: 'AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:L/A:N',
  severity: 'high',
  description:
    'The response allows the requesting origin whatever it is (it echoes the Origin header, or allows `null`) and also sends `Access-Control-Allow-Credentials: true`.',
  risk: "Any web site a logged-in user visits can read this endpoint's responses with the user's cookies: personal data, CSRF tokens, API keys.",
  remediation:
    'Compare the Origin header with a fixed allow-list of trusted origins before echoing it; never allow `null`; send `Access-Control-Allow-Credentials: true` only for trusted origins, and add `Vary: Origin`.',
};

const WITHOUT_CREDENTIALS: FindingKind = {
  ...BASE,
  title: 'CORS: any origin allowed (without credentials)',
  cvssVector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
  severity: 'low',
  description:
    'The response echoes whatever Origin the request names (or allows `null`) in Access-Control-Allow-Origin, without allowing credentials.',
  risk: "Any site can read the response through a visitor's browser; that matters when the endpoint answers differently by network position (intranet, IP allow-lists) or the echo is later combined with credentials.",
  remediation:
    'Echo only origins of a fixed allow-list, or send `Access-Control-Allow-Origin: *` deliberately for truly public data; never allow `null`.',
};

/** How a response treated one probe origin. */
export interface CorsVerdict {
  isAllowed: boolean;
  hasCredentials: boolean;
  /** The Access-Control-Allow-Origin value as sent. */
  allowOrigin: string | undefined;
}

/** Whether a response allows `origin` explicitly (not `*`, which browsers never combine with credentials). */
export function corsVerdict(exchange: HttpExchange, origin: string): CorsVerdict {
  const allowOrigin = headerValues(exchange, 'access-control-allow-origin')[0]?.trim();
  const isAllowed =
    allowOrigin !== undefined &&
    (origin === 'null' ? allowOrigin === 'null' : allowOrigin.toLowerCase() === origin.toLowerCase());
  const hasCredentials =
    (headerValues(exchange, 'access-control-allow-credentials')[0] ?? '').trim().toLowerCase() === 'true';
  return { isAllowed, hasCredentials, allowOrigin };
}

/** A path with its id-like segments (numbers, UUIDs, long hex) replaced by `{id}`: one probe per route. */
export function corsPathPattern(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) =>
      /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,})$/i.test(segment)
        ? '{id}'
        : segment,
    )
    .join('/');
}

/**
 * CORS misconfiguration: each GET page or API response of the crawl (not static assets; once per
 * origin and path pattern, at most maxCorsPatternsPerOrigin per origin) is requested again with
 * `Origin: https://perimeter-cors-check.invalid`, then with `Origin: null`; reported when the
 * answer allows that origin explicitly, high with `Access-Control-Allow-Credentials: true`, low
 * without. One finding per origin and path pattern (the location), the worse of the two.
 */
export function createCorsCheck(): PageCheck {
  const probed = new Set<string>();
  const perOrigin = new Map<string, number>();
  return {
    id: corsCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      if (
        page.exchange.request.method !== 'GET' ||
        page.exchange.status >= 400 ||
        STATIC_TYPE.test(headerValues(page.exchange, 'content-type')[0] ?? '')
      )
        return;
      const pattern = corsPathPattern(page.url.pathname);
      const key = `${page.originText}${pattern}`;
      const count = perOrigin.get(page.originText) ?? 0;
      if (probed.has(key) || count >= maxCorsPatternsPerOrigin) return;
      probed.add(key);
      perOrigin.set(page.originText, count + 1);
      let worst: { exchange: HttpExchange; origin: string; verdict: CorsVerdict } | undefined;
      for (const origin of [corsProbeOrigin, 'null']) {
        const exchange = await sendCheckRequest(page.url, context, { headers: [{ name: 'origin', value: origin }] });
        if (exchange === undefined) continue;
        const verdict = corsVerdict(exchange, origin);
        if (!verdict.isAllowed || (worst !== undefined && (worst.verdict.hasCredentials || !verdict.hasCredentials)))
          continue;
        worst = { exchange, origin, verdict };
        if (verdict.hasCredentials) break;
      }
      if (worst === undefined) return;
      const { exchange, origin, verdict } = worst;
      const kind = verdict.hasCredentials ? WITH_CREDENTIALS : WITHOUT_CREDENTIALS;
      const allowed = verdict.allowOrigin ?? '';
      await context.report(
        buildFinding(kind, {
          location: `${page.originText}${pattern}`,
          host: page.origin.host,
          exchange,
          title: `${kind.title}: ${origin === 'null' ? 'the null origin' : 'the Origin header is reflected'}`,
          observation: `Confirmed by request: with \`Origin: ${origin}\`, ${page.url.href} answered \`Access-Control-Allow-Origin: ${allowed}\`${verdict.hasCredentials ? ' and `Access-Control-Allow-Credentials: true`' : ' without allowing credentials'}.`,
          extraHighlights: [
            {
              field: 'response.headers.access-control-allow-origin',
              value: allowed,
              offset: 0,
              length: allowed.length,
            },
          ],
        }),
      );
    },
  };
}
