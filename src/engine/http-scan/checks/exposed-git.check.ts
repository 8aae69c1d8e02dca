import { classifyFailure } from '../check-kit/guarded-http-client.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the exposed-git check. */
export const exposedGitCheckId = 'exposed-git';

const KIND: FindingKind = {
  checkId: exposedGitCheckId,
  title: 'Git repository exposed (/.git/HEAD readable)',
  cwe: 527,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
  severity: 'high',
  owasp: 'A05:2021-Security Misconfiguration',
  description: 'The web server serves the `.git` directory of the application: `/.git/HEAD` answers a real git HEAD.',
  risk: 'An attacker can download the repository, with the full source code, its history and any secrets ever committed.',
  remediation:
    'Remove the `.git` directory from the web root (deploy build artefacts, not checkouts) or deny every path under `/.git/` in the web server, then rotate secrets that were committed.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information',
      name: 'OWASP WSTG: Review old backup and unreferenced files',
    },
  ],
};

/** The git HEAD a body holds (`ref: refs/...` or a bare commit id), or undefined. */
export function findGitHead(body: string): { value: string; offset: number } | undefined {
  const match = /^\s*(ref: refs\/[\w./-]+|[0-9a-f]{40}|[0-9a-f]{64})\s*$/.exec(body);
  if (match === null || match[1] === undefined) return undefined;
  return { value: match[1], offset: body.indexOf(match[1]) };
}

/**
 * Exposed git repository: GET /.git/HEAD once per origin (when the scope admits the path);
 * reported only when the body really is a git HEAD, so a 200 soft-404 page is not. One finding
 * per origin at `origin/.git/HEAD`.
 */
export function createExposedGitCheck(): PageCheck {
  const probed = new Set<string>();
  return {
    id: exposedGitCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      if (probed.has(page.originText)) return;
      probed.add(page.originText);
      const url = new URL('/.git/HEAD', page.url);
      if (!context.session.scope.isUrlAllowed(url)) return;
      try {
        const exchange = await context.session.send('GET', url, context.signal);
        const head = exchange.status === 200 ? findGitHead(exchange.body) : undefined;
        if (head === undefined) return;
        await context.report(
          buildFinding(KIND, {
            location: `${page.originText}/.git/HEAD`,
            host: page.origin.host,
            exchange,
            evidence: head,
            observation: `${url.href} answers a git HEAD: "${head.value}".`,
          }),
        );
      } catch (err) {
        if (classifyFailure(err, 0, context.signal.aborted).kind === 'aborted') throw err;
      }
    },
  };
}
