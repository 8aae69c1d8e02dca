import { request } from 'undici';
import { guardedDispatcher, type GuardedClientOptions } from './guarded-dispatcher.ts';

/**
 * A lean HTTP client for the server's own frequent requests (webhook deliveries): undici's
 * request() instead of fetch() (no WHATWG Request/Response/stream objects per request), over a
 * dispatcher built as createGuardedFetch builds its own: every connection resolves its host
 * through resolveGuarded() and dials a checked address, TLS names and checks the host, and
 * redirects are never followed (request() follows none).
 */

/** What a guarded request answers: the status and at most the first `excerptBytes` of the body. */
export interface GuardedAnswer {
  status: number;
  excerpt: string;
}

/** One request: method, headers, body and the caller's signal. */
export interface GuardedRequestInit {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** The signature callers get. */
export type GuardedRequest = (url: string, init: GuardedRequestInit) => Promise<GuardedAnswer>;

/** A request function whose connections pass the egress guard; reads at most `excerptBytes` of each answer. */
export function createGuardedRequest(options: GuardedClientOptions, excerptBytes = 1024): GuardedRequest {
  const dispatcher = guardedDispatcher(options);
  return async (url, init) => {
    const answer = await request(url, {
      method: init.method,
      headers: init.headers,
      ...(init.body === undefined ? {} : { body: init.body }),
      signal: init.signal,
      dispatcher,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of answer.body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.byteLength;
      // Leaving the loop destroys the rest of a long body (and its connection).
      if (size >= excerptBytes) break;
    }
    return { status: answer.statusCode, excerpt: Buffer.concat(chunks).subarray(0, excerptBytes).toString('utf8') };
  };
}
