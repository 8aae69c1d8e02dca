import { randomBytes } from 'node:crypto';
import { classifyFailure } from '../guarded-http-client.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import { isHtmlResponse, type CheckContext, type CrawledPage, type PageCheck } from './page-check.ts';

/** Stable id of the reflected-XSS check. */
export const reflectedXssCheckId = 'reflected-xss-query';

const KIND: FindingKind = {
  checkId: reflectedXssCheckId,
  title: 'Reflected cross-site scripting (query parameter)',
  cwe: 79,
  cvssVector: 'AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
  severity: 'medium',
  owasp: 'A03:2021-Injection',
  description: 'A query parameter is written into the HTML response without encoding: a canary holding quotes and angle brackets came back verbatim.',
  risk: 'A link crafted by an attacker runs script in the victim\'s browser in the site\'s origin: session theft, actions on the user\'s behalf, page defacement.',
  remediation: 'Encode every parameter for the context it is written into (HTML body, attribute, script) with the template engine\'s auto-escaping, validate input, and add a Content-Security-Policy as a second line of defence.',
  references: [
    { link: 'https://owasp.org/www-community/attacks/xss/', name: 'OWASP: Cross Site Scripting' },
    { link: 'https://cheatsheetseries.owasp.org/cheatsheets/Cross_Site_Scripting_Prevention_Cheat_Sheet.html', name: 'OWASP XSS Prevention Cheat Sheet' },
  ],
};

/** A unique payload that breaks out of attributes and opens a tag; found unencoded means injectable. */
export function xssCanary(): string {
  return `"'><prmtr${randomBytes(5).toString('hex')}>`;
}

/**
 * Reflected XSS in a query parameter: for each crawled URL with parameters (GET forms included;
 * the crawler keeps one URL per path and parameter names), each parameter in turn carries a
 * fresh canary; reported when the HTML response holds it unencoded. Location: origin, path and
 * `?NAME=` (the parameter name, no value), one finding per parameter.
 */
export function createReflectedXssCheck(): PageCheck {
  const tested = new Set<string>();
  return {
    id: reflectedXssCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      const names = [...new Set(page.url.searchParams.keys())];
      for (const name of names) {
        const location = `${page.originText}${page.url.pathname}?${encodeURIComponent(name)}=`;
        if (tested.has(location)) continue;
        tested.add(location);
        const canary = xssCanary();
        const url = new URL(page.url.href);
        url.searchParams.set(name, canary);
        try {
          const exchange = await context.session.send('GET', url, context.signal);
          if (!isHtmlResponse(exchange)) continue;
          const offset = exchange.body.indexOf(canary);
          if (offset < 0) continue;
          await context.report(
            buildFinding(KIND, {
              location,
              host: page.origin.host,
              exchange,
              evidence: { value: canary, offset },
              title: `${KIND.title}: ${name}`,
              observation: `Parameter ${name} of ${page.url.pathname} is reflected unencoded: the canary ${canary} appears verbatim in the HTML response.`,
            }),
          );
        } catch (err) {
          if (classifyFailure(err, 0, context.signal.aborted).kind === 'aborted') throw err;
        }
      }
    },
  };
}
