import { Parser } from 'htmlparser2';
import { JsTokenReader, parseObjectLiteral, type JsLiteral } from './js-literal.ts';
import { stringValue } from './js-tokens.ts';

/**
 * Where a crawler finds URLs besides HTML links: robots.txt, sitemaps, JavaScript and JSON,
 * and the JSON API calls scripts make. Every function returns raw references (absolute URLs or
 * paths, with a body for API calls) for the crawler to resolve against the page and filter by
 * scope; none of them fetches or runs anything.
 */

/** What robots.txt offers a crawler: the paths it names (allowed or not) and its sitemaps. */
export interface RobotsHints {
  paths: string[];
  sitemaps: string[];
}

/**
 * Reads robots.txt as a map of the site: every Allow/Disallow path (a scanner looks at what
 * the site asks robots to avoid; wildcards `*` and `$` cut the path where they start) and every
 * Sitemap URL. Comments and unknown lines are ignored.
 */
export function parseRobots(text: string): RobotsHints {
  const paths = new Set<string>();
  const sitemaps = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const match = /^(allow|disallow|sitemap)\s*:\s*(\S+)/i.exec(line);
    if (match === null) continue;
    const field = match[1]!.toLowerCase();
    const value = match[2]!;
    if (field === 'sitemap') {
      sitemaps.add(value);
      continue;
    }
    const cut = value.search(/[*$]/);
    const path = cut >= 0 ? value.slice(0, cut) : value;
    if (path.startsWith('/')) paths.add(path);
  }
  return { paths: [...paths], sitemaps: [...sitemaps] };
}

/** What a sitemap lists: pages (`<urlset>`) or further sitemaps (`<sitemapindex>`). */
export interface SitemapEntries {
  pages: string[];
  sitemaps: string[];
}

/** Reads the `<loc>` entries of a sitemap or sitemap index (htmlparser2 in XML mode, lenient). */
export function parseSitemap(xml: string): SitemapEntries {
  const out: SitemapEntries = { pages: [], sitemaps: [] };
  const stack: string[] = [];
  let text = '';
  const parser = new Parser(
    {
      onopentag(name) {
        stack.push(localName(name));
        text = '';
      },
      ontext(chunk) {
        text += chunk;
      },
      onclosetag(name) {
        const tag = localName(name);
        const parent = stack.at(-2);
        if (tag === 'loc' && text.trim() !== '') (parent === 'sitemap' ? out.sitemaps : out.pages).push(text.trim());
        stack.pop();
        text = '';
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return out;
}

const localName = (name: string): string => name.slice(name.indexOf(':') + 1).toLowerCase();

// A quoted string in code that looks like a URL or an absolute or relative path: http(s)://…,
// //host/…, /path, ./path or ../path, with no whitespace, quotes or angle brackets inside.
const JS_STRING = /(["'`])((?:https?:)?\/\/[^\s"'`<>\\]+|\.{0,2}\/[A-Za-z0-9_~.\-%][^\s"'`<>\\]*)\1/g;
// Not pages: a comment opener, a bare slash or regex flags (`/g`), a template substitution.
const NOT_A_PAGE = /^\/\*|^\/[gimsuy]*$|\$\{/;

/**
 * URLs inside JavaScript (inline or external): string literals that look like URLs or paths,
 * which is where single-page applications keep their routes and API endpoints
 * (`fetch('/api/items')`, `{url: "/admin/users"}`). Template literals count when they hold no
 * substitution.
 */
export function extractJsUrls(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(JS_STRING)) {
    const value = match[2]!;
    if (NOT_A_PAGE.test(value) || value.length > 2048) continue;
    found.add(value);
  }
  return [...found];
}

/**
 * URLs inside a JSON document: every string value (or key) that is an absolute http(s) URL or
 * an absolute path, as REST APIs link their resources (`"next": "/api/items?page=2"`).
 */
export function extractJsonUrls(text: string): string[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return [];
  }
  const found = new Set<string>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 64 || found.size >= 10_000) return;
    if (typeof value === 'string') {
      if (/^(https?:\/\/[^\s]+|\/[A-Za-z0-9_~.\-%][^\s]*)$/.test(value) && value.length <= 2048) found.add(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
    } else if (value !== null && typeof value === 'object') {
      for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(document, 0);
  return [...found];
}

/** A JSON API call found in JavaScript: where it posts and the JSON document it sends. */
export interface JsonCall {
  url: string;
  method: 'POST';
  /** The JSON text of the body (an object or an array). */
  body: string;
}

/** Calls of a script worth reading at most: a bundle with thousands of fetch() calls is not mapped call by call. */
const maxJsonCalls = 100;
const FETCH_CALL = /(?<![\w$])fetch\s*\(/g;
/** Options of fetch() whose values the scanner must read; any other option may hold code. */
const READ_OPTIONS = new Set(['method', 'headers', 'body']);

/** The JSON call of one `fetch(` at `at`, or undefined when any part that matters is not a literal. */
function readFetchCall(code: string, at: number): JsonCall | undefined {
  const reader = new JsTokenReader(code, at);
  if (!reader.acceptIdentifier('fetch') || !reader.accept('(')) return undefined;
  const urlToken = reader.next();
  const url = urlToken === undefined ? undefined : stringValue(urlToken);
  if (url === undefined || url === '' || !reader.accept(',')) return undefined;
  const options = parseObjectLiteral(reader, (key) => !READ_OPTIONS.has(key));
  if (options === undefined || !(reader.accept(')') || (reader.accept(',') && reader.accept(')')))) return undefined;
  const { method, headers, body } = options;
  if (typeof method !== 'string' || method.toUpperCase() !== 'POST' || typeof body !== 'string') return undefined;
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return undefined;
  const isJson = Object.entries(headers).some(
    ([name, value]) => name.toLowerCase() === 'content-type' && typeof value === 'string' && /\bjson\b/i.test(value),
  );
  if (!isJson) return undefined;
  let document: JsLiteral;
  try {
    document = JSON.parse(body) as JsLiteral;
  } catch {
    return undefined;
  }
  if (document === null || typeof document !== 'object') return undefined;
  return { url, method: 'POST', body: JSON.stringify(document) };
}

/**
 * JSON API calls in JavaScript of the form `fetch('/api/x', {method: 'POST', headers:
 * {'Content-Type': 'application/json'}, body: JSON.stringify({key: 'literal', n: 1})})`: the
 * URL, method, headers and body must be literals (the body may also be a JSON string); other
 * options may hold anything. Read with a tokenizer, never run; a call that cannot be read for
 * sure is skipped, so the crawler never posts a body it guessed.
 */
export function extractJsonCalls(code: string): JsonCall[] {
  const found = new Map<string, JsonCall>();
  for (const match of code.matchAll(FETCH_CALL)) {
    if (found.size >= maxJsonCalls) break;
    const call = readFetchCall(code, match.index);
    if (call !== undefined) found.set(`${call.url} ${call.body}`, call);
  }
  return [...found.values()];
}

/** True for a response that carries JavaScript. */
export function isJavaScriptType(contentType: string | undefined): boolean {
  return contentType !== undefined && /\b(?:java|ecma)script\b/i.test(contentType);
}

/** True for a response that carries JSON. */
export function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && /\bjson\b/i.test(contentType);
}
