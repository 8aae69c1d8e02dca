import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { resolveGuarded, unbracketHost, type AddressResolver, type EgressGuard } from './egress-guard.ts';

/**
 * The connection side of the server's own outbound HTTP clients (guarded-fetch.ts for the few
 * fetch() callers, guarded-request.ts for webhook deliveries): every connection resolves its host
 * through resolveGuarded() and dials a checked address, as the engines do, so a URL can never
 * reach an internal address the egress guard refuses; TLS still names (and checks) the host.
 */

/** What a guarded client needs. */
export interface GuardedClientOptions {
  guard: EgressGuard;
  resolver: AddressResolver;
  /** Time limit of a connection and of each of headers and body, in milliseconds. */
  timeoutMs: number;
}

/** A dispatcher whose every connection passes the egress guard. */
export function guardedDispatcher(options: GuardedClientOptions): Agent {
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
  return new Agent({
    connect,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4000,
  });
}
