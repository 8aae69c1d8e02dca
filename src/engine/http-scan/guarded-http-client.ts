import { isIP } from 'node:net';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import type { HttpHeader } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { DnsResolver } from '../dns/resolver.ts';
import { EgressDeniedError, resolveGuarded, unbracketHost, type EgressGuard } from '../net/egress-guard.ts';

/** Largest body read from one response; the rest is dropped so a hostile server cannot exhaust memory. */
export const defaultBodyLimit = 2 * 1024 * 1024;

/** Why a request got no HTTP response. */
export type HttpFailureKind = 'denied' | 'no_address' | 'resolve_failed' | 'refused' | 'timeout' | 'aborted' | 'tls' | 'other';

/** A request that got no HTTP response; `kind` tells callers whether to warn, skip or stop. */
export class HttpRequestError extends Error {
  override readonly name = 'HttpRequestError';

  constructor(
    readonly kind: HttpFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** One request as sent (headers as given by the caller; undici adds host and connection). */
export interface HttpRequestSpec {
  method: string;
  url: URL;
  headers: HttpHeader[];
  body?: string;
}

/** One exchange: the request and the response with its body read up to the limit. */
export interface HttpExchange {
  request: HttpRequestSpec;
  status: number;
  headers: HttpHeader[];
  body: string;
  isTruncated: boolean;
}

/** Options of a guarded client. */
export interface GuardedHttpClientOptions {
  guard: EgressGuard;
  resolver: DnsResolver;
  /** Time limit of one request, connection and body included. */
  requestTimeoutMs: number;
  bodyLimit?: number;
  /** Ends name resolution and connections of this client (the scan's signal). */
  signal: AbortSignal;
}

/** An HTTP client whose every connection passes the egress guard. */
export interface GuardedHttpClient {
  /** Sends one request without following redirects; throws HttpRequestError when no response came. */
  send(spec: HttpRequestSpec, signal: AbortSignal): Promise<HttpExchange>;
  /** Resolves and checks a host once (cached); throws HttpRequestError for a denied or unknown name. */
  addressesOf(host: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Turns any failure of resolution, connection or transfer into an HttpRequestError. */
export function classifyFailure(err: unknown, timeoutMs: number, isCallerAborted: boolean): HttpRequestError {
  if (err instanceof HttpRequestError) return err;
  if (isCallerAborted) return new HttpRequestError('aborted', 'aborted', { cause: err });
  const cause = (err as { cause?: unknown } | null)?.cause;
  if (err instanceof EgressDeniedError) return new HttpRequestError('denied', err.message, { cause: err });
  if (cause instanceof EgressDeniedError) return new HttpRequestError('denied', cause.message, { cause });
  const code = (err as { code?: unknown } | null)?.code ?? (cause as { code?: unknown } | null)?.code;
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'ABORT_ERR' || code === 'UND_ERR_ABORTED' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new HttpRequestError('timeout', `timed out after ${timeoutMs} ms`, { cause: err });
  }
  if (code === 'ECONNREFUSED') return new HttpRequestError('refused', 'connection refused', { cause: err });
  if (typeof code === 'string' && (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || code === 'EPROTO')) {
    return new HttpRequestError('tls', 'TLS handshake failed', { cause: err });
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return new HttpRequestError('other', 'connection reset', { cause: err });
  return new HttpRequestError('other', err instanceof Error ? err.message : String(err), { cause: err });
}

/** Flattens undici's header object into name/value pairs (set-cookie stays one entry per cookie). */
function headerList(headers: Record<string, string | string[] | undefined>): HttpHeader[] {
  const out: HttpHeader[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) out.push({ name, value: one });
  }
  return out;
}

/** Reads a body up to `limit` bytes, then stops reading and releases the connection. */
async function readCapped(body: Dispatcher.ResponseData['body'], limit: number): Promise<{ text: string; isTruncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let isTruncated = false;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    const room = limit - size;
    if (buffer.length >= room) {
      chunks.push(buffer.subarray(0, room));
      isTruncated = buffer.length > room;
      size = limit;
      break;
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  if (isTruncated || size === limit) body.destroy();
  return { text: Buffer.concat(chunks).toString('utf8'), isTruncated };
}

/**
 * A client over one undici Agent whose connector resolves the name through resolveGuarded()
 * (once per host for the client's lifetime) and opens the socket to a checked IP address: a
 * second resolution could rebind to an internal address. Host and SNI keep the name; TLS
 * certificates are not validated because scanned sites are often self-signed.
 */
export function createGuardedHttpClient(options: GuardedHttpClientOptions): GuardedHttpClient {
  const bodyLimit = options.bodyLimit ?? defaultBodyLimit;
  const timeoutMs = options.requestTimeoutMs;
  const resolved = new Map<string, Promise<string[]>>();
  const baseConnect = buildConnector({ rejectUnauthorized: false, timeout: timeoutMs });

  const addressesOf = (host: string): Promise<string[]> => {
    const bare = unbracketHost(host).toLowerCase();
    let pending = resolved.get(bare);
    if (pending === undefined) {
      pending = resolveGuarded(bare, options.guard, options.resolver, options.signal).then(
        (list) => {
          if (list.length === 0) throw new HttpRequestError('no_address', `${bare} has no address`);
          return list;
        },
        (err: unknown) => {
          if (err instanceof EgressDeniedError) throw new HttpRequestError('denied', err.message, { cause: err });
          throw new HttpRequestError('resolve_failed', `cannot resolve ${bare}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        },
      );
      resolved.set(bare, pending);
    }
    return pending;
  };

  const connect: buildConnector.connector = (connectOptions, callback) => {
    const name = unbracketHost(connectOptions.hostname);
    addressesOf(name).then(
      (addresses) => {
        // Try the checked addresses in order; each is an IP literal, so nothing resolves again.
        const tryAt = (index: number, lastError: Error | null): void => {
          const address = addresses[index];
          if (address === undefined) {
            callback(lastError ?? new Error('no address to connect to'), null);
            return;
          }
          const servername = isIP(name) === 0 ? name : undefined;
          baseConnect({ ...connectOptions, hostname: address, ...(servername === undefined ? {} : { servername }) }, (err, socket) => {
            if (err !== null) tryAt(index + 1, err);
            else callback(null, socket);
          });
        };
        tryAt(0, null);
      },
      (err: unknown) => callback(err as Error, null),
    );
  };

  const agent = new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 2000 });

  return {
    addressesOf,
    async send(spec, signal) {
      const requestSignal = AbortSignal.any([signal, options.signal, AbortSignal.timeout(timeoutMs)]);
      const callerAborted = (): boolean => signal.aborted || options.signal.aborted;
      try {
        const headers: string[] = [];
        for (const header of spec.headers) headers.push(header.name, header.value);
        const response = await request(spec.url, {
          dispatcher: agent,
          method: spec.method as Dispatcher.HttpMethod,
          headers,
          body: spec.body,
          signal: requestSignal,
        });
        const { text, isTruncated } = await readCapped(response.body, bodyLimit);
        return { request: spec, status: response.statusCode, headers: headerList(response.headers), body: text, isTruncated };
      } catch (err) {
        throw classifyFailure(err, timeoutMs, callerAborted());
      }
    },
    async close() {
      await agent.destroy().catch(() => undefined);
    },
  };
}
