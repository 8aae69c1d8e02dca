import { sendCheckRequest } from './check-request.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { originOf, originText } from '../check-kit/scan-scope.ts';
import { isScriptPage } from './exposure-probe.ts';
import { buildFinding, type BodyEvidence, type FindingKind } from './finding-builder.ts';
import { headerValue, type CheckContext, type CrawledPage, type PageCheck } from '../check-kit/page-check.ts';

/** Stable id of the source-map check. */
export const sourceMapCheckId = 'source-map';

/** Crawled scripts per origin whose source map is requested (one request each). */
export const maxScriptsPerOrigin = 50;

const KIND: FindingKind = {
  checkId: sourceMapCheckId,
  title: 'JavaScript source map exposed',
  cwe: 540,
  cvssVector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N',
  severity: 'low',
  owasp: 'A05:2021-Security Misconfiguration',
  description:
    "A source map of the site's JavaScript is served: it maps the minified bundle back to the original source files, often with their full text (`sourcesContent`).",
  risk: 'The original client code, comments, internal paths, API routes and feature flags become readable, which speeds up finding flaws and sometimes exposes secrets left in the source.',
  remediation:
    'Do not deploy `.map` files to production (or serve them only to authenticated staff), and drop the `//# sourceMappingURL=` comment from published bundles.',
  references: [
    {
      link: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/01-Information_Gathering/05-Review_Web_Page_Content_for_Information_Leakage',
      name: 'OWASP WSTG: Review web page content for information leakage',
    },
    { link: 'https://tc39.es/source-map/', name: 'Source Map specification' },
  ],
};

const MAPPING_COMMENT = /(?:\/\/|\/\*)[#@][ \t]*sourceMappingURL[ \t]*=[ \t]*([^\s*'"]+)/g;

/** The last `//# sourceMappingURL=` of a script (where bundlers put it), with its offset, or undefined. */
export function findSourceMappingUrl(code: string): { url: string; value: string; offset: number } | undefined {
  let last: RegExpExecArray | undefined;
  for (const match of code.matchAll(MAPPING_COMMENT)) last = match;
  if (last?.[1] === undefined) return undefined;
  return { url: last[1], value: last[0], offset: last.index };
}

/** A source map's facts: its sources and whether it carries their text. */
export interface SourceMapFacts {
  sources: string[];
  hasContent: boolean;
}

/**
 * Reads a body as a source map (version 3, a `mappings` string and a `sources` array, or an
 * index map with `sections`), ignoring an XSSI prefix; undefined otherwise (an HTML soft-404
 * page, any other JSON).
 */
export function parseSourceMap(body: string): SourceMapFacts | undefined {
  let document: unknown;
  try {
    document = JSON.parse(body.replace(/^\)\]\}'[^\n]*\n/, ''));
  } catch {
    return undefined;
  }
  if (document === null || typeof document !== 'object') return undefined;
  const map = document as {
    version?: unknown;
    mappings?: unknown;
    sources?: unknown;
    sourcesContent?: unknown;
    sections?: unknown;
  };
  if (map.version !== 3) return undefined;
  if (Array.isArray(map.sections)) {
    const parts = map.sections
      .map((s) => parseSourceMap(JSON.stringify((s as { map?: unknown } | null)?.map ?? null)))
      .filter((p) => p !== undefined);
    return parts.length === 0
      ? undefined
      : { sources: parts.flatMap((p) => p.sources), hasContent: parts.some((p) => p.hasContent) };
  }
  if (typeof map.mappings !== 'string' || !Array.isArray(map.sources)) return undefined;
  const sources = map.sources.filter((s): s is string => typeof s === 'string');
  return {
    sources,
    hasContent: Array.isArray(map.sourcesContent) && map.sourcesContent.some((c) => typeof c === 'string' && c !== ''),
  };
}

/** The source map of a `data:application/json;base64,…` URL, or undefined. */
function inlineSourceMap(url: string): SourceMapFacts | undefined {
  const match = /^data:application\/json(?:;charset=[\w-]+)?;base64,([A-Za-z0-9+/=]+)$/i.exec(url);
  return match?.[1] === undefined ? undefined : parseSourceMap(Buffer.from(match[1], 'base64').toString('utf8'));
}

function describe(map: SourceMapFacts): string {
  const sample = map.sources.slice(0, 5).join(', ');
  return `${map.sources.length} source files (${sample}${map.sources.length > 5 ? ', …' : ''})${map.hasContent ? ', with their full text' : ''}`;
}

/** A map may live on another origin of the scope (a static host): the finding is located there. */
function locationOf(url: URL): string {
  return `${originText(originOf(url) ?? { scheme: 'http', host: url.hostname, port: 80 })}${url.pathname}`;
}

/** Reports a source map found at `url` (`how` says how it was found). */
async function report(
  url: URL,
  exchange: HttpExchange,
  map: SourceMapFacts,
  evidence: BodyEvidence,
  how: string,
  context: CheckContext,
): Promise<void> {
  const host = originOf(url)?.host ?? url.hostname;
  await context.report(
    buildFinding(KIND, {
      location: locationOf(url),
      host,
      exchange,
      evidence,
      observation: `${how}: a source map of ${describe(map)}.`,
    }),
  );
}

/** The evidence of a map's body: its `"mappings"` key. */
function mapEvidence(body: string): BodyEvidence {
  return { value: '"mappings"', offset: Math.max(0, body.indexOf('"mappings"')) };
}

/** Reports the answer to a map's request when it is a real source map. */
async function judgeMap(url: URL, exchange: HttpExchange, how: string, context: CheckContext): Promise<void> {
  if (exchange.status !== 200) return;
  const map = parseSourceMap(exchange.body);
  if (map !== undefined) await report(url, exchange, map, mapEvidence(exchange.body), how, context);
}

/**
 * Source maps: for each crawled script (at most 50 per origin), the map its
 * `//# sourceMappingURL=` comment or SourceMap header names, else `<script>.map`, is requested
 * once; reported when it answers a real source map. An inline (data: URL) map is judged without
 * a request and located at the script; a crawled `.map` is judged as it arrives. One finding per
 * origin and map path.
 */
export function createSourceMapCheck(): PageCheck {
  const judged = new Set<string>();
  const scriptsPerOrigin = new Map<string, number>();

  return {
    id: sourceMapCheckId,
    async inspect(page: CrawledPage, context: CheckContext): Promise<void> {
      const own = locationOf(page.url);
      if (/\.map$/i.test(page.url.pathname) && !judged.has(own)) {
        judged.add(own);
        await judgeMap(page.url, page.exchange, `${page.url.href} (crawled) answers`, context);
        return;
      }
      if (page.exchange.status !== 200 || !isScriptPage(page)) return;
      const count = scriptsPerOrigin.get(page.originText) ?? 0;
      if (judged.has(own) || count >= maxScriptsPerOrigin) return;
      judged.add(own);
      scriptsPerOrigin.set(page.originText, count + 1);
      const comment = findSourceMappingUrl(page.exchange.body);
      const named =
        comment?.url ?? headerValue(page.exchange, 'sourcemap') ?? headerValue(page.exchange, 'x-sourcemap');
      if (named !== undefined && named.toLowerCase().startsWith('data:')) {
        const map = inlineSourceMap(named);
        if (map !== undefined && comment !== undefined)
          await report(
            page.url,
            page.exchange,
            map,
            { value: comment.value.slice(0, 60), offset: comment.offset },
            `${page.url.href} embeds its map in a data: URL`,
            context,
          );
        return;
      }
      let url: URL;
      try {
        url = new URL(named ?? `${page.url.pathname}.map`, page.url);
      } catch {
        return;
      }
      const key = locationOf(url);
      if (judged.has(key)) return;
      judged.add(key);
      const exchange = await sendCheckRequest(url, context);
      const how =
        named === undefined
          ? `${url.href} (the script's name plus .map) answers`
          : `${url.href} (named by ${page.url.pathname}) answers`;
      if (exchange !== undefined) await judgeMap(url, exchange, how, context);
    },
  };
}
