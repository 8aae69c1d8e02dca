import { injectPayload, type InjectionPoint } from '../check-kit/injection.ts';
import { createActiveCheck, reportAtPoint } from './active-check.ts';
import type { FindingKind } from './finding-builder.ts';
import { headerValue, type PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the open redirect check. */
export const openRedirectCheckId = 'open-redirect';

/** The host the payloads redirect to: reserved (.invalid), so nothing is ever contacted there. */
export const redirectCanaryHost = 'perimeter-redirect.invalid';

const KIND: FindingKind = {
  checkId: openRedirectCheckId,
  title: 'Open redirect',
  cwe: 601,
  cvssVector: 'AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
  severity: 'medium',
  owasp: 'A01:2021-Broken Access Control',
  description: 'A request parameter sets where the application redirects to, and any external site is accepted.',
  risk: "Phishing links can start on the trusted domain and land on an attacker's site; OAuth and SSO flows that trust the redirect may leak tokens.",
  remediation:
    'Redirect only to relative paths of the site (a single leading `/`, no `//` or `\\`), or to an allow-list of destinations; map destinations to identifiers rather than taking URLs.',
  references: [
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Unvalidated_Redirects_and_Forwards_Cheat_Sheet.html',
      name: 'OWASP Unvalidated Redirects and Forwards Cheat Sheet',
    },
  ],
};

const REDIRECT_NAME =
  /url|uri|redirect|redir|next|return|goto|dest|destination|continue|target|forward|callback|location|back/i;

/** True for a point that may carry a destination: a redirect-ish name, or a URL or path as its value. */
export function looksLikeRedirectParameter(point: InjectionPoint): boolean {
  return (
    point.location !== 'path' &&
    (REDIRECT_NAME.test(point.name) || /^(?:https?:)?\/\//i.test(point.value) || point.value.startsWith('/'))
  );
}

/** The redirect target of an answer when it points at the canary host. */
function canaryLocation(status: number, location: string | undefined): string | undefined {
  if (status < 300 || status > 399 || location === undefined) return undefined;
  try {
    return new URL(location, 'http://origin.invalid/').hostname === redirectCanaryHost ? location : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Open redirect: parameters that look like destinations get an absolute and a scheme-relative
 * URL of a reserved host; reported when the answer is a 3xx whose Location leads there (the
 * redirect is never followed). One finding per point.
 */
export function createOpenRedirectCheck(): PageCheck {
  return createActiveCheck({
    id: openRedirectCheckId,
    applies: looksLikeRedirectParameter,
    async test(point, page, context, send) {
      for (const payload of [`https://${redirectCanaryHost}/`, `//${redirectCanaryHost}/`]) {
        const exchange = await send(injectPayload(point, payload));
        const location = canaryLocation(exchange.status, headerValue(exchange, 'location'));
        if (location === undefined) continue;
        await reportAtPoint(KIND, point, page, context, {
          exchange,
          extraHighlights: [
            { field: 'response.headers.location', value: location, offset: 0, length: location.length },
          ],
          confirmation: `by the answer: ${JSON.stringify(payload)} gives ${exchange.status} with Location: ${location} (not followed)`,
        });
        return;
      }
    },
  });
}
