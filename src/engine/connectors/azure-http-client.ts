import {
  createDefaultHttpClient,
  type HttpClient,
  type PipelineRequest,
  type PipelineResponse,
} from '@azure/core-rest-pipeline';
import { ConnectorRunError } from '../../core/connectors/connector-run.types.ts';
import type { AdapterContext } from './connector-adapter.ts';
import { maxThrottleWaitMs, networkCause, retryAfterMs } from './run-failures.ts';

/**
 * The HTTP client every Azure SDK client of a run is given (identity's token requests included):
 * core-rest-pipeline's own Node client, but each request is sent through the egress guard's
 * agents, so the SDK never opens a connection of its own (a proxy agent the pipeline may have
 * chosen from the environment is replaced too). Azure's SDKs insist on https for tokens and ARM,
 * so the https agent carries the TLS settings (an operator's CA) of the run. The request also
 * ends with the run's signal and within the run's per-request time limit.
 *
 * It also notes what identity's errors lose: MSAL turns a token endpoint that cannot be reached
 * into "endpoints_resolution_error" and a refused secret into a text-only error, so the client
 * keeps the last connection failure and Entra ID's own error code for the run's error message.
 *
 * A throttled answer (429, 503) asking for a longer wait than maxThrottleWaitMs ends the run at
 * once as 'throttled': the pipeline's retry policy honours any Retry-After, however long.
 */

/** What the run's requests met that the SDK's errors do not keep. */
export interface AzureTransportNotes {
  /** Why the last request got no answer (refused, timed out, denied by the guard). */
  networkFailure?: string;
  /** Entra ID's refusal of the token request: OAuth error and AADSTS code. */
  tokenRefusal?: string;
  /** A throttled answer that asked for too long a wait (the run's error). */
  throttled?: ConnectorRunError;
}

/** The run's error for a throttled answer that asks for a wait longer than maxThrottleWaitMs, if it does. */
function overlongThrottle(response: PipelineResponse): ConnectorRunError | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const header = (name: string): string | undefined => response.headers.get(name);
  const asked =
    retryAfterMs((name) => header(name === 'retry-after-ms' ? 'x-ms-retry-after-ms' : name)) ?? retryAfterMs(header);
  if (asked === undefined || asked <= maxThrottleWaitMs) return undefined;
  return new ConnectorRunError(
    'throttled',
    `Azure is throttling the requests (HTTP ${response.status}) and asked to wait ${Math.ceil(asked / 1000)} s: the run will try again at its next schedule`,
  );
}

/** Entra ID's error and AADSTS code from a token endpoint's error answer, e.g. "invalid_client, AADSTS7000215". */
function tokenRefusalOf(response: PipelineResponse): string | undefined {
  if (!/\/oauth2\/(?:v2\.0\/)?token(?:\?|$)/.test(response.request.url) || response.status < 400) return undefined;
  if (response.status === 429 || response.status >= 500) return undefined;
  try {
    const body = JSON.parse(response.bodyAsText ?? '') as { error?: unknown; error_codes?: unknown };
    const error = typeof body.error === 'string' && /^[a-z_]{1,60}$/.test(body.error) ? body.error : 'unknown_error';
    const first = Array.isArray(body.error_codes) ? (body.error_codes[0] as unknown) : undefined;
    return typeof first === 'number' ? `${error}, AADSTS${first}` : error;
  } catch {
    return `HTTP ${response.status}`;
  }
}

/** The request's own signal (any AbortSignalLike) joined with the run's. */
function withRunSignal(own: PipelineRequest['abortSignal'], run: AbortSignal): AbortSignal {
  if (own === undefined) return run;
  if (own instanceof AbortSignal) return AbortSignal.any([own, run]);
  const bridge = new AbortController();
  if (own.aborted) bridge.abort();
  else own.addEventListener('abort', () => bridge.abort(), { once: true });
  return AbortSignal.any([bridge.signal, run]);
}

/** The guarded HTTP client of one run, and what it noted. */
export function azureTransport(context: AdapterContext): { httpClient: HttpClient; notes: AzureTransportNotes } {
  const inner = createDefaultHttpClient();
  const notes: AzureTransportNotes = {};
  const httpClient: HttpClient = {
    async sendRequest(request: PipelineRequest) {
      request.agent = request.url.toLowerCase().startsWith('https:') ? context.agents.https : context.agents.http;
      const limit = context.requestTimeoutMs;
      request.timeout = request.timeout > 0 ? Math.min(request.timeout, limit) : limit;
      request.abortSignal = withRunSignal(request.abortSignal, context.signal);
      try {
        const response = await inner.sendRequest(request);
        notes.tokenRefusal = tokenRefusalOf(response) ?? notes.tokenRefusal;
        notes.throttled = overlongThrottle(response);
        if (notes.throttled !== undefined) throw notes.throttled;
        return response;
      } catch (err) {
        if (err instanceof ConnectorRunError) throw err;
        notes.networkFailure = networkCause(err) ?? notes.networkFailure;
        throw err;
      }
    },
  };
  return { httpClient, notes };
}
