import { ConnectorRunError, type ConnectorFailureKind } from '../../core/connectors/connector-run.types.ts';
import type { GuardedFetch } from '../net/guarded-fetch.ts';
import { abortReason, sleepUnlessAborted } from '../../shared/abortable.ts';
import { unreachableError } from './run-failures.ts';

/**
 * The JSON-over-HTTPS client of the connector adapters of providers that have no official
 * JavaScript SDK that fits (GoDaddy, NS1). It does what every such adapter needs
 * and nothing more:
 *  - GET requests to one base URL with the provider's auth headers, through the egress guard
 *    (`context.fetch`), each with the run's signal and a time limit;
 *  - retries on throttling (429) and on 503, honouring Retry-After (seconds or an HTTP date) or a
 *    provider's own header or body field, capped, a few times; then ConnectorRunError('throttled');
 *    a connection that fails is not retried (ConnectorRunError('unreachable'): the next run tries);
 *  - error answers mapped to ConnectorRunError kinds: 401 → credentials, 403 → permission, other
 *    → provider (a provider may classify its own error bodies first), with the provider's error
 *    code in the message and never a header (so never a credential);
 *  - paging links (absolute URLs of the provider's own host) rebased onto the base URL, so the
 *    credentials only ever go to the configured endpoint.
 */

/** How throttled answers are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (so attempts + 1 requests at most). */
  retries: number;
  /** Statuses that are retried. */
  statuses: readonly number[];
  /** The longest wait honoured; a provider asking for more is not waited for (the run is throttled)… */
  maxDelayMs: number;
  /** …unless this is true: then the wait is shortened to maxDelayMs and the request retried. */
  isLongDelayShortened: boolean;
  /** The wait when the answer says none: doubled at each retry. */
  baseDelayMs: number;
  /** The wait a throttled answer asks for, in milliseconds, or undefined (default: Retry-After). */
  delayOf(headers: Headers, body: unknown): number | undefined;
}

/** What a client needs. */
export interface RestClientConfig {
  /** The provider's name for messages ("DigitalOcean"). */
  provider: string;
  /** The API's base URL; request paths are appended to it (`https://api.digitalocean.com`). */
  baseUrl: string;
  /** Headers of every request (the auth header among them; never shown anywhere). */
  headers: Readonly<Record<string, string>>;
  fetch: GuardedFetch;
  signal: AbortSignal;
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  /** The provider's error code (and message) in an error body, for messages: `unauthorized: Unable to …`. */
  describeError?: (body: unknown) => string | undefined;
  /** The provider's own classification of an error answer, before the status-based default. */
  classify?: (status: number, body: unknown) => ConnectorFailureKind | undefined;
}

/** A JSON answer with its status and headers (paging links, a status the caller accepts). */
export interface JsonAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

/** A request's query parameters. */
export type Query = Readonly<Record<string, string | number>>;

/** One provider API. */
export interface RestClient {
  /** GETs a path (with query) or a paging link of the provider's and returns the parsed JSON. */
  getJson(pathOrLink: string, query?: Query): Promise<unknown>;
  /**
   * The same, with the answer's status and headers; an error status in `acceptedStatuses` (e.g.
   * 404 for a resource that may be absent) is an answer, not a failure.
   */
  get(pathOrLink: string, query?: Query, acceptedStatuses?: readonly number[]): Promise<JsonAnswer>;
}

/** Retry-After in seconds or as an HTTP date, in milliseconds (never negative), or undefined. */
export function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(seconds, 0) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(at - Date.now(), 0);
}

const defaultRetry: RetryPolicy = {
  retries: 3,
  statuses: [429, 503],
  maxDelayMs: 30_000,
  isLongDelayShortened: false,
  baseDelayMs: 500,
  delayOf: retryAfterMs,
};

/** The URL of a path or of a provider's paging link, always on the base URL's origin and prefix. */
function urlOf(baseUrl: string, pathOrLink: string, query?: Query): string {
  const base = baseUrl.replace(/\/+$/, '');
  let relative = pathOrLink;
  if (/^https?:\/\//i.test(pathOrLink)) {
    // A link of the provider's own (`https://api.digitalocean.com/v2/domains?page=2`): its path
    // and query on our base, whatever host it names.
    const link = new URL(pathOrLink);
    const prefix = new URL(base).pathname.replace(/\/+$/, '');
    relative =
      prefix !== '' && link.pathname.startsWith(`${prefix}/`) ? link.pathname.slice(prefix.length) : link.pathname;
    relative += link.search;
  }
  const url = new URL(base + (relative.startsWith('/') ? relative : `/${relative}`));
  for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, String(value));
  return url.toString();
}

/** The path of a URL, for messages (no query: nothing secret is there, but it is noise). */
function pathOf(url: string): string {
  return new URL(url).pathname;
}

/** The answer's body, parsed when it is JSON; a body cut off (time-out, abort) fails the request. */
async function bodyOf(response: Response, config: RestClientConfig): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    if (config.signal.aborted) throw abortReason(config.signal);
    throw unreachableError(config.provider, err);
  }
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return text.slice(0, 200);
  }
}

/** The ConnectorRunError of an error answer. */
function answerError(
  config: RestClientConfig,
  status: number,
  body: unknown,
  what: string,
  isThrottled = false,
): ConnectorRunError {
  const said = config.describeError?.(body);
  const detail = said === undefined || said === '' ? `HTTP ${status}` : `HTTP ${status} ${said}`;
  const kind: ConnectorFailureKind = isThrottled
    ? 'throttled'
    : (config.classify?.(status, body) ??
      (status === 401 ? 'credentials' : status === 403 ? 'permission' : 'provider'));
  const p = config.provider;
  const message = {
    credentials: `${p} refused the credentials (${detail})`,
    permission: `${p} accepted the credentials but does not allow ${what} (${detail})`,
    throttled: `${p} kept throttling the requests after retries (${detail})`,
    unreachable: `${p} could not be reached (${detail})`,
    options: `${p} refused the connector's options (${detail})`,
    provider: `${p} answered ${what} with an error (${detail})`,
  }[kind];
  return new ConnectorRunError(kind, message);
}

/** A client of one provider API (see the note at the top). */
export function createRestClient(config: RestClientConfig): RestClient {
  const retry: RetryPolicy = { ...defaultRetry, ...config.retry };
  const { signal } = config;

  const send = async (url: string): Promise<Response> => {
    try {
      return await config.fetch(url, {
        method: 'GET',
        headers: { accept: 'application/json', ...config.headers },
        signal: AbortSignal.any([signal, AbortSignal.timeout(config.timeoutMs)]),
      });
    } catch (err) {
      if (signal.aborted) throw abortReason(signal);
      throw unreachableError(config.provider, err);
    }
  };

  const get = async (pathOrLink: string, query?: Query, accepted: readonly number[] = []): Promise<JsonAnswer> => {
    const url = urlOf(config.baseUrl, pathOrLink, query);
    const what = `GET ${pathOf(url)}`;
    for (let attempt = 0; ; attempt++) {
      const response = await send(url);
      const body = await bodyOf(response, config);
      if (response.ok || accepted.includes(response.status)) {
        if (response.ok && (typeof body !== 'object' || body === null))
          throw new ConnectorRunError('provider', `${config.provider} answered ${what} with no JSON document`);
        return { status: response.status, body, headers: response.headers };
      }
      if (!retry.statuses.includes(response.status)) throw answerError(config, response.status, body, what);
      const asked = retry.delayOf(response.headers, body) ?? retry.baseDelayMs * 2 ** attempt;
      const isTooLong = asked > retry.maxDelayMs && !retry.isLongDelayShortened;
      if (attempt >= retry.retries || isTooLong)
        throw answerError(config, response.status, body, what, response.status === 429);
      await sleepUnlessAborted(Math.min(Math.max(asked, 0), retry.maxDelayMs), signal);
    }
  };

  return {
    get,
    async getJson(pathOrLink, query) {
      return (await get(pathOrLink, query)).body;
    },
  };
}
