import { buildFinding, type FindingKind } from './finding-builder.ts';
import { bodyEvidence, markupOf, passwordInputs, type Subresource } from './page-markup.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the mixed-content check. */
export const mixedContentCheckId = 'mixed-content';

/** Pages reported per origin at most: a template's insecure script is one root cause, not one per page. */
export const maxMixedContentPagesPerOrigin = 25;

const KIND: FindingKind = {
  checkId: mixedContentCheckId,
  title: 'Mixed content: HTTPS page loads active content or submits over HTTP',
  cwe: 319,
  cvssVector: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:N',
  severity: 'medium',
  owasp: 'A02:2021-Cryptographic Failures',
  description:
    'An HTTPS page loads scripts, stylesheets, frames or plug-in content from `http://` URLs, or has a form that submits to an `http://` action.',
  risk: 'A network attacker can replace the plain-HTTP script or frame and take over the HTTPS page, or read what the form sends. Current browsers block active mixed content, so the page may also simply break.',
  remediation:
    'Load every resource and submit every form over `https://` (or protocol-relative to the page); send `Content-Security-Policy: upgrade-insecure-requests` as a safety net.',
  references: [
    { link: 'https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content', name: 'MDN: Mixed content' },
    { link: 'https://www.w3.org/TR/mixed-content/', name: 'W3C Mixed Content' },
  ],
};

/** The active subresources and form actions of a page that resolve to plain http:// URLs. */
export function insecureSubresources(subresources: Subresource[], page: URL): Subresource[] {
  return subresources.filter((resource) => {
    try {
      return new URL(resource.url, page).protocol === 'http:';
    } catch {
      return false;
    }
  });
}

/**
 * Mixed content: an HTTPS HTML page whose scripts, stylesheets, frames, objects or form actions
 * use http:// (the crawler's parse tells first whether any reference is http:// at all). A form
 * with a password input is left to the login-over-http check (one root cause, one finding).
 * One finding per origin and page path, listing what is insecure; a resource already reported
 * on an earlier page of the origin does not make another finding.
 */
export function createMixedContentCheck(): PageCheck {
  const reportedResources = new Set<string>();
  const pagesPerOrigin = new Map<string, number>();
  const judged = new Set<string>();
  return {
    id: mixedContentCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      if (page.origin.scheme !== 'https' || page.links === undefined || page.exchange.status >= 400) return;
      const references = [...page.links.links, ...page.links.forms.map((f) => f.action)];
      if (!references.some((ref) => /^\s*http:/i.test(ref))) return;
      const key = `${page.originText}${page.url.pathname}`;
      if (judged.has(key) || (pagesPerOrigin.get(page.originText) ?? 0) >= maxMixedContentPagesPerOrigin) return;
      judged.add(key);
      const markup = markupOf(page);
      const loginActions = new Set(markup.forms.filter((f) => passwordInputs(f).length > 0).map((f) => f.action));
      const insecure = insecureSubresources(markup.subresources, page.url).filter(
        (r) => !(r.tag === 'form' && loginActions.has(r.url)),
      );
      const fresh = insecure.filter((r) => !reportedResources.has(`${page.originText} ${r.url}`));
      const first = fresh[0];
      if (first === undefined) return;
      for (const r of insecure) reportedResources.add(`${page.originText} ${r.url}`);
      pagesPerOrigin.set(page.originText, (pagesPerOrigin.get(page.originText) ?? 0) + 1);
      const evidence = bodyEvidence(page.exchange.body, first.url);
      const list = insecure.map((r) => `<${r.tag} ${r.attribute}="${r.url}">`).join(', ');
      await context.report(
        buildFinding(KIND, {
          location: key,
          host: page.origin.host,
          exchange: page.exchange,
          ...(evidence === undefined ? {} : { evidence }),
          observation: `The HTTPS page ${page.url.href} uses plain HTTP for ${insecure.length === 1 ? 'one reference' : `${insecure.length} references`}: ${list}.`,
        }),
      );
    },
  };
}
