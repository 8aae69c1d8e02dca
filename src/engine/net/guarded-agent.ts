import http from 'node:http';
import https from 'node:https';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Duplex } from 'node:stream';
import { refuseLookup, resolveGuarded, unbracketHost } from './egress-guard.ts';
import type { GuardedClientOptions } from './guarded-dispatcher.ts';

/**
 * Node `http.Agent`s for the SDKs that speak through Node's own http/https modules (the cloud
 * providers' official clients): every connection resolves its host through resolveGuarded() and
 * dials a checked address, as guarded-dispatcher.ts does for undici, so an SDK can never reach an
 * address the egress guard refuses, an IP literal included (Node would not call a `lookup` for
 * one). TLS still names (and checks) the host.
 */

/** The two agents an SDK's HTTP handler takes. */
export interface GuardedAgents {
  http: http.Agent;
  https: https.Agent;
}

type ConnectionCallback = (err: Error | null, stream: Duplex) => void;

interface ConnectOptions {
  host?: string | null;
  hostname?: string | null;
  port?: number | string | null;
  servername?: string;
}

/** Opens a connection to the first checked address that answers, then hands it to the agent. */
function connectGuarded(
  options: ConnectOptions,
  guarded: GuardedClientOptions,
  dial: (address: string, servername: string | undefined) => Socket,
  readyEvent: 'connect' | 'secureConnect',
  callback: ConnectionCallback,
): void {
  const name = unbracketHost(String(options.hostname ?? options.host ?? 'localhost'));
  resolveGuarded(name, guarded.guard, guarded.resolver, AbortSignal.timeout(guarded.timeoutMs)).then(
    (addresses) => {
      const tryAt = (index: number, lastError: Error | null): void => {
        const address = addresses[index];
        if (address === undefined) {
          callback(lastError ?? new Error(`${name} has no address`), undefined as unknown as Duplex);
          return;
        }
        const socket = dial(address, isIP(name) === 0 ? name : undefined);
        const timer = setTimeout(() => socket.destroy(new Error(`connection to ${name} timed out`)), guarded.timeoutMs);
        const onError = (err: Error) => {
          clearTimeout(timer);
          tryAt(index + 1, err);
        };
        socket.once('error', onError);
        socket.once(readyEvent, () => {
          clearTimeout(timer);
          socket.off('error', onError);
          callback(null, socket);
        });
      };
      tryAt(0, null);
    },
    (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), undefined as unknown as Duplex),
  );
}

class GuardedHttpAgent extends http.Agent {
  constructor(private readonly guarded: GuardedClientOptions) {
    super({ keepAlive: true, timeout: guarded.timeoutMs });
  }

  override createConnection(options: ConnectOptions, callback?: ConnectionCallback): Duplex | undefined {
    connectGuarded(
      options,
      this.guarded,
      (address) => netConnect({ host: address, port: Number(options.port ?? 80), lookup: refuseLookup }),
      'connect',
      callback ?? (() => undefined),
    );
    return undefined;
  }
}

class GuardedHttpsAgent extends https.Agent {
  constructor(
    private readonly guarded: GuardedClientOptions,
    tls: https.AgentOptions,
  ) {
    super({ ...tls, keepAlive: true, timeout: guarded.timeoutMs });
  }

  override createConnection(options: ConnectOptions & https.RequestOptions, callback?: ConnectionCallback) {
    connectGuarded(
      options,
      this.guarded,
      (address, servername) =>
        tlsConnect({
          ...(options as object),
          host: address,
          port: Number(options.port ?? 443),
          lookup: refuseLookup,
          ...(servername === undefined ? {} : { servername }),
        }),
      'secureConnect',
      callback ?? (() => undefined),
    );
    return undefined as unknown as Duplex;
  }
}

/**
 * Agents whose every connection passes the egress guard. `tls` adds TLS settings of the https
 * agent (a `ca` an operator trusts for a provider endpoint); certificates are always verified.
 */
export function guardedAgents(options: GuardedClientOptions, tls: https.AgentOptions = {}): GuardedAgents {
  return { http: new GuardedHttpAgent(options), https: new GuardedHttpsAgent(options, tls) };
}
