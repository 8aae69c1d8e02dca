import { buildFinding, type FindingKind } from './finding-builder.ts';
import { isFrameable } from './header-policies.ts';
import { markupOf, mayHavePasswordInput } from './page-markup.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the clickjacking check. */
export const clickjackingCheckId = 'clickjacking';

const KIND: FindingKind = {
  checkId: clickjackingCheckId,
  title: 'Clickjacking: a page with a sensitive form can be framed',
  cwe: 1021,
  cvssVector: 'AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N',
  severity: 'medium',
  owasp: 'A04:2021-Insecure Design',
  description:
    'A page with a password input or a form that changes state (POST) can be framed by any site: it sends neither a restrictive CSP frame-ancestors directive nor X-Frame-Options DENY or SAMEORIGIN.',
  risk: 'A malicious site can load the page in an invisible frame and trick a logged-in user into submitting the form (changing an email address, confirming a payment) or typing a password into it.',
  remediation:
    "Send `Content-Security-Policy: frame-ancestors 'self'` (or `'none'`) and `X-Frame-Options: DENY` (or `SAMEORIGIN`) on every page, at least on those with forms.",
  references: [
    { link: 'https://owasp.org/www-community/attacks/Clickjacking', name: 'OWASP: Clickjacking' },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/Clickjacking_Defense_Cheat_Sheet.html',
      name: 'OWASP Clickjacking Defense Cheat Sheet',
    },
  ],
};

/** What makes a page worth framing: a password input or a POST form; undefined for neither. */
function sensitiveElement(page: CrawledPage): string | undefined {
  if (mayHavePasswordInput(page) && markupOf(page).hasPasswordInput) return 'a password input';
  const post = page.links?.forms.find((f) => f.method === 'post');
  return post === undefined
    ? undefined
    : `a POST form (action "${post.action === '' ? page.url.pathname : post.action}")`;
}

/**
 * Clickjacking: the first HTML page of an origin that holds a password input or a POST form and
 * may be framed (judged on that page's own headers, which can differ from the home page's the
 * security-headers check judges). Distinct from the missing X-Frame-Options finding, which is
 * header hygiene of the origin: this one names a page where framing is exploitable. One finding
 * per origin, at `origin/`.
 */
export function createClickjackingCheck(): PageCheck {
  const reported = new Set<string>();
  return {
    id: clickjackingCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      if (!page.isHtml || page.exchange.status >= 400 || reported.has(page.originText) || !isFrameable(page.exchange))
        return;
      const element = sensitiveElement(page);
      if (element === undefined) return;
      reported.add(page.originText);
      await context.report(
        buildFinding(KIND, {
          location: `${page.originText}/`,
          host: page.origin.host,
          exchange: page.exchange,
          observation: `${page.url.href} holds ${element} and may be framed by any site: no CSP frame-ancestors restriction and no X-Frame-Options DENY or SAMEORIGIN in its response.`,
        }),
      );
    },
  };
}
