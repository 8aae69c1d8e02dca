import { buildFinding, type BodyEvidence, type FindingKind } from './finding-builder.ts';
import { passwordForms, type PasswordForm } from './page-markup.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

/** What a password-form check saw in one form: the sentence of the finding and the evidence in the page. */
export interface PasswordFormIssue {
  observation: string;
  evidence: BodyEvidence | undefined;
}

/**
 * A passive check of the forms with a password input: `judge` names the issue of a form (or
 * undefined); one finding per origin and form location (the action path on the page's host), so
 * a login box on every page is one finding.
 */
export function createPasswordFormCheck(
  kind: FindingKind,
  judge: (found: PasswordForm, page: CrawledPage) => PasswordFormIssue | undefined,
): PageCheck {
  const reported = new Set<string>();
  return {
    id: kind.checkId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      for (const found of passwordForms(page)) {
        if (reported.has(found.location)) continue;
        const issue = judge(found, page);
        if (issue === undefined) continue;
        reported.add(found.location);
        await context.report(
          buildFinding(kind, {
            location: found.location,
            host: page.origin.host,
            exchange: page.exchange,
            ...(issue.evidence === undefined ? {} : { evidence: issue.evidence }),
            observation: issue.observation,
          }),
        );
      }
    },
  };
}
