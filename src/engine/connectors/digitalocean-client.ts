import { FetchRequestAdapter, HttpClient, type Middleware } from '@microsoft/kiota-http-fetchlibrary';
import { ConnectorRunError } from '../../core/connectors/connector-run.types.ts';
import type { AdapterContext } from './connector-adapter.ts';
import { retryAfterMs } from './rest-client.ts';
import {
  createDigitalOceanClient,
  DigitalOceanApiKeyAuthenticationProvider,
  type DigitalOceanClient,
} from './digitalocean-sdk.js';
import { abortReason, sleepUnlessAborted } from '../../shared/abortable.ts';
import { unreachableError } from './run-failures.ts';

/**
 * DigitalOcean's official SDK (`@digitalocean/dots`, a Kiota client) wired for a connector run.
 * Kiota's FetchRequestAdapter sends every request through an HttpClient whose last step is a
 * custom fetch: ours is `context.fetch` (the egress guard) with the run's signal and the
 * per-request time limit, so the SDK never opens a connection of its own.
 *
 * Kiota's own RetryHandler is left out on purpose: it sleeps without watching the run's signal,
 * does not know DigitalOcean's `ratelimit-reset` header, and shortens a long Retry-After instead
 * of giving up. ThrottleRetry below takes its place in the middleware chain.
 */

/** DigitalOcean's API, replaced by `context.endpoint` when the operator sets one. */
export const defaultBaseUrl = 'https://api.digitalocean.com';

/** Retries after the first attempt (so four requests at most). */
const maxRetries = 3;
/** The longest wait honoured; an answer asking for more ends the run as throttled. */
const maxDelayMs = 30_000;
/** The wait when a throttled answer names none: doubled at each retry. */
const baseDelayMs = 500;
/** Statuses retried: DigitalOcean's rate limit (429) and a busy service (503). */
const retriedStatuses: ReadonlySet<number> = new Set([429, 503]);

/** Retry-After, else the wait until `ratelimit-reset` (epoch seconds) when DigitalOcean sends it. */
export function throttleDelay(headers: Headers): number | undefined {
  const asked = retryAfterMs(headers);
  if (asked !== undefined) return asked;
  const reset = Number(headers.get('ratelimit-reset') ?? Number.NaN);
  return Number.isFinite(reset) && reset > 0 ? Math.max(reset * 1000 - Date.now(), 0) : undefined;
}

/** Reads and drops a body that will not be used, so the connection can serve the retry. */
async function discard(response: Response): Promise<void> {
  try {
    await response.arrayBuffer();
  } catch {
    // The retry opens a new connection if this one broke.
  }
}

/**
 * A Kiota middleware that retries throttled answers a few times, waiting as long as the answer
 * asks (capped) and stopping at once when the run is aborted. When it gives up it hands the last
 * answer on, so the SDK raises its documented error (an ErrorEscaped with status 429).
 */
class ThrottleRetry implements Middleware {
  next: Middleware | undefined;

  constructor(private readonly signal: AbortSignal) {}

  async execute(url: string, init: RequestInit, options?: Parameters<Middleware['execute']>[2]): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      if (this.next === undefined) throw new Error('ThrottleRetry has no next middleware');
      const response = await this.next.execute(url, init, options);
      if (!retriedStatuses.has(response.status)) return response;
      const asked = throttleDelay(response.headers) ?? baseDelayMs * 2 ** attempt;
      if (attempt >= maxRetries || asked > maxDelayMs) return response;
      await discard(response);
      await sleepUnlessAborted(Math.max(asked, 0), this.signal);
    }
  }
}

/** `context.fetch` with the run's signal and the per-request time limit; a connection that fails is 'unreachable'. */
function guardedFetchOf(context: AdapterContext): (url: string, init: RequestInit) => Promise<Response> {
  return async (url, init) => {
    try {
      return await context.fetch(url, {
        ...init,
        signal: AbortSignal.any([context.signal, AbortSignal.timeout(context.requestTimeoutMs)]),
      });
    } catch (err) {
      if (context.signal.aborted) throw abortReason(context.signal);
      throw unreachableError('DigitalOcean', err);
    }
  };
}

/** The SDK's client for one run, and the base URL its requests go to. */
export interface DigitalOceanSdk {
  client: DigitalOceanClient;
  baseUrl: string;
}

/** The SDK's client over the egress guard, on `context.endpoint` or DigitalOcean's own API. */
export function createDigitalOceanSdk(context: AdapterContext): DigitalOceanSdk {
  const token = context.options.token ?? '';
  // The SDK refuses an empty token outright; say so in the run's words instead.
  if (token === '') throw new ConnectorRunError('options', 'The connector has no DigitalOcean token');
  const httpClient = new HttpClient(guardedFetchOf(context), new ThrottleRetry(context.signal));
  const adapter = new FetchRequestAdapter(
    new DigitalOceanApiKeyAuthenticationProvider(token),
    undefined,
    undefined,
    httpClient,
  );
  const baseUrl = (context.endpoint ?? defaultBaseUrl).replace(/\/+$/, '');
  adapter.baseUrl = baseUrl;
  return { client: createDigitalOceanClient(adapter), baseUrl };
}

/**
 * A paging link of DigitalOcean's (`https://api.digitalocean.com/v2/domains?page=2&per_page=200`)
 * as the same path and query on the run's base URL: the token only ever goes to the configured
 * endpoint, whatever host a link names.
 */
export function onBaseUrl(link: string, baseUrl: string): string {
  const url = new URL(link, `${baseUrl}/`);
  const prefix = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const path =
    prefix !== '' && url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : url.pathname;
  return `${baseUrl}${path}${url.search}`;
}
