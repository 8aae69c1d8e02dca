import { isIP } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { resolveGuarded, unbracketHost, type AddressResolver, type EgressGuard } from './egress-guard.ts';

/**
 * A fetch() for the few outbound requests the server makes on its own behalf (an OpenID
 * provider's discovery, keys and token endpoints): every connection resolves its host through
 * resolveGuarded() and dials a checked address, as the engines do, so a provider URL can never
 * reach an internal address the egress guard refuses. TLS certificates ARE validated (against the
 * host name): these are trusted services, not scanned sites. Redirects are not followed.
 */

/** What a guarded fetch needs. */
export interface GuardedFetchOptions {
  guard: EgressGuard;
  resolver: AddressResolver;
  /** Time limit of a connection and of each of headers and body, in milliseconds. */
  timeoutMs: number;
}

/** The fetch signature callers get (the request's own signal still ends it). */
export type GuardedFetch = (url: string, init: RequestInit) => Promise<Response>;

/** A fetch whose connections pass the egress guard (see the note at the top). */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const baseConnect = buildConnector({ timeout: options.timeoutMs });
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const name = unbracketHost(connectOptions.hostname);
    resolveGuarded(name, options.guard, options.resolver, AbortSignal.timeout(options.timeoutMs)).then(
      (addresses) => {
        const tryAt = (index: number, lastError: Error | null): void => {
          const address = addresses[index];
          if (address === undefined) {
            callback(lastError ?? new Error(`${name} has no address`), null);
            return;
          }
          // The socket dials the checked address; TLS still names (and checks) the host.
          const servername = isIP(name) === 0 ? name : undefined;
          baseConnect(
            { ...connectOptions, hostname: address, ...(servername === undefined ? {} : { servername }) },
            (err, socket) => (err !== null ? tryAt(index + 1, err) : callback(null, socket)),
          );
        };
        tryAt(0, null);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
    );
  };
  const dispatcher = new Agent({
    connect,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4000,
  });
  return async (url, init) => {
    const response = await undiciFetch(url, {
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: 'manual',
      dispatcher,
    });
    return response as unknown as Response;
  };
}
