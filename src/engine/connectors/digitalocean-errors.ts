import { ConnectorRunError, type ConnectorFailureKind } from '../../core/connectors/connector-run.types.ts';
import type { ErrorEscaped } from './digitalocean-sdk.js';
import { abortReason } from '../../shared/abortable.ts';
import { networkFailureOf, unreachableError } from './run-failures.ts';

/**
 * What a failed SDK call means for the run. The SDK (Kiota) throws DigitalOcean's error body as
 * its `ErrorEscaped` model, a plain object `{ id, messageEscaped, responseStatusCode }` (the body
 * `{"id": "unauthorized", "message": "Unable to authenticate you"}` of a 401); a request that got no
 * answer comes back as the guarded fetch's own ConnectorRunError or as the socket's error. The
 * messages name the status and DigitalOcean's error id, never a header (so never the token).
 */

/** The SDK's ErrorEscaped as the SDK throws it: with the answer's status. */
type SdkApiError = ErrorEscaped & { responseStatusCode: number };

function isSdkApiError(err: unknown): err is SdkApiError {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { responseStatusCode?: unknown }).responseStatusCode === 'number'
  );
}

/** `HTTP 401 unauthorized: Unable to authenticate you`, or `HTTP 500` when the body said nothing. */
function detailOf(err: SdkApiError): string {
  const said = [err.id ?? undefined, err.messageEscaped?.slice(0, 200) ?? undefined]
    .filter((p) => p !== undefined && p !== '')
    .join(': ');
  return said === '' ? `HTTP ${err.responseStatusCode}` : `HTTP ${err.responseStatusCode} ${said}`;
}

/**
 * `unauthorized` is a token DigitalOcean does not know, `forbidden` one whose scopes do not cover
 * the read; a 429 that reaches here is one the retries gave up on.
 */
function kindOf(err: SdkApiError): ConnectorFailureKind {
  if (err.responseStatusCode === 429) return 'throttled';
  if (err.id === 'unauthorized') return 'credentials';
  if (err.id === 'forbidden') return 'permission';
  if (err.responseStatusCode === 401) return 'credentials';
  return err.responseStatusCode === 403 ? 'permission' : 'provider';
}

/** The run error of an error answer to `what` (`GET /v2/droplets`). */
function answerError(err: SdkApiError, what: string): ConnectorRunError {
  const detail = detailOf(err);
  const kind = kindOf(err);
  const message = {
    credentials: `DigitalOcean refused the credentials (${detail})`,
    permission: `DigitalOcean accepted the credentials but does not allow ${what} (${detail})`,
    throttled: `DigitalOcean kept throttling the requests after retries (${detail})`,
    unreachable: `DigitalOcean could not be reached (${detail})`,
    options: `DigitalOcean refused the connector's options (${detail})`,
    provider: `DigitalOcean answered ${what} with an error (${detail})`,
  }[kind];
  return new ConnectorRunError(kind, message);
}

/**
 * The error a run fails with when the SDK's call for `what` failed: the run's abort reason, a
 * ConnectorRunError of the transport unchanged, an error answer mapped to its kind, a connection
 * or time-out met while the SDK read the body ('unreachable'), else 'provider'.
 */
export function sdkFailure(err: unknown, what: string, signal: AbortSignal): Error {
  if (signal.aborted) return abortReason(signal);
  if (err instanceof ConnectorRunError) return err;
  if (isSdkApiError(err)) return answerError(err, what);
  if (networkFailureOf(err) !== undefined) return unreachableError('DigitalOcean', err);
  const said = err instanceof Error ? err.message.slice(0, 200) : 'no reason given';
  return new ConnectorRunError('provider', `DigitalOcean's answer to ${what} could not be read (${said})`);
}
