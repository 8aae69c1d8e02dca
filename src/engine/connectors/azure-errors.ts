import { ConnectorRunError } from '../../core/connectors/connector-run.types.ts';
import type { AzureTransportNotes } from './azure-http-client.ts';
import { networkCause } from './run-failures.ts';

/**
 * Azure failures as ConnectorRunErrors. ARM's RestError carries the HTTP status and ARM's error
 * code; identity's errors often carry neither (see azure-http-client.ts), so the transport's
 * notes say whether the token endpoint refused the secret or could not be reached. Messages keep
 * only codes: Entra's descriptions name the application and tenant, and nothing of a request
 * (where the secret travels) is ever quoted.
 */

/** ARM's error code of a RestError, e.g. AuthorizationFailed. */
function armCode(err: Error): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[\w.-]{1,80}$/.test(code) ? code : 'no error code';
}

function restFailure(err: Error, notes: AzureTransportNotes): ConnectorRunError {
  const status = (err as { statusCode?: unknown }).statusCode;
  const code = armCode(err);
  if (status === 401) return new ConnectorRunError('credentials', `Azure refused the access token (${code})`);
  if (status === 403)
    return new ConnectorRunError(
      'permission',
      `Azure denied reading the subscription's DNS zones or addresses (${code})`,
    );
  if (status === 429)
    return new ConnectorRunError('throttled', `Azure was still throttling the requests after retries (${code})`);
  if (status === undefined)
    return new ConnectorRunError('unreachable', `Azure could not be reached: ${notes.networkFailure ?? code}`);
  return new ConnectorRunError('provider', `Azure answered an error (HTTP ${String(status)}, ${code})`);
}

/** The ConnectorRunError an Azure SDK failure stands for, given what the run's transport noted. */
export function azureFailure(err: unknown, notes: AzureTransportNotes): ConnectorRunError {
  if (err instanceof ConnectorRunError) return err;
  if (notes.throttled !== undefined) return notes.throttled; // identity wraps what the token request met
  if (!(err instanceof Error)) return new ConnectorRunError('provider', 'Azure failed without an error');
  if (err.name === 'RestError' && (err as { statusCode?: unknown }).statusCode !== undefined)
    return restFailure(err, notes);
  const unreachable = networkCause(err) ?? notes.networkFailure;
  if (unreachable !== undefined)
    return new ConnectorRunError('unreachable', `Azure could not be reached: ${unreachable}`);
  if (notes.tokenRefusal !== undefined)
    return new ConnectorRunError('credentials', `Microsoft Entra ID refused the credentials (${notes.tokenRefusal})`);
  if (err.name === 'RestError') return restFailure(err, notes);
  if (/^(?:AuthenticationError|AuthenticationRequiredError|CredentialUnavailableError)$/.test(err.name))
    return new ConnectorRunError('credentials', `Microsoft Entra ID gave no token for the credentials (${err.name})`);
  return new ConnectorRunError('provider', `Azure failed (${err.name})`);
}
