import { ConnectorRunError, type ConnectorCollector } from '../../core/connectors/connector-run.types.ts';
import type { ConnectorProvider } from '../../core/connectors/connector.types.ts';
import type { AddressResolver, EgressGuard } from '../net/egress-guard.ts';
import { guardedAgents } from '../net/guarded-agent.ts';
import { createGuardedFetch } from '../net/guarded-fetch.ts';
import type { ConnectorAdapter } from './connector-adapter.ts';
import { networkFailureOf } from './run-failures.ts';

/**
 * One adapter per provider value of the spec (docs/connectors.md names each provider), loaded on
 * a run's first use: each brings its provider's SDK, which a server without that connector never
 * needs to load.
 */
export const connectorAdapters: Readonly<Record<ConnectorProvider, () => Promise<ConnectorAdapter>>> = {
  CLOUD_A_ROLE_BASED: async () => (await import('./aws.adapter.ts')).awsRoleAdapter,
  CLOUD_A_CRED_BASED: async () => (await import('./aws.adapter.ts')).awsCredentialsAdapter,
  CLOUD_B: async () => (await import('./azure.adapter.ts')).azureAdapter,
  CLOUD_C: async () => (await import('./gcp.adapter.ts')).gcpAdapter,
  CDN_D: async () => (await import('./cloudflare.adapter.ts')).cloudflareAdapter,
  CLOUD_E: async () => (await import('./digitalocean.adapter.ts')).digitalOceanAdapter,
  CLOUD_F: async () => (await import('./oci.adapter.ts')).ociAdapter,
  REGISTRAR_G: async () => (await import('./godaddy.adapter.ts')).goDaddyAdapter,
  DNS_H: async () => (await import('./ns1.adapter.ts')).ns1Adapter,
};

/** What the collector is built with. */
export interface ConnectorEngineOptions {
  guard: EgressGuard;
  resolver: AddressResolver;
  /** The operator's API base URL per provider (PERIMETER_CONNECTOR_ENDPOINTS); absent: the provider's own. */
  endpoints: Readonly<Partial<Record<ConnectorProvider, string>>>;
  /** Time limit of one request (connect, headers, body), in milliseconds. */
  requestTimeoutMs: number;
  /** Adapters replacing the built-in ones (tests of the run pipeline). */
  adapters?: Partial<Record<ConnectorProvider, ConnectorAdapter>>;
}

/**
 * The engine side of connector runs: picks the provider's adapter, gives it the guarded HTTP
 * plumbing and the run's signal, and turns what escapes an adapter into a ConnectorRunError with
 * a plain message (a refused address, a connection that failed or timed out).
 */
export function createConnectorCollector(options: ConnectorEngineOptions): ConnectorCollector {
  const guarded = { guard: options.guard, resolver: options.resolver, timeoutMs: options.requestTimeoutMs };
  const fetch = createGuardedFetch(guarded);
  return {
    async collect(request) {
      const adapter = options.adapters?.[request.provider] ?? (await connectorAdapters[request.provider]());
      // Agents of a run of their own: the sockets an SDK keeps alive go with the run.
      const agents = guardedAgents(guarded);
      try {
        return await adapter.collect({
          options: request.options,
          externalId: request.externalId,
          signal: request.signal,
          endpoint: options.endpoints[request.provider],
          fetch,
          agents,
          requestTimeoutMs: options.requestTimeoutMs,
        });
      } catch (err) {
        throw asRunError(err, request.signal);
      } finally {
        agents.http.destroy();
        agents.https.destroy();
      }
    },
  };
}

/** What escaped an adapter, as a run error (an abort is passed on as it is). */
function asRunError(err: unknown, signal: AbortSignal): unknown {
  if (err instanceof ConnectorRunError) return err;
  if (signal.aborted) return signal.reason ?? err;
  const network = networkFailureOf(err);
  if (network?.kind === 'denied')
    return new ConnectorRunError(
      'unreachable',
      `The provider's address is refused by the egress guard (${network.denial?.reason ?? network.reason})`,
    );
  if (network?.kind === 'connection')
    return new ConnectorRunError('unreachable', `The provider could not be reached (${network.code})`);
  if (network?.kind === 'timeout') return new ConnectorRunError('unreachable', 'The provider did not answer in time');
  const name = err instanceof Error ? err.name : 'error';
  return new ConnectorRunError('provider', `The provider's answer could not be used (${name})`);
}
