import type { HttpHeader } from '../../../core/vulnerabilities/vulnerability.types.ts';
import type { CrawledPage } from './page-check.ts';
import { isJsonType } from './discovery.ts';
import { scannerUserAgent } from './scan-session.ts';
import { multipartBody, multipartBoundary, parseMultipart } from './multipart.ts';

/** Where a parameter travels in a request. */
export type ParameterLocation = 'query' | 'body' | 'json' | 'path' | 'header' | 'cookie';

/** Locations that are parameters of the request itself: what every active check tests. */
export const parameterLocations: readonly ParameterLocation[] = ['query', 'body', 'json', 'path'];
/** Every location, request headers and cookies included: for checks where those make sense. */
export const allLocations: readonly ParameterLocation[] = [...parameterLocations, 'header', 'cookie'];

/** How a POST body is encoded: urlencoded, JSON, or multipart/form-data (a form with file inputs). */
export type BodyType = 'form' | 'json' | 'multipart';

/**
 * One parameter of a crawled request that an active check may put a payload into: a query
 * parameter, a field of an urlencoded POST body, a string or number leaf of a JSON body, an
 * id-like path segment, one of a few request headers, or a cookie the site set. The rest of the
 * request (other parameters, method, body) is kept as the crawler sent it.
 */
export interface InjectionPoint {
  method: string;
  url: URL;
  /** The body of a POST as sent (urlencoded, JSON or multipart text), undefined for a GET. */
  body: string | undefined;
  /** How `body` is encoded; absent means urlencoded (the crawler's forms). */
  bodyType?: BodyType;
  /** The Content-Type the crawler sent the body with, kept for every point of the request. */
  contentType?: string;
  location: ParameterLocation;
  /**
   * The parameter name; for a path segment its index among the segments (`0`, `1`, …), for a
   * JSON leaf its keys joined with dots (`user.name`, `items.0.id`), for a header its canonical
   * name (`User-Agent`), for a cookie its name.
   */
  name: string;
  /** The value the crawler sent (a JSON number as its decimal text). */
  value: string;
  /** The keys from the JSON document's root to the leaf (json points). */
  jsonPath?: Array<string | number>;
  /** The cookies the request carried, in order (cookie points): the header is rebuilt from them. */
  cookies?: Array<[string, string]>;
}

/** A request built from an injection point with a payload in place. */
export interface InjectedRequest {
  method: string;
  url: URL;
  body: { contentType: string; text: string } | undefined;
  /** Request headers that replace the session's same-named ones (header and cookie points). */
  headers?: HttpHeader[];
}

/** What injectionPoints needs to know besides the page. */
export interface PointOptions {
  /** Cookies the scan profile brings (custom cookies, the session cookie): never injection points. */
  profileCookieNames?: ReadonlySet<string>;
}

const formType = 'application/x-www-form-urlencoded';
const jsonType = 'application/json';

/** A path segment that looks like an identifier or a file name: digits, a UUID, a hex id or `name.ext`. */
const ID_SEGMENT =
  /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}|[\w-]+\.(?:txt|html?|pdf|png|jpe?g|gif|xml|json|csv|log))$/i;

/** Request headers tested once per path: those applications log, store or print. */
export const injectableHeaders: ReadonlyArray<{ name: string; value: (url: URL) => string }> = [
  { name: 'User-Agent', value: () => scannerUserAgent },
  { name: 'Referer', value: (url) => `${url.origin}/` },
  // A documentation address (TEST-NET-2): no real client is named.
  { name: 'X-Forwarded-For', value: () => '198.51.100.7' },
];

/** JSON leaves of one body at most, and how deep they may lie. */
const maxJsonLeaves = 100;
const maxJsonDepth = 16;

/** The string and number leaves of a JSON document, with their key paths and dotted names. */
export function jsonLeaves(document: unknown): Array<{ path: Array<string | number>; name: string; value: string }> {
  const leaves: Array<{ path: Array<string | number>; name: string; value: string }> = [];
  const visit = (value: unknown, path: Array<string | number>): void => {
    if (leaves.length >= maxJsonLeaves || path.length > maxJsonDepth) return;
    if (typeof value === 'string' || typeof value === 'number') {
      if (path.length > 0) leaves.push({ path, name: path.join('.'), value: String(value) });
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, [...path, index]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
    }
  };
  visit(document, []);
  return leaves;
}

/** The value of a request header the crawler sent (lower-case names in the exchange). */
function sentHeader(page: Pick<CrawledPage, 'exchange'>, name: string): string | undefined {
  const lower = name.toLowerCase();
  return page.exchange.request.headers.find((h) => h.name === lower || h.name.toLowerCase() === lower)?.value;
}

/**
 * True for a successful answer an application rendered (2xx, HTML or JSON): header and cookie
 * points are tested there only, not on static files, redirects or error pages, since each costs
 * a set of requests on every such path.
 */
function isRenderedAnswer(page: Pick<CrawledPage, 'exchange'>): boolean {
  const type = page.exchange.headers.find((h) => h.name === 'content-type')?.value.toLowerCase();
  const isSuccess = page.exchange.status >= 200 && page.exchange.status < 300;
  return (
    isSuccess &&
    type !== undefined &&
    (type.includes('text/html') || type.includes('application/xhtml') || isJsonType(type))
  );
}

/** Splits a Cookie header into pairs. */
export function parseCookiePairs(header: string | undefined): Array<[string, string]> {
  if (header === undefined) return [];
  const pairs: Array<[string, string]> = [];
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0) pairs.push([part.slice(0, index).trim(), part.slice(index + 1).trim()]);
  }
  return pairs;
}

/**
 * Cookies of the site at this request: those the crawler sent (less the profile's own) and
 * those the answer sets (not deletions), by name, first value kept.
 */
function siteCookies(
  page: Pick<CrawledPage, 'exchange'>,
  profileCookieNames: ReadonlySet<string>,
): Array<[string, string]> {
  const out = new Map<string, string>();
  for (const [name, value] of parseCookiePairs(sentHeader(page, 'cookie')))
    if (!profileCookieNames.has(name) && !out.has(name)) out.set(name, value);
  for (const header of page.exchange.headers) {
    if (header.name !== 'set-cookie') continue;
    const [pair = '', ...attributes] = header.value.split(';');
    const [name, value] = parseCookiePairs(pair)[0] ?? [];
    const isDeletion =
      value === '' ||
      attributes.some(
        (a) => /^\s*max-age\s*=\s*(?:-\d+|0+)\s*$/i.test(a) || isPast(/^\s*expires\s*=(.*)$/i.exec(a)?.[1]),
      );
    if (name !== undefined && value !== undefined && !isDeletion && !profileCookieNames.has(name) && !out.has(name))
      out.set(name, value);
  }
  return [...out];
}

/** What every injection point of one request shares. */
interface PointRequest {
  method: string;
  url: URL;
  body: string | undefined;
  bodyType: BodyType;
  contentType: string | undefined;
}

/**
 * One point of a request: an object literal, not a spread of a shared base (a spread with added
 * keys is slow in V8, and a scan builds these for every page).
 */
function pointOf(request: PointRequest, location: ParameterLocation, name: string, value: string): InjectionPoint {
  const made: InjectionPoint = { method: request.method, url: request.url, body: request.body, location, name, value };
  if (request.body !== undefined) {
    made.bodyType = request.bodyType;
    if (request.contentType !== undefined) made.contentType = request.contentType;
  }
  return made;
}

/**
 * The injection points of a crawled request: every query parameter, every field of an
 * urlencoded POST body, every string or number leaf of a JSON body, every id-like path segment
 * (digits, UUIDs, hex ids, file names), and, for successful answers an application rendered
 * (HTML, JSON), the headers of injectableHeaders and each cookie the site set.
 */
export function injectionPoints(
  page: Pick<CrawledPage, 'url' | 'exchange'>,
  options: PointOptions = {},
): InjectionPoint[] {
  const { method } = page.exchange.request;
  const { url } = page;
  const body = method === 'POST' ? (page.exchange.request.body ?? '') : undefined;
  const contentType = sentHeader(page, 'content-type');
  const bodyType: BodyType = isJsonType(contentType)
    ? 'json'
    : multipartBoundary(contentType) !== undefined
      ? 'multipart'
      : 'form';
  const points: InjectionPoint[] = [];
  const request: PointRequest = { method, url, body, bodyType, contentType };
  if (url.search !== '') {
    const seen = new Set<string>();
    for (const [name, value] of url.searchParams) {
      if (seen.has(name)) continue;
      seen.add(name);
      points.push(pointOf(request, 'query', name, value));
    }
  }
  // Only an urlencoded body (or one sent without a type) has form fields: XML or text is not split.
  if (
    body !== undefined &&
    bodyType === 'form' &&
    (contentType === undefined || contentType.toLowerCase().startsWith(formType))
  ) {
    const seen = new Set<string>();
    for (const [name, value] of new URLSearchParams(body)) {
      if (seen.has(name)) continue;
      seen.add(name);
      points.push(pointOf(request, 'body', name, value));
    }
  }
  // The text fields of a multipart body (its file parts are kept as sent, never points).
  if (body !== undefined && bodyType === 'multipart') {
    const seen = new Set<string>();
    for (const [name, value] of parseMultipart(body, contentType ?? '')?.fields ?? []) {
      if (seen.has(name)) continue;
      seen.add(name);
      points.push(pointOf(request, 'body', name, value));
    }
  }
  if (body !== undefined && bodyType === 'json') {
    for (const leaf of jsonLeaves(parseJson(body))) {
      const made = pointOf(request, 'json', leaf.name, leaf.value);
      made.jsonPath = leaf.path;
      points.push(made);
    }
  }
  const segments = url.pathname.split('/');
  for (let index = 1; index < segments.length; index++) {
    const segment = decodeSafe(segments[index]!);
    if (ID_SEGMENT.test(segment)) points.push(pointOf(request, 'path', String(index - 1), segment));
  }
  if (!isRenderedAnswer(page)) return points;
  for (const header of injectableHeaders)
    points.push(pointOf(request, 'header', header.name, sentHeader(page, header.name) ?? header.value(url)));
  const cookies = parseCookiePairs(sentHeader(page, 'cookie'));
  for (const [name, value] of siteCookies(page, options.profileCookieNames ?? new Set())) {
    const made = pointOf(request, 'cookie', name, value);
    made.cookies = cookies;
    points.push(made);
  }
  return points;
}

/** A path with every id-like segment (digits, UUIDs, hex ids, file names) written `{}`: one route of the site. */
export function routePattern(pathname: string): string {
  // Every point of a page asks for the same path's route (its headers and cookies): keep the last answer.
  if (pathname === lastRoute.pathname) return lastRoute.pattern;
  const pattern = pathname
    .split('/')
    .map((segment) => (segment !== '' && ID_SEGMENT.test(decodeSafe(segment)) ? '{}' : segment))
    .join('/');
  lastRoute = { pathname, pattern };
  return pattern;
}

let lastRoute = { pathname: '', pattern: '' };

/** True for points of the request's metadata (headers, cookies), tested once per route rather than per parameter. */
export function isMetadataPoint(point: InjectionPoint): boolean {
  return point.location === 'header' || point.location === 'cookie';
}

/**
 * The identity of an injection point for "test once": method, origin, path (with the tested
 * path segment generalised) and the parameter; values do not count. A header or cookie is
 * tested once per route: whatever the query says, and with id-like segments generalised
 * (`/product/1` and `/product/2` are one route). A form field (urlencoded or multipart) also
 * counts the names of its body's fields: the variants of a form, one per submit button
 * (`Save` and `Preview` buttons posting to one action), reach different handlers and are
 * tested each.
 */
export function injectionPointKey(point: InjectionPoint): string {
  let path = isMetadataPoint(point) ? routePattern(point.url.pathname) : point.url.pathname;
  if (point.location === 'path') {
    const segments = path.split('/');
    segments[Number(point.name) + 1] = '{}';
    path = segments.join('/');
  }
  const key = `${point.method} ${point.url.origin}${path} ${point.location}:${point.location === 'path' ? '' : point.name}`;
  return point.location === 'body' ? `${key} [${bodyFieldNames(point).join('&')}]` : key;
}

/** The distinct names of the fields of a point's form body (urlencoded or multipart), sorted. */
function bodyFieldNames(point: InjectionPoint): string[] {
  const fields =
    point.bodyType === 'multipart'
      ? (parseMultipart(point.body ?? '', point.contentType ?? '')?.fields ?? [])
      : [...new URLSearchParams(point.body ?? '')];
  return [...new Set(fields.map(([name]) => name))].sort();
}

/** How a payload replaces the value: instead of it, or after it. */
export type PayloadMode = 'replace' | 'append';

/** A cookie value with the characters that would split the Cookie header (`;`, `,`) and control characters percent-encoded. */
export function cookieSafe(value: string): string {
  let out = '';
  for (const c of value) {
    const code = c.charCodeAt(0);
    out +=
      c === ';' || c === ',' || code < 0x20 || code === 0x7f
        ? `%${code.toString(16).toUpperCase().padStart(2, '0')}`
        : c;
  }
  return out;
}

/** A copy of a JSON document with the leaf at `path` set to `value`. */
function withLeaf(document: unknown, path: Array<string | number>, value: string): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(document))
    return document.map((item, index) => (index === key ? withLeaf(item, rest, value) : item));
  const object = (document ?? {}) as Record<string, unknown>;
  return { ...object, [key]: withLeaf(object[key], rest, value) };
}

/**
 * A multipart body with the first field named `name` set to `value`, the other fields and the
 * file parts as they were, the same boundary (so the sent Content-Type still fits).
 */
function withMultipartField(body: string, contentType: string, name: string, value: string): string {
  const parsed = parseMultipart(body, contentType);
  if (parsed === undefined) return body;
  const index = parsed.fields.findIndex(([field]) => field === name);
  if (index >= 0) parsed.fields[index] = [name, value];
  return multipartBody(parsed.fields, parsed.files, multipartBoundary(contentType)).text;
}

/** The body of a point as the session sends it, with the content type of its encoding. */
function bodyOf(point: InjectionPoint, text: string | undefined): InjectedRequest['body'] {
  if (text === undefined) return undefined;
  return { contentType: point.contentType ?? (point.bodyType === 'json' ? jsonType : formType), text };
}

/**
 * The request of an injection point with `payload` in place of (or after) its value. A JSON
 * leaf becomes a string holding the payload (a number leaf too: its digits then the payload);
 * a header or cookie travels in `headers`, the rest of the request as the crawler sent it.
 */
export function injectPayload(point: InjectionPoint, payload: string, mode: PayloadMode = 'replace'): InjectedRequest {
  const value = mode === 'append' ? `${point.value}${payload}` : payload;
  const url = new URL(point.url.href);
  let body = point.body;
  let headers: HttpHeader[] | undefined;
  if (point.location === 'query') {
    url.searchParams.set(point.name, value);
  } else if (point.location === 'body' && point.bodyType === 'multipart') {
    body = withMultipartField(body ?? '', point.contentType ?? '', point.name, value);
  } else if (point.location === 'body') {
    const fields = new URLSearchParams(body ?? '');
    fields.set(point.name, value);
    body = fields.toString();
  } else if (point.location === 'json') {
    body = JSON.stringify(withLeaf(parseJson(body ?? ''), point.jsonPath ?? [], value));
  } else if (point.location === 'header') {
    headers = [{ name: point.name.toLowerCase(), value }];
  } else if (point.location === 'cookie') {
    const pairs = new Map(point.cookies ?? []);
    pairs.set(point.name, cookieSafe(value));
    headers = [{ name: 'cookie', value: [...pairs].map(([name, v]) => `${name}=${v}`).join('; ') }];
  } else {
    const segments = url.pathname.split('/');
    segments[Number(point.name) + 1] = encodeURIComponent(value);
    url.pathname = segments.join('/');
  }
  return { method: point.method, url, body: bodyOf(point, body), ...(headers === undefined ? {} : { headers }) };
}

/** The request of the injection point as the crawler sent it (a baseline). */
export function baselineRequest(point: InjectionPoint): InjectedRequest {
  return { method: point.method, url: point.url, body: bodyOf(point, point.body) };
}

/**
 * The finding location of an injection point: origin, path and the parameter named the way
 * the house locations do (`?q=` for a query, `?body=NAME` for a form field, `?json=a.b` for a
 * JSON leaf, `/path/{}` for a segment, `?header=User-Agent` and `?cookie=NAME` after the route,
 * id-like segments written `{}`, so that the location is the same whichever id was crawled).
 */
export function injectionLocation(originText: string, point: InjectionPoint): string {
  const name = encodeURIComponent(point.name);
  let path = point.url.pathname;
  if (point.location === 'path')
    path = `${point.url.pathname
      .split('/')
      .slice(0, Number(point.name) + 1)
      .join('/')}/{}`;
  else if (isMetadataPoint(point)) path = routePattern(point.url.pathname);
  if (point.location === 'query') return `${originText}${path}?${name}=`;
  if (point.location === 'path') return `${originText}${path}`;
  return `${originText}${path}?${point.location}=${name}`;
}

/** A human name of the point: `query parameter q`, `form field user` (urlencoded or multipart), `JSON field user.name`, `path segment 2`, `request header User-Agent`, `cookie lang`. */
export function describePoint(point: InjectionPoint): string {
  switch (point.location) {
    case 'query':
      return `query parameter ${point.name}`;
    case 'body':
      return `form field ${point.name}`;
    case 'json':
      return `JSON field ${point.name}`;
    case 'header':
      return `request header ${point.name}`;
    case 'cookie':
      return `cookie ${point.name}`;
    case 'path':
      return `path segment ${Number(point.name) + 1} (${point.value})`;
  }
}

/** True for an Expires date that has passed (a deletion). */
function isPast(date: string | undefined): boolean {
  if (date === undefined) return false;
  const time = Date.parse(date.trim());
  return Number.isFinite(time) && time < Date.now();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function decodeSafe(segment: string): string {
  // Nothing to decode without an escape (most segments): no call, no try.
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
