import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectorRunError } from '../../core/connectors/connector-run.types.ts';

/**
 * Google's REST APIs (Cloud DNS v1, Compute Engine v1) read page by page with a bearer token.
 * @google-cloud/dns is not used: it sends through @google-cloud/common's teeny-request, which
 * imports node-fetch with its own agents and takes no fetch, so its connections could not go
 * through the egress guard; the documented REST API is read instead. Throttling (429
 * RESOURCE_EXHAUSTED, 503) is retried a few times, honouring Retry-After; Google's error body
 * (`{"error":{"code","status","errors":[{"reason"}]}}`) gives the code in messages.
 */

/** Retries after a throttled or unavailable answer, and their waits. */
const maxRetries = 3;
const baseDelayMs = 100;
const maxDelayMs = 10_000;

/** What a read needs: the guarded fetch and the current access token. */
export interface GcpReader {
  fetch: typeof fetch;
  token(): Promise<string>;
  signal: AbortSignal;
}

/** Google's error code of an answer, e.g. PERMISSION_DENIED (or the first reason, or the status). */
async function googleCode(response: Response): Promise<string> {
  const body = (await response.json().catch(() => undefined)) as
    { error?: { status?: unknown; errors?: Array<{ reason?: unknown }> } } | undefined;
  const status = body?.error?.status;
  if (typeof status === 'string' && /^[A-Z_]{1,60}$/.test(status)) return status;
  const reason = body?.error?.errors?.[0]?.reason;
  return typeof reason === 'string' && /^\w{1,60}$/.test(reason) ? reason : `HTTP ${response.status}`;
}

/** How long to wait before retry `attempt`: Retry-After when given (capped), else doubling. */
function retryDelayMs(response: Response, attempt: number): number {
  const header = response.headers.get('retry-after');
  const seconds = header === null ? Number.NaN : Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, maxDelayMs);
  return Math.min(baseDelayMs * 2 ** attempt, maxDelayMs);
}

async function failureOf(response: Response, what: string): Promise<ConnectorRunError> {
  const code = await googleCode(response);
  const s = response.status;
  if (s === 401) return new ConnectorRunError('credentials', `Google Cloud refused the access token (${code})`);
  if (s === 403) return new ConnectorRunError('permission', `Google Cloud denied ${what} (${code})`);
  if (s === 429)
    return new ConnectorRunError('throttled', `Google Cloud was still throttling ${what} after retries (${code})`);
  return new ConnectorRunError('provider', `Google Cloud failed ${what} (HTTP ${s}, ${code})`);
}

/** One GET of a JSON document, retried while throttled. */
async function getJson(reader: GcpReader, url: string, what: string): Promise<unknown> {
  for (let attempt = 0; ; attempt += 1) {
    const response = await reader.fetch(url, {
      headers: { authorization: `Bearer ${await reader.token()}`, accept: 'application/json' },
      signal: reader.signal,
    });
    if (response.ok) return (await response.json()) as unknown;
    const isRetried = response.status === 429 || response.status === 503;
    if (!isRetried || attempt >= maxRetries) throw await failureOf(response, what);
    await response.body?.cancel();
    await sleep(retryDelayMs(response, attempt), undefined, { signal: reader.signal });
  }
}

/** Every page of a list (pageToken / nextPageToken), each handed to `take`. */
export async function readPages<T>(
  reader: GcpReader,
  url: string,
  what: string,
  take: (page: T) => void,
): Promise<void> {
  let pageToken: string | undefined;
  do {
    if (reader.signal.aborted) throw reader.signal.reason;
    const pageUrl = new URL(url);
    if (pageToken !== undefined) pageUrl.searchParams.set('pageToken', pageToken);
    const page = (await getJson(reader, pageUrl.toString(), what)) as T & { nextPageToken?: unknown };
    take(page);
    pageToken = typeof page.nextPageToken === 'string' && page.nextPageToken !== '' ? page.nextPageToken : undefined;
  } while (pageToken !== undefined);
}
