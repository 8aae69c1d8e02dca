import { buildFinding, type FindingKind } from './finding-builder.ts';
import type { CheckContext, CrawledPage, PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the version-disclosure check. */
export const versionDisclosureCheckId = 'version-disclosure';

/** Response headers that name server software. */
export const bannerHeaders = [
  'server',
  'x-powered-by',
  'x-aspnet-version',
  'x-aspnetmvc-version',
  'x-generator',
] as const;

const KIND: FindingKind = {
  checkId: versionDisclosureCheckId,
  title: 'Software version disclosed in a response header',
  cwe: 497,
  cvssVector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N',
  severity: 'low',
  owasp: 'A05:2021-Security Misconfiguration',
  description:
    'A response header (Server, X-Powered-By, X-AspNet-Version, X-AspNetMvc-Version or X-Generator) names the server software together with its version number.',
  risk: 'An attacker learns the exact version without probing and can pick known exploits for it; automated attacks search for vulnerable versions by banner.',
  remediation:
    'Remove the version from banners: `server_tokens off;` (nginx), `ServerTokens Prod` and `ServerSignature Off` (Apache), `expose_php = Off` (PHP), `<httpRuntime enableVersionHeader="false">` and removing X-Powered-By (ASP.NET). Keep the software patched either way.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/01-Information_Gathering/02-Fingerprint_Web_Server',
      name: 'OWASP WSTG: Fingerprint web server',
    },
    {
      link: 'https://cheatsheetseries.owasp.org/cheatsheets/HTTP_Headers_Cheat_Sheet.html',
      name: 'OWASP HTTP Headers Cheat Sheet',
    },
  ],
};

/** A product and version found in a banner, with where the token sits in the header value. */
export interface VersionBanner {
  product: string;
  version: string;
  /** The token as written (`nginx/1.18.0`), its offset in the value. */
  token: string;
  offset: number;
}

// `product/1.2.3` or `product(1.2.3)`; the version ends at a non-word character, so `dcb/7F83` is not one.
const SLASH_OR_PAREN = /\b([A-Za-z][\w.+-]*?)(?:\/|\()v?(\d+(?:\.\d+)*[a-z]?)(?![\w])/;
// `WordPress 6.4.2` (X-Generator only): a dotted version, so a bare `Drupal 10` major does not count.
const SPACED = /\b([A-Za-z][\w.+-]*)\s+v?(\d+\.\d+(?:\.\d+)*)(?![\w.])/;
// X-AspNet-Version and X-AspNetMvc-Version hold the bare version.
const BARE = /^\s*v?(\d+(?:\.\d+)+)\s*$/;

/** The product and version a banner header discloses, or undefined when it names no version. */
export function findVersionBanner(header: string, value: string): VersionBanner | undefined {
  const bare = header === 'x-aspnet-version' || header === 'x-aspnetmvc-version' ? BARE.exec(value) : null;
  if (bare !== null && bare[1] !== undefined) {
    return {
      product: header === 'x-aspnet-version' ? 'ASP.NET' : 'ASP.NET MVC',
      version: bare[1],
      token: bare[1],
      offset: value.indexOf(bare[1]),
    };
  }
  const match = SLASH_OR_PAREN.exec(value) ?? (header === 'x-generator' ? SPACED.exec(value) : null);
  if (match === null || match[1] === undefined || match[2] === undefined) return undefined;
  const token = match[0];
  return { product: match[1], version: match[2], token, offset: match.index };
}

/**
 * Version disclosure in banners: the Server, X-Powered-By, X-AspNet-Version,
 * X-AspNetMvc-Version and X-Generator headers of every response, reported when one carries a
 * version number (a product name alone is not). One finding per origin and header, at
 * `origin/?banner=HEADER`.
 */
export function createVersionDisclosureCheck(): PageCheck {
  const reported = new Set<string>();
  return {
    id: versionDisclosureCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      for (const header of page.exchange.headers) {
        if (!(bannerHeaders as readonly string[]).includes(header.name)) continue;
        const key = `${page.originText} ${header.name}`;
        if (reported.has(key)) continue;
        const banner = findVersionBanner(header.name, header.value);
        if (banner === undefined) continue;
        reported.add(key);
        await context.report(
          buildFinding(KIND, {
            location: `${page.originText}/?banner=${header.name}`,
            host: page.origin.host,
            exchange: page.exchange,
            title: `Software version disclosed in the ${header.name} header: ${banner.token}`,
            observation: `${page.url.href} answers \`${header.name}: ${header.value}\`, which names ${banner.product} version ${banner.version}.`,
            extraHighlights: [
              {
                field: `response.headers.${header.name}`,
                value: banner.token,
                offset: banner.offset,
                length: banner.token.length,
              },
            ],
          }),
        );
      }
    },
  };
}
