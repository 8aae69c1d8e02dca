import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import type { HttpHeader } from '../../../core/vulnerabilities/vulnerability.types.ts';
import type { DnsResolver } from '../../dns/resolver.ts';
import { EgressDeniedError, resolveGuarded, unbracketHost, type EgressGuard } from '../../net/egress-guard.ts';

/** Largest body read from one response; the rest is dropped so a hostile server cannot exhaust memory. */
export const defaultBodyLimit = 2 * 1024 * 1024;

/** Why a request got no HTTP response. */
export type HttpFailureKind =
  'denied' | 'no_address' | 'resolve_failed' | 'refused' | 'timeout' | 'aborted' | 'tls' | 'other';

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
  if (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    code === 'ABORT_ERR' ||
    code === 'UND_ERR_ABORTED' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return new HttpRequestError('timeout', `timed out after ${timeoutMs} ms`, { cause: err });
  }
  if (code === 'ECONNREFUSED') return new HttpRequestError('refused', 'connection refused', { cause: err });
  if (typeof code === 'string' && (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || code === 'EPROTO')) {
    return new HttpRequestError('tls', 'TLS handshake failed', { cause: err });
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
    return new HttpRequestError('other', 'connection reset', { cause: err });
  return new HttpRequestError('other', err instanceof Error ? err.message : String(err), { cause: err });
}

/** Flattens undici's header object into name/value pairs (set-cookie stays one entry per cookie). */
function headerList(headers: Record<string, string | string[] | undefined>): HttpHeader[] {
  const out: HttpHeader[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (typeof value === 'string') out.push({ name, value });
    else for (const one of value) out.push({ name, value: one });
  }
  return out;
}

/**
 * One request in flight. It is cancelled at its deadline, with its caller or with the client;
 * a cancel before undici started it is kept and applied when it starts.
 */
class InFlight {
  private abortDispatch: ((reason: Error) => void) | undefined;
  private reason: Error | undefined;

  constructor(
    readonly deadline: number,
    /** The caller's signal when it is not the client's own, with the listener to remove. */
    readonly caller: { signal: AbortSignal; onAbort: () => void } | undefined,
  ) {}

  started(abort: (reason: Error) => void): void {
    this.abortDispatch = abort;
    if (this.reason !== undefined) abort(this.reason);
  }

  cancel(reason: unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason instanceof Error ? reason : new Error(String(reason));
    this.abortDispatch?.(this.reason);
  }
}

/**
 * Time limits and aborts of a client's requests: a single sweep timer cancels requests past
 * their deadline (within a tenth of the limit), and one listener on the client's signal cancels
 * them all. An AbortSignal.any() and AbortSignal.timeout() per request cost a scan about a tenth
 * of its CPU on a fast site.
 */
class RequestDeadlines {
  private readonly inFlight = new Set<InFlight>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly sweepMs: number;
  private readonly cancelAll = (): void => {
    for (const request of this.inFlight) request.cancel(this.clientSignal.reason);
  };

  constructor(
    private readonly timeoutMs: number,
    private readonly clientSignal: AbortSignal,
  ) {
    this.sweepMs = Math.min(1000, Math.max(10, Math.ceil(timeoutMs / 10)));
    clientSignal.addEventListener('abort', this.cancelAll, { once: true });
  }

  start(signal: AbortSignal): InFlight {
    let caller: InFlight['caller'];
    if (signal !== this.clientSignal && !signal.aborted) {
      const onAbort = (): void => request.cancel(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      caller = { signal, onAbort };
    }
    const request = new InFlight(performance.now() + this.timeoutMs, caller);
    if (this.clientSignal.aborted) request.cancel(this.clientSignal.reason);
    else if (signal.aborted) request.cancel(signal.reason);
    this.inFlight.add(request);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.sweepMs);
      this.timer.unref();
    }
    return request;
  }

  finish(request: InFlight): void {
    this.inFlight.delete(request);
    if (request.caller !== undefined) request.caller.signal.removeEventListener('abort', request.caller.onAbort);
    if (this.inFlight.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  close(): void {
    this.clientSignal.removeEventListener('abort', this.cancelAll);
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private sweep(): void {
    const now = performance.now();
    for (const request of this.inFlight) {
      if (request.deadline <= now)
        request.cancel(new DOMException(`timed out after ${this.timeoutMs} ms`, 'TimeoutError'));
    }
  }
}

/** A response as the dispatch handler collected it. */
interface RawResponse {
  status: number;
  headers: HttpHeader[];
  body: string;
  isTruncated: boolean;
}

/**
 * Collects one response for undici's dispatch API: status, headers, and the body up to `limit`
 * bytes (past it the request is aborted and the connection dropped, so a hostile server cannot
 * exhaust memory). Lighter than request(): no body stream, no AbortSignal. A class, so that no
 * closure is built per request.
 */
class ResponseCollector implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: HttpHeader[] = [];
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private isSettled = false;

  constructor(
    private readonly limit: number,
    private readonly request: InFlight,
    private readonly resolve: (response: RawResponse) => void,
    private readonly reject: (err: Error) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.request.started((reason) => controller.abort(reason));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.status = statusCode;
    this.headers = headerList(headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.isSettled) return;
    const room = this.limit - this.size;
    if (chunk.length > room) {
      this.chunks.push(chunk.subarray(0, room));
      this.size = this.limit;
      this.finish(true);
      controller.abort(new Error(`response body over ${this.limit} bytes`));
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.finish(false);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.isSettled) return;
    this.isSettled = true;
    this.reject(err);
  }

  private finish(isTruncated: boolean): void {
    if (this.isSettled) return;
    this.isSettled = true;
    // One chunk (most small pages) needs no copy into a new buffer first.
    const body =
      this.chunks.length === 1
        ? this.chunks[0]!.toString('utf8')
        : Buffer.concat(this.chunks, this.size).toString('utf8');
    this.resolve({ status: this.status, headers: this.headers, body, isTruncated });
  }
}

/** Sends one request with undici's dispatch API (no redirect following). */
function dispatchRequest(
  agent: Dispatcher,
  spec: HttpRequestSpec,
  headers: string[],
  limit: number,
  request: InFlight,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const path = `${spec.url.pathname}${spec.url.search}`;
    agent.dispatch(
      { origin: spec.url.origin, path, method: spec.method as Dispatcher.HttpMethod, headers, body: spec.body ?? null },
      new ResponseCollector(limit, request, resolve, reject),
    );
  });
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
          throw new HttpRequestError(
            'resolve_failed',
            `cannot resolve ${bare}: ${err instanceof Error ? err.message : String(err)}`,
            { cause: err },
          );
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
          baseConnect(
            { ...connectOptions, hostname: address, ...(servername === undefined ? {} : { servername }) },
            (err, socket) => {
              if (err !== null) tryAt(index + 1, err);
              else callback(null, socket);
            },
          );
        };
        tryAt(0, null);
      },
      (err: unknown) => callback(err as Error, null),
    );
  };

  const agent = new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 2000 });
  const deadlines = new RequestDeadlines(timeoutMs, options.signal);

  return {
    addressesOf,
    async send(spec, signal) {
      const inFlight = deadlines.start(signal);
      try {
        const headers: string[] = [];
        for (const header of spec.headers) headers.push(header.name, header.value);
        const response = await dispatchRequest(agent, spec, headers, bodyLimit, inFlight);
        return {
          request: spec,
          status: response.status,
          headers: response.headers,
          body: response.body,
          isTruncated: response.isTruncated,
        };
      } catch (err) {
        throw classifyFailure(err, timeoutMs, signal.aborted || options.signal.aborted);
      } finally {
        deadlines.finish(inFlight);
      }
    },
    async close() {
      deadlines.close();
      await agent.destroy().catch(() => undefined);
    },
  };
}
