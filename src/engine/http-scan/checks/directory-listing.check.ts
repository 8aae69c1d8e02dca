import { classifyFailure } from '../check-kit/guarded-http-client.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { extractPageLinks, type PageLinks } from '../check-kit/html-links.ts';
import { buildFinding, type FindingKind } from './finding-builder.ts';
import { isHtmlResponse, type CheckContext, type CrawledPage, type PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the directory-listing check. */
export const directoryListingCheckId = 'directory-listing';

const KIND: FindingKind = {
  checkId: directoryListingCheckId,
  title: 'Directory listing enabled',
  cwe: 548,
  cvssVector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
  severity: 'medium',
  owasp: 'A05:2021-Security Misconfiguration',
  description: 'The web server answers a directory URL with an automatically generated index of the files in it.',
  risk: 'Anyone can enumerate the files of the directory, including backups, configuration and files never meant to be linked.',
  remediation:
    'Turn off automatic indexes (`Options -Indexes` in Apache, `autoindex off;` in nginx, directory browsing in IIS) or place an index page in the directory.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information',
      name: 'OWASP WSTG: Review unreferenced files',
    },
  ],
};

// Title shapes of Apache/nginx ("Index of /dir"), python http.server ("Directory listing for /dir")
// and IIS ("host - /dir/" with a "[To Parent Directory]" link).
const TITLE_PATTERNS = [/^index of \//i, /^directory listing for \//i];

/** Where the listing marker sits in the body, or undefined when the body is not an auto-index; `parsed` saves a second parse of a crawled page. */
export function findDirectoryListing(
  body: string,
  parsed: PageLinks = extractPageLinks(body),
): { value: string; offset: number } | undefined {
  const { title, links } = parsed;
  if (links.length === 0) return undefined;
  if (TITLE_PATTERNS.some((pattern) => pattern.test(title))) {
    const offset = body.indexOf(title);
    return { value: title, offset: offset >= 0 ? offset : body.toLowerCase().indexOf(title.toLowerCase()) };
  }
  const iis = body.indexOf('[To Parent Directory]');
  if (iis >= 0 && /^[^<>]* - \/.*\/$/.test(title)) return { value: '[To Parent Directory]', offset: iis };
  return undefined;
}

/** The parent directory path of a file path (`/a/b.txt` → `/a/`); undefined for a directory path. */
function parentDirectoryPath(pathname: string): string | undefined {
  if (pathname.endsWith('/')) return undefined;
  return pathname.slice(0, pathname.lastIndexOf('/') + 1);
}

/**
 * Directory listing: a crawled page whose body is an auto-generated index, or the parent
 * directory of a crawled file (requested once per directory, unless the crawl fetches it
 * itself) answering one. One finding per directory URL (the location).
 */
export function createDirectoryListingCheck(): PageCheck {
  const examined = new Set<string>();
  const judge = async (
    url: URL,
    exchange: HttpExchange,
    page: CrawledPage,
    context: CheckContext,
    parsed?: PageLinks,
  ): Promise<void> => {
    if (exchange.status !== 200 || !isHtmlResponse(exchange)) return;
    const evidence = findDirectoryListing(exchange.body, parsed);
    if (evidence === undefined) return;
    const location = `${page.originText}${url.pathname}`;
    await context.report(
      buildFinding(KIND, {
        location,
        host: page.origin.host,
        exchange,
        evidence,
        observation: `${url.href} answers an automatically generated directory index ("${evidence.value}").`,
      }),
    );
  };

  return {
    id: directoryListingCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      const own = `${page.originText}${page.url.pathname}`;
      if (page.url.search === '' && !examined.has(own)) {
        examined.add(own);
        await judge(page.url, page.exchange, page, context, page.links);
      }
      const parentPath = parentDirectoryPath(page.url.pathname);
      if (parentPath === undefined) return;
      const key = `${page.originText}${parentPath}`;
      if (examined.has(key)) return;
      const parent = new URL(parentPath, page.url);
      // The crawl fetches it itself (a page inspected before its parent's answer came): judged above when it arrives.
      if (context.willCrawl?.(parent) === true) return;
      examined.add(key);
      if (!context.session.scope.isUrlAllowed(parent)) return;
      try {
        const exchange = await context.session.send('GET', parent, context.signal);
        await judge(parent, exchange, page, context);
      } catch (err) {
        if (classifyFailure(err, 0, context.signal.aborted).kind === 'aborted') throw err;
      }
    },
  };
}
