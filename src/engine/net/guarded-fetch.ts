import { fetch as undiciFetch } from 'undici';
import { guardedDispatcher, type GuardedClientOptions } from './guarded-dispatcher.ts';

/**
 * A fetch() for the few outbound requests the server makes on its own behalf (an OpenID
 * provider's discovery, keys and token endpoints): every connection resolves its host through
 * resolveGuarded() and dials a checked address, as the engines do, so a provider URL can never
 * reach an internal address the egress guard refuses. TLS certificates ARE validated (against the
 * host name): these are trusted services, not scanned sites. Redirects are not followed.
 */

/** What a guarded fetch needs. */
export type GuardedFetchOptions = GuardedClientOptions;

/** The fetch signature callers get (the request's own signal still ends it). */
export type GuardedFetch = (url: string, init: RequestInit) => Promise<Response>;

/** A fetch whose connections pass the egress guard (see the note at the top). */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const dispatcher = guardedDispatcher(options);
  return async (url, init) => {
    const response = await undiciFetch(url, {
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: 'manual',
      dispatcher,
    });
    return response as unknown as Response;
  };
}
