import { sendCheckRequest } from './check-request.ts';
import { randomBytes } from 'node:crypto';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';

import { buildFinding, type BodyEvidence, type FindingKind } from './finding-builder.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';
import { withoutEchoes } from './response-compare.ts';

/** Stable id of the backup-files check. */
export const backupFilesCheckId = 'backup-files';

/** Crawled files per origin whose backup names are tried (5 names each, plus lazy baselines). */
export const maxBackupPathsPerOrigin = 30;

const KIND: FindingKind = {
  checkId: backupFilesCheckId,
  title: 'Backup or editor swap file of a page exposed',
  cwe: 530,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
  severity: 'medium',
  owasp: 'A05:2021-Security Misconfiguration',
  description:
    'A backup copy of a crawled page (`page.php.bak`, `page.php~`, `.page.php.swp`, `page.php.old`, `page.php.orig`) is served as a plain file.',
  risk: "The web server hands out the copy instead of running it: the page's source code, with database credentials, internal paths and logic an attacker can study for further flaws.",
  remediation:
    'Remove backup, swap and merge files from the web root (deploy from a build, not by editing on the server), and deny such names in the web server (e.g. `~$`, `\\.(bak|old|orig|swp)$`).',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information',
      name: 'OWASP WSTG: Review old backup and unreferenced files',
    },
  ],
};

/** The backup names tried for a file name: editor backups, vim swap files, manual and merge copies. */
export const backupNames: ReadonlyArray<{ id: string; of(fileName: string): string }> = [
  { id: 'bak', of: (f) => `${f}.bak` },
  { id: 'tilde', of: (f) => `${f}~` },
  { id: 'swp', of: (f) => `.${f}.swp` },
  { id: 'old', of: (f) => `${f}.old` },
  { id: 'orig', of: (f) => `${f}.orig` },
];

// Pages whose source is worth a backup probe: server-side scripts, static pages and config files.
// Images, scripts, styles and robots/sitemap files reveal nothing new in a copy.
const FILE_EXTENSIONS =
  /\.(?:php\d?|phtml|inc|asp|aspx|ashx|asmx|jsp|jspx|cfm|cgi|pl|py|rb|html?|shtml|xhtml|config|conf|cfg|ini|ya?ml)$/i;

const TOKEN_LIMIT = 64 * 1024;

/** Words of a body (letters and digits), the first 64 KB: what two answers are compared on. */
function words(body: string): string[] {
  return body
    .slice(0, TOKEN_LIMIT)
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * True when two bodies are the same page up to small changes (a request id, a timestamp, a CSRF
 * token): their words overlap by 90 % or more (Dice coefficient of the word multisets).
 */
export function isSimilarBody(a: string, b: string): boolean {
  if (a === b) return true;
  const left = words(a);
  const right = words(b);
  if (left.length === 0 || right.length === 0) return left.length === right.length;
  const counts = new Map<string, number>();
  for (const w of left) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of right) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      common += 1;
      counts.set(w, n - 1);
    }
  }
  return (2 * common) / (left.length + right.length) >= 0.9;
}

/** What to highlight in a backup's body: PHP or ASP code, a vim swap header, else its first line. */
export function backupEvidence(body: string): BodyEvidence {
  const marker = /<\?php|<%@?|b0VIM \d[\d.]*/.exec(body);
  if (marker !== null) return { value: marker[0], offset: marker.index };
  const first = /\S[^\r\n]{0,79}/.exec(body);
  return first === null ? { value: '', offset: 0 } : { value: first[0], offset: first.index };
}

/**
 * Backup and swap files of crawled pages: for the first 30 crawled files per origin (200
 * answers with a page or config extension), each of 5 backup names is requested once. A 200
 * answer counts only when it differs from the page itself and from a random sibling name of the
 * same shape (requested lazily, once per directory and name shape), so a site that answers 200
 * for everything reports nothing. At most 30 × 5 probes and as many baselines per origin; on a
 * site that answers 404, no baseline at all. One finding per backup file.
 */
export function createBackupFilesCheck(): PageCheck {
  const examined = new Set<string>();
  const pathsPerOrigin = new Map<string, number>();
  const baselines = new Map<string, Promise<{ exchange: HttpExchange; name: string } | undefined>>();

  /** The answer to a random name shaped like `backupName` in `directory` (cached per shape). */
  const baselineOf = (
    directory: URL,
    shape: { id: string; of(fileName: string): string },
    extension: string,
    context: CheckContext,
  ) => {
    const key = `${directory.href} ${shape.id} ${extension}`;
    let baseline = baselines.get(key);
    if (baseline === undefined) {
      const name = shape.of(`prmtr${randomBytes(6).toString('hex')}${extension}`);
      baseline = sendCheckRequest(new URL(`${directory.pathname}${name}`, directory), context).then((exchange) =>
        exchange === undefined ? undefined : { exchange, name },
      );
      baselines.set(key, baseline);
    }
    return baseline;
  };

  return {
    id: backupFilesCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      const pathname = page.url.pathname;
      const fileName = pathname.slice(pathname.lastIndexOf('/') + 1);
      if (page.exchange.status !== 200 || !FILE_EXTENSIONS.test(fileName)) return;
      const pageKey = `${page.originText}${pathname}`;
      const count = pathsPerOrigin.get(page.originText) ?? 0;
      if (examined.has(pageKey) || count >= maxBackupPathsPerOrigin) return;
      examined.add(pageKey);
      pathsPerOrigin.set(page.originText, count + 1);
      const directory = new URL(pathname.slice(0, pathname.length - fileName.length), page.url);
      const extension = fileName.slice(fileName.lastIndexOf('.'));
      for (const shape of backupNames) {
        const name = shape.of(fileName);
        // A path, never a relative reference: a file name with a colon must not read as a scheme.
        const url = new URL(`${directory.pathname}${name}`, directory);
        const exchange = await sendCheckRequest(url, context);
        if (exchange === undefined || exchange.status !== 200 || exchange.body.trim() === '') continue;
        // A router that ignores the suffix answers the page itself: no copy of the source.
        if (
          isSimilarBody(
            withoutEchoes(exchange.body, [name, url.pathname]),
            withoutEchoes(page.exchange.body, [fileName, pathname]),
          )
        )
          continue;
        const baseline = await baselineOf(directory, shape, extension, context);
        if (baseline === undefined) continue; // no comparison, no claim
        const isSoft404 =
          baseline.exchange.status === 200 &&
          isSimilarBody(withoutEchoes(exchange.body, [name]), withoutEchoes(baseline.exchange.body, [baseline.name]));
        if (isSoft404) continue;
        const evidence = backupEvidence(exchange.body);
        await context.report(
          buildFinding(KIND, {
            location: `${page.originText}${url.pathname}`,
            host: page.origin.host,
            exchange,
            evidence,
            title: `${KIND.title}: ${name}`,
            observation: `${url.href} answers 200 with ${exchange.body.length} characters unlike ${pathname} itself, while a random name of the same shape (${baseline.name}) answers ${baseline.exchange.status}${baseline.exchange.status === 200 ? ' with a different page' : ''}: a copy of ${pathname} is served as a file.`,
          }),
        );
      }
    },
  };
}
