import { setMaxListeners } from 'node:events';
import { APIConnectionError, APIConnectionTimeoutError, APIError, RateLimitError } from 'cloudflare';
import { ConnectorRunError, type ConnectorFailureKind } from '../../core/connectors/connector-run.types.ts';
import type { AdapterContext } from './connector-adapter.ts';
import { abortReason } from '../../shared/abortable.ts';
import {
  isEgressDenied,
  maxThrottleWaitMs,
  networkFailureReason,
  retryAfterMs,
  unreachableError,
} from './run-failures.ts';

/**
 * What sits between the Cloudflare SDK and the network, and between its errors and the run:
 *  - the SDK's `fetch` is the run's guarded fetch (context.fetch); a connection the egress guard
 *    refuses stops the run at once (the SDK would retry any failed connection, but the guard will
 *    refuse again): the wrapper aborts the SDK's signal, which makes the SDK give up without
 *    retrying, and remembers why;
 *  - a throttled answer asking for a wait longer than `maxThrottleWaitMs` gets `x-should-retry:
 *    false` (the SDK honours it), so the run reports `throttled` instead of sleeping for minutes
 *    (Cloudflare blocks a token for five minutes once it is over its limit);
 *  - the SDK's errors become ConnectorRunErrors (see cloudflareFailure).
 */

/** The SDK's fetch type (`cloudflare/internal/builtin-types`). */
type SdkFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The fetch and signal an SDK client of one run uses, and why the guard stopped it, if it did. */
export interface CloudflareTransport {
  fetch: SdkFetch;
  signal: AbortSignal;
  deniedReason(): string | undefined;
}

/** The answer, marked not to be retried when it asks for too long a wait. */
async function capThrottleWait(response: Response): Promise<Response> {
  if (response.status !== 429 && response.status !== 503) return response;
  const asked = retryAfterMs((name) => response.headers.get(name));
  if (asked === undefined || asked <= maxThrottleWaitMs) return response;
  const headers = new Headers(response.headers);
  headers.set('x-should-retry', 'false');
  const body = await response.text();
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** The transport of one run (see the note at the top). */
export function cloudflareTransport(context: AdapterContext): CloudflareTransport {
  const stop = new AbortController();
  let denied: string | undefined;
  const fetch: SdkFetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    try {
      return await capThrottleWait(await context.fetch(url, init ?? {}));
    } catch (err) {
      if (isEgressDenied(err)) {
        denied = networkFailureReason(err);
        stop.abort();
      }
      throw err;
    }
  };
  const signal = AbortSignal.any([context.signal, stop.signal]);
  // The SDK adds an abort listener to the signal for every request and never removes it: a run of
  // many pages adds many (released with the run), which is expected here, not a leak to warn of.
  setMaxListeners(0, signal);
  return { fetch, signal, deniedReason: () => denied };
}

/**
 * Cloudflare's error codes that mean the token itself was refused: 10000 "Authentication error"
 * (what the API answers, with HTTP 403 or 401, for a token it does not know or that expired),
 * 1000 "Invalid API Token", 6003/6111 "Invalid request headers" / "Invalid format for
 * Authorization header", 9103/9106 (unknown or missing auth headers). 9109 is "Unauthorized to
 * access requested resource" (a valid token without the permission: `permission`), but Cloudflare
 * also answers 9109 "Invalid access token" for a revoked one, which is told by its message.
 */
const credentialCodes = new Set([1000, 6003, 6111, 9103, 9106, 10000]);
const permissionCodes = new Set([9109]);

interface CloudflareErrorItem {
  code?: unknown;
  message?: unknown;
  error_chain?: CloudflareErrorItem[];
}

function errorItems(err: APIError): CloudflareErrorItem[] {
  const items = (err.errors ?? []) as CloudflareErrorItem[];
  return items.flatMap((item) => [item, ...(Array.isArray(item.error_chain) ? item.error_chain : [])]);
}

function kindOf(err: APIError): ConnectorFailureKind {
  if (err instanceof RateLimitError) return 'throttled';
  for (const item of errorItems(err)) {
    const code = Number(item.code);
    if (credentialCodes.has(code)) return 'credentials';
    if (permissionCodes.has(code)) return /invalid .*token/i.test(String(item.message)) ? 'credentials' : 'permission';
  }
  if (err.status === 401) return 'credentials';
  if (err.status === 403) return 'permission';
  return 'provider';
}

/** `HTTP 403, code 10000: Authentication error` from an error answer. */
function detailOf(err: APIError): string {
  const first = errorItems(err)[0];
  const said = first === undefined ? '' : `, code ${String(first.code)}: ${String(first.message ?? '').slice(0, 200)}`;
  return `HTTP ${err.status ?? '?'}${said}`;
}

/** A message without the token, should anything ever have echoed it. */
function scrubbed(text: string, secret: string): string {
  return secret === '' ? text : text.split(secret).join('[redacted]');
}

/** The ConnectorRunError (or, for a stopped run, the signal's reason) of what the SDK threw. */
export function cloudflareFailure(
  err: unknown,
  context: Pick<AdapterContext, 'options' | 'signal'>,
  transport: Pick<CloudflareTransport, 'deniedReason'>,
): Error {
  if (err instanceof ConnectorRunError) return err;
  if (context.signal.aborted) return abortReason(context.signal);
  const denied = transport.deniedReason();
  if (denied !== undefined) return new ConnectorRunError('unreachable', `Cloudflare could not be reached (${denied})`);
  if (err instanceof APIConnectionTimeoutError)
    return new ConnectorRunError('unreachable', 'Cloudflare could not be reached (timed out)');
  if (err instanceof APIConnectionError) return unreachableError('Cloudflare', err.cause ?? err);
  if (err instanceof APIError && err.status !== undefined) {
    const detail = detailOf(err);
    const kind = kindOf(err);
    const message = {
      credentials: `Cloudflare refused the API token (${detail})`,
      permission: `Cloudflare accepted the API token but it may not read the zones or their DNS records (${detail})`,
      throttled: `Cloudflare kept throttling the requests after retries (${detail})`,
      unreachable: `Cloudflare could not be reached (${detail})`,
      options: `Cloudflare refused the connector's options (${detail})`,
      provider: `Cloudflare answered with an error (${detail})`,
    }[kind];
    return new ConnectorRunError(kind, scrubbed(message, context.options.api_token ?? ''));
  }
  const text = err instanceof Error ? err.message : String(err);
  return new ConnectorRunError(
    'provider',
    scrubbed(`Cloudflare: ${text.slice(0, 300)}`, context.options.api_token ?? ''),
  );
}
