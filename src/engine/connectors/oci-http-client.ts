import * as common from 'oci-common';
import type { AdapterContext } from './connector-adapter.ts';

/**
 * The OCI SDK's transport for the connector: an `HttpClient` (the SDK's own seam, passed to each
 * client as `params.httpClient`) that signs every request with the SDK's DefaultRequestSigner
 * (draft-cavage HTTP signatures, keyId `tenancy/user/fingerprint`) and sends it through the
 * context's guarded fetch, with the run's signal and a per-request time limit. The SDK's own
 * FetchHttpClient would call the global fetch (or node-fetch with an agent) on its own, which the
 * egress guard could not see. A failed connection is not retried by the SDK (the run reports it);
 * the client remembers why it failed so the adapter can say what happened.
 */

/** Why the last request never got an answer. */
export type OciTransportFailure = { kind: 'key'; error: unknown } | { kind: 'connection'; error: unknown };

/** The bare `?` the SDK leaves on a URI without query is dropped, as its own client does before signing. */
function requestUri(uri: string): string {
  const url = new URL(uri);
  return url.search === '' && uri.endsWith('?') ? uri.slice(0, -1) : url.href;
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    // undici sets Host from the URL itself (the same value that was signed).
    if (name.toLowerCase() !== 'host') record[name] = value;
  });
  return record;
}

/** An error the SDK's retrier does not retry (a property it reads on non-service errors). */
function notRetried(message: string): Error {
  return Object.assign(new Error(message), { shouldBeRetried: false });
}

/** The SDK's HttpClient over the context's guarded fetch (see the note at the top). */
export class GuardedOciHttpClient implements common.HttpClient {
  /** Set when a request could not be signed or sent; the adapter maps it. */
  failure: OciTransportFailure | undefined;

  constructor(
    private readonly signer: common.RequestSigner,
    private readonly context: AdapterContext,
  ) {}

  async send(req: common.HttpRequest): Promise<Response> {
    this.failure = undefined;
    const uri = requestUri(req.uri);
    try {
      await this.signer.signHttpRequest({ method: req.method, headers: req.headers, uri, body: undefined });
    } catch (error) {
      this.failure = { kind: 'key', error };
      throw notRetried('The request could not be signed');
    }
    try {
      const signal = AbortSignal.any([this.context.signal, AbortSignal.timeout(this.context.requestTimeoutMs)]);
      return await this.context.fetch(uri, { method: req.method, headers: headerRecord(req.headers), signal });
    } catch (error) {
      this.failure = { kind: 'connection', error };
      throw notRetried('The request got no answer');
    }
  }
}

/** How the SDK retries throttled and unavailable answers. */
export interface OciRetrySettings {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The first wait, in seconds; each next one doubles, up to maxDelaySeconds. */
  baseDelaySeconds: number;
  maxDelaySeconds: number;
}

/** The SDK's retry configuration: 429 and 5xx answers only, exponential waits. */
export function ociRetryConfiguration(settings: OciRetrySettings): common.RetryConfiguration {
  return {
    terminationStrategy: new common.MaxAttemptsTerminationStrategy(settings.maxAttempts),
    delayStrategy: {
      delay: (context: { attemptCount: number }) =>
        Math.min(settings.baseDelaySeconds * 2 ** context.attemptCount, settings.maxDelaySeconds),
    },
    retryCondition: (error: common.OciError) =>
      error.statusCode === 429 || (error.statusCode >= 500 && error.statusCode <= 504),
  };
}

/**
 * The configuration every client of a run gets: the retries above and no circuit breaker (a
 * breaker shared across runs would let one account's failures stop another's).
 */
export function ociClientConfiguration(settings: OciRetrySettings): common.ClientConfiguration {
  return {
    retryConfiguration: ociRetryConfiguration(settings),
    circuitBreaker: new common.CircuitBreaker({ disableClientCircuitBreaker: true }),
  };
}
