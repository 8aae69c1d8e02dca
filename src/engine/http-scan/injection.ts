import type { CrawledPage } from './checks/page-check.ts';

/** Where a parameter travels in a request. */
export type ParameterLocation = 'query' | 'body' | 'path';

/**
 * One parameter of a crawled request that an active check may put a payload into: a query
 * parameter, a field of an urlencoded POST body, or an id-like path segment. The rest of the
 * request (other parameters, method, body) is kept as the crawler sent it.
 */
export interface InjectionPoint {
  method: string;
  url: URL;
  /** The urlencoded body of a POST, undefined for a GET. */
  body: string | undefined;
  location: ParameterLocation;
  /** The parameter name; for a path segment its index among the segments (`0`, `1`, …). */
  name: string;
  /** The value the crawler sent. */
  value: string;
}

/** A request built from an injection point with a payload in place. */
export interface InjectedRequest {
  method: string;
  url: URL;
  body: { contentType: string; text: string } | undefined;
}

const formType = 'application/x-www-form-urlencoded';

/** A path segment that looks like an identifier or a file name: digits, a UUID, a hex id or `name.ext`. */
const ID_SEGMENT = /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}|[\w-]+\.(?:txt|html?|pdf|png|jpe?g|gif|xml|json|csv|log))$/i;

/**
 * The injection points of a crawled request: every query parameter, every field of an
 * urlencoded POST body, and every id-like path segment (digits, UUIDs, hex ids, file names).
 */
export function injectionPoints(page: Pick<CrawledPage, 'url' | 'exchange'>): InjectionPoint[] {
  const { method } = page.exchange.request;
  const body = method === 'POST' ? (page.exchange.request.body ?? '') : undefined;
  const points: InjectionPoint[] = [];
  const base = { method, url: page.url, body };
  const seen = new Set<string>();
  for (const [name, value] of page.url.searchParams) {
    if (seen.has(`q:${name}`)) continue;
    seen.add(`q:${name}`);
    points.push({ ...base, location: 'query', name, value });
  }
  if (body !== undefined) {
    for (const [name, value] of new URLSearchParams(body)) {
      if (seen.has(`b:${name}`)) continue;
      seen.add(`b:${name}`);
      points.push({ ...base, location: 'body', name, value });
    }
  }
  const segments = page.url.pathname.split('/').slice(1);
  segments.forEach((segment, index) => {
    if (ID_SEGMENT.test(decodeSafe(segment))) points.push({ ...base, location: 'path', name: String(index), value: decodeSafe(segment) });
  });
  return points;
}

/**
 * The identity of an injection point for "test once": method, origin, path (with the tested
 * path segment generalised) and the parameter; values do not count.
 */
export function injectionPointKey(point: InjectionPoint): string {
  let path = point.url.pathname;
  if (point.location === 'path') {
    const segments = path.split('/');
    segments[Number(point.name) + 1] = '{}';
    path = segments.join('/');
  }
  return `${point.method} ${point.url.origin}${path} ${point.location}:${point.location === 'path' ? '' : point.name}`;
}

/** How a payload replaces the value: instead of it, or after it. */
export type PayloadMode = 'replace' | 'append';

/** The request of an injection point with `payload` in place of (or after) its value. */
export function injectPayload(point: InjectionPoint, payload: string, mode: PayloadMode = 'replace'): InjectedRequest {
  const value = mode === 'append' ? `${point.value}${payload}` : payload;
  const url = new URL(point.url.href);
  let body = point.body;
  if (point.location === 'query') {
    url.searchParams.set(point.name, value);
  } else if (point.location === 'body') {
    const fields = new URLSearchParams(body ?? '');
    fields.set(point.name, value);
    body = fields.toString();
  } else {
    const segments = url.pathname.split('/');
    segments[Number(point.name) + 1] = encodeURIComponent(value);
    url.pathname = segments.join('/');
  }
  return { method: point.method, url, body: body === undefined ? undefined : { contentType: formType, text: body } };
}

/** The request of the injection point as the crawler sent it (a baseline). */
export function baselineRequest(point: InjectionPoint): InjectedRequest {
  return { method: point.method, url: point.url, body: point.body === undefined ? undefined : { contentType: formType, text: point.body } };
}

/**
 * The finding location of an injection point: origin, path and the parameter named the way
 * the house locations do (`?q=` for a query, `?body=NAME` for a form field, `?path=INDEX`).
 */
export function injectionLocation(originText: string, point: InjectionPoint): string {
  const name = encodeURIComponent(point.name);
  const path = point.location === 'path' ? point.url.pathname.split('/').slice(0, Number(point.name) + 1).join('/') + '/{}' : point.url.pathname;
  if (point.location === 'query') return `${originText}${path}?${name}=`;
  if (point.location === 'body') return `${originText}${path}?body=${name}`;
  return `${originText}${path}`;
}

/** A human name of the point: `query parameter q`, `form field user`, `path segment 2`. */
export function describePoint(point: InjectionPoint): string {
  if (point.location === 'query') return `query parameter ${point.name}`;
  if (point.location === 'body') return `form field ${point.name}`;
  return `path segment ${Number(point.name) + 1} (${point.value})`;
}

function decodeSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
