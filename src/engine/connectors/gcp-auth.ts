import { createPrivateKey } from 'node:crypto';
import { JWT } from 'google-auth-library';
import { ConnectorRunError } from '../../core/connectors/connector-run.types.ts';
import type { AdapterContext } from './connector-adapter.ts';
import { networkCause } from './run-failures.ts';

/**
 * Google Cloud service-account authentication: google-auth-library's JWT client signs the key's
 * RS256 assertion and trades it at the OAuth token endpoint for a read-only access token. Its
 * HTTP (gaxios) goes through the run's guarded fetch. The library always posts to
 * https://oauth2.googleapis.com/token (the URL is fixed in its token code, the key's token_uri is
 * not read), so an operator's endpoint replaces the googleapis origins in that fetch, as it does
 * for the REST calls.
 */

/** The read-only scope the run asks for. */
export const gcpScope = 'https://www.googleapis.com/auth/cloud-platform.read-only';

/** The fields of a service account key file the run uses. */
export interface ServiceAccountKey {
  clientEmail: string;
  privateKey: string;
  projectId: string | undefined;
}

/** The key file's fields, or an 'options' failure that never quotes the file. */
export function parseServiceAccountKey(text: string): ServiceAccountKey {
  let key: unknown;
  try {
    key = JSON.parse(text);
  } catch {
    throw new ConnectorRunError('options', 'The service account key is not valid JSON');
  }
  const k = (key ?? {}) as { client_email?: unknown; private_key?: unknown; project_id?: unknown };
  if (typeof k.client_email !== 'string' || k.client_email === '')
    throw new ConnectorRunError('options', 'The service account key has no client_email');
  if (typeof k.private_key !== 'string' || k.private_key === '')
    throw new ConnectorRunError('options', 'The service account key has no private_key');
  try {
    createPrivateKey(k.private_key);
  } catch {
    throw new ConnectorRunError('options', "The service account key's private_key is not a readable PEM key");
  }
  const projectId = typeof k.project_id === 'string' && k.project_id !== '' ? k.project_id : undefined;
  return { clientEmail: k.client_email, privateKey: k.private_key, projectId };
}

/** What the run's requests met that gaxios' errors do not keep in a usable form. */
export interface GcpTransportNotes {
  /** Why the last request got no answer (refused, timed out, denied by the guard). */
  networkFailure?: string;
}

const googleOrigin = /^https:\/\/(?:oauth2|dns|compute|www)\.googleapis\.com(?=\/)/;

/**
 * The run's fetch for Google: the operator's endpoint replaces every googleapis origin, each
 * request ends with the run's signal or its time limit, and connection failures are noted.
 */
export function gcpFetch(context: AdapterContext, notes: GcpTransportNotes): typeof fetch {
  const endpoint = context.endpoint?.replace(/\/+$/, '');
  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = String(input instanceof Request ? input.url : input);
    const signals = [context.signal, AbortSignal.timeout(context.requestTimeoutMs)];
    if (init.signal) signals.push(init.signal);
    try {
      return await context.fetch(endpoint === undefined ? url : url.replace(googleOrigin, endpoint), {
        ...init,
        signal: AbortSignal.any(signals),
      });
    } catch (err) {
      notes.networkFailure = networkCause(err) ?? notes.networkFailure;
      throw err;
    }
  };
  return guarded as typeof fetch;
}

/** The JWT client of the key, its token requests sent through the run's fetch. */
export function gcpJwtClient(key: ServiceAccountKey, fetchImplementation: typeof fetch): JWT {
  return new JWT({
    email: key.clientEmail,
    key: key.privateKey,
    scopes: [gcpScope],
    transporterOptions: { fetchImplementation },
  });
}

/** The OAuth error of a failed token request (gaxios keeps the answer's JSON), e.g. invalid_grant. */
export function tokenErrorOf(err: unknown): { status: number; error: string } | undefined {
  const response = (err as { response?: { status?: unknown; data?: unknown; config?: { url?: unknown } } }).response;
  if (response === undefined || typeof response.status !== 'number') return undefined;
  const data = (response.data ?? {}) as { error?: unknown };
  const error = typeof data.error === 'string' && /^[a-z_]{1,60}$/.test(data.error) ? data.error : 'unknown_error';
  return { status: response.status, error };
}
