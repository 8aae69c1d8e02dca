import { ConnectorRunError } from '../../core/connectors/connector-run.types.ts';
import { EgressDeniedError } from '../net/egress-guard.ts';

/**
 * What every connector adapter (and the engine) shares about failures that are not answers: a connection that could not be made (refused, timed out,
 * refused by the egress guard) and a run that was stopped. These texts end up in
 * `last_run.error`, so they name the cause in plain words and carry nothing of the request (no
 * header, hence no credential).
 */

/** The causes of an error, outermost first (undici wraps the connector's error as `cause`). */
function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = err;
  while (current !== undefined && current !== null && chain.length < 8) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** Node's codes for a connection that could not be made or broke, in plain words. */
const connectionCodes: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
};

/** A request that got no answer: refused by the egress guard, a connection that failed, or a time-out. */
export interface NetworkFailure {
  kind: 'denied' | 'connection' | 'timeout';
  /** A code for messages: Node's (ECONNREFUSED, ETIMEDOUT) or the error's name (EgressDeniedError, TimeoutError). */
  code: string;
  /** Plain words for messages: the guard's own refusal, "connection refused", "timed out". */
  reason: string;
  /** The egress guard's refusal, when that is the cause. */
  denial?: EgressDeniedError;
}

function isDenial(c: unknown): boolean {
  return c instanceof EgressDeniedError || (c instanceof Error && c.message.includes('denied by egress guard'));
}

function isTimeout(name: unknown, code: unknown, message: unknown): boolean {
  if (name === 'TimeoutError' || name === 'HeadersTimeoutError' || name === 'BodyTimeoutError') return true;
  // ETIMEDOUT (the socket's), UND_ERR_CONNECT_TIMEOUT / UND_ERR_HEADERS_TIMEOUT (undici's).
  if (typeof code === 'string' && /TIME_?D?OUT/.test(code)) return true;
  return typeof message === 'string' && /\btimed? ?out\b/i.test(message);
}

/**
 * What kind of network failure an error is, looking through its causes (SDKs and undici wrap
 * the socket's error), or undefined when it is something else (an answer, a bug). The one place
 * that decides "unreachable" for every adapter and for the engine.
 */
export function networkFailureOf(err: unknown): NetworkFailure | undefined {
  const chain = causes(err);
  const denied = chain.find(isDenial);
  if (denied !== undefined) {
    const denial = denied instanceof EgressDeniedError ? denied : undefined;
    return { kind: 'denied', code: 'EgressDeniedError', reason: (denied as Error).message, denial };
  }
  for (const c of chain) {
    const { code, name, message } = c as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string' && connectionCodes[code] !== undefined)
      return { kind: 'connection', code, reason: connectionCodes[code] };
    if (isTimeout(name, code, message))
      return { kind: 'timeout', code: typeof code === 'string' ? code : String(name), reason: 'timed out' };
  }
  return undefined;
}

/** True when the egress guard refused the connection (the address is not one the server may reach). */
export function isEgressDenied(err: unknown): boolean {
  return networkFailureOf(err)?.kind === 'denied';
}

/** Why a request got no answer, in plain words: the guard's refusal, a refused connection, a time-out. */
export function networkFailureReason(err: unknown): string {
  const failure = networkFailureOf(err);
  if (failure !== undefined) return failure.reason;
  const last = causes(err).at(-1);
  return last instanceof Error ? last.message.slice(0, 200) : 'no answer';
}

/** The 'unreachable' run error of a request that got no answer: `<provider> could not be reached (<reason>)`. */
export function unreachableError(provider: string, err: unknown): ConnectorRunError {
  return new ConnectorRunError('unreachable', `${provider} could not be reached (${networkFailureReason(err)})`);
}

/**
 * The short cause the SDK-based adapters (Azure, Google Cloud) keep from their transport, whose
 * own errors lose it: "the egress guard refused the address", "no connection (ECONNREFUSED)",
 * "no answer in time"; undefined when the error is not a network failure.
 */
export function networkCause(err: unknown): string | undefined {
  const failure = networkFailureOf(err);
  if (failure === undefined) return undefined;
  if (failure.kind === 'denied') return 'the egress guard refused the address';
  return failure.kind === 'timeout' ? 'no answer in time' : `no connection (${failure.code})`;
}

/**
 * The longest wait a provider's throttled answer may ask for before an SDK retries it: past
 * this, the run fails as 'throttled' at once (and runs again at its next schedule) instead of
 * holding a worker while the provider's limit lasts.
 */
export const maxThrottleWaitMs = 30_000;

/** The wait an answer asks for in `retry-after-ms` or `Retry-After` (seconds or an HTTP date), in ms. */
export function retryAfterMs(header: (name: string) => string | null | undefined): number | undefined {
  const ms = Number(header('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms)) return ms;
  const value = header('retry-after');
  if (value === null || value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at - Date.now();
}
