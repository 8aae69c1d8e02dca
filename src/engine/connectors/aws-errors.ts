import { ConnectorRunError } from '../../core/connectors/connector-run.types.ts';
import { networkFailureOf } from './run-failures.ts';

/**
 * Turns what an AWS SDK call threw into a ConnectorRunError. Messages name the operation and
 * AWS's error code, never a key: AWS's own messages can quote an ARN or an access key id, so only
 * the code is kept (with the HTTP status when there is no code).
 */

const credentialCodes = new Set([
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'AuthFailure',
  'UnrecognizedClientException',
  'InvalidAccessKeyId',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidToken',
]);
const permissionCodes = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'OptInRequired']);
const throttlingCodes = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'PriorRequestNotComplete',
  'SlowDown',
]);
interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** The SDK error's service code (its `name` for a modelled or unmodelled service error). */
function serviceCode(err: SdkErrorShape): string | undefined {
  const status = err.$metadata?.httpStatusCode;
  if (status === undefined) return undefined;
  return typeof err.name === 'string' && err.name !== 'Error' ? err.name : undefined;
}

/**
 * The ConnectorRunError for an error of `operation` (e.g. "ListHostedZones"). An abort of the run
 * is passed through unchanged: the caller stopped the run, nothing failed at AWS.
 */
export function awsRunError(err: unknown, operation: string, signal: AbortSignal): unknown {
  if (err instanceof ConnectorRunError) return err;
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason : err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as SdkErrorShape;
  const code = serviceCode(e);
  const status = e.$metadata?.httpStatusCode;
  if (code !== undefined && credentialCodes.has(code))
    return new ConnectorRunError('credentials', `AWS refused the credentials for ${operation} (${code})`);
  if (code !== undefined && permissionCodes.has(code))
    return new ConnectorRunError(
      'permission',
      `AWS denied ${operation}: the credentials lack this permission (${code})`,
    );
  if ((code !== undefined && throttlingCodes.has(code)) || status === 429)
    return new ConnectorRunError(
      'throttled',
      `AWS still throttled ${operation} after the SDK's retries (${code ?? `HTTP ${status}`})`,
    );
  const network = status === undefined ? networkFailureOf(err) : undefined;
  if (network?.kind === 'denied')
    return new ConnectorRunError(
      'unreachable',
      `The egress guard refused the address of AWS's endpoint for ${operation} (EgressDeniedError)`,
    );
  if (network !== undefined)
    return new ConnectorRunError('unreachable', `AWS could not be reached for ${operation} (${network.code})`);
  if (status !== undefined && status >= 500)
    return new ConnectorRunError('provider', `AWS failed ${operation} (${code ?? `HTTP ${status}`})`);
  return new ConnectorRunError('provider', `AWS answered ${operation} with an error (${code ?? describe(e)})`);
}

/** A code-like word for an error without a service code (never its message, which may quote input). */
function describe(e: SdkErrorShape): string {
  if (typeof e.code === 'string') return e.code;
  if (e.$metadata?.httpStatusCode !== undefined) return `HTTP ${e.$metadata.httpStatusCode}`;
  return typeof e.name === 'string' ? e.name : 'unknown error';
}

/** Runs one SDK call and maps what it throws (see awsRunError). */
export async function awsCall<T>(operation: string, signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw awsRunError(err, operation, signal);
  }
}
