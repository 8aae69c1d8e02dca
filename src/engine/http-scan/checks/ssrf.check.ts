import type { CanaryHit, CanaryProbe, ScanCanary } from '../check-kit/canary-listener.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { describePoint, injectPayload, type InjectionPoint } from '../check-kit/injection.ts';
import { createActiveCheck, reportAtPoint } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import { canaryAnswerEvidence, describeHit, LateProbes, probeHighlight } from './out-of-band.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the server-side request forgery check. */
export const ssrfCheckId = 'server-side-request-forgery';

const KIND: FindingKind = {
  checkId: ssrfCheckId,
  title: 'Server-side request forgery',
  cwe: 918,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:N/A:N',
  severity: 'high',
  owasp: 'A10:2021-Server-Side Request Forgery (SSRF)',
  description:
    "A request parameter carries a URL that the server fetches itself: it requested a URL of the scanner's canary that was given to it.",
  risk: "An attacker makes the server request internal addresses it can reach and the attacker cannot: cloud metadata services (credentials), admin interfaces, databases speaking HTTP, other hosts of the private network; the server's own identity and address are used.",
  remediation:
    'Do not fetch URLs taken from requests. When the feature needs it, allow only a fixed list of hosts (compare the parsed host, not a prefix of the text), resolve the name and refuse private, loopback, link-local and metadata addresses at connection time (after every redirect), allow only http(s), and send the fetch through an egress proxy that enforces the same rules.',
  references: [
    {
      link: 'https://owasp.org/Top10/A10_2021-Server-Side_Request_Forgery_%28SSRF%29/',
      name: 'OWASP Top 10 2021 A10: Server-Side Request Forgery',
    },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Server_Side_Request_Forgery_Prevention_Cheat_Sheet.html',
      name: 'OWASP Server-Side Request Forgery Prevention Cheat Sheet',
    },
  ],
};

/** Parameter names that usually carry a URL the server may fetch. */
const URL_NAME = /url|uri|link|src|image|img|avatar|callback|webhook|hook|feed|next|dest|target|fetch|proxy/i;

/** True for a point that may carry a URL: a URL-ish name, or an absolute http(s) URL as its crawled value. */
export function looksLikeUrlParameter(point: InjectionPoint): boolean {
  return point.location !== 'path' && (URL_NAME.test(point.name) || /^https?:\/\//i.test(point.value.trim()));
}

async function report(
  point: InjectionPoint,
  page: CrawledPage,
  context: CheckContext,
  probe: CanaryProbe,
  hit: CanaryHit,
  exchange: HttpExchange,
  sentAt: number,
): Promise<void> {
  const evidence = canaryAnswerEvidence(exchange, probe);
  await reportAtPoint(KIND, point, page, context, {
    exchange,
    ...(evidence === undefined ? {} : { evidence }),
    extraHighlights: probeHighlight(exchange, probe),
    confirmation: `out of band: with ${describePoint(point)} set to ${probe.url}, ${describeHit(hit, sentAt)}${evidence === undefined ? '' : ', and the answer shows what the canary answered'}`,
  });
}

/**
 * Server-side request forgery: each URL-like parameter (by name, or an absolute URL as its
 * value) is given a unique URL of the scan's canary; reported when the canary receives a request
 * with that URL's token, during the request or within the grace period after it (settled at the
 * end of the crawl). No canary (disabled, or it could not bind): the check does nothing, and
 * the engine says so in a scan warning. One finding per point.
 */
export function createSsrfCheck(canary: ScanCanary | undefined): PageCheck {
  if (canary === undefined) return { id: ssrfCheckId, inspect: async () => undefined };
  const late = new LateProbes();
  const active = createActiveCheck({
    id: ssrfCheckId,
    applies: looksLikeUrlParameter,
    async test(point, page, context, send) {
      const probe = canary.newProbe();
      const sentAt = Date.now();
      const exchange = await send(injectPayload(point, probe.url));
      const hit = probe.hit();
      if (hit !== undefined) await report(point, page, context, probe, hit, exchange, sentAt);
      else late.add(probe, (later) => report(point, page, context, probe, later, exchange, sentAt));
    },
  });
  return {
    id: ssrfCheckId,
    inspect: (page, context) => active.inspect(page, context),
    finish: (context) => late.settle(context.signal),
  };
}
