import type { GuardedFetch } from '../net/guarded-fetch.ts';
import type { GuardedAgents } from '../net/guarded-agent.ts';
import type { ConnectorProvider } from '../../core/connectors/connector.types.ts';
import type { ProviderInventory } from '../../core/connectors/connector-run.types.ts';

/**
 * One provider's adapter: it reads the account through the provider's official SDK (or its
 * documented REST API through undici where none exists) and reports what it found. Every
 * connection goes through the egress guard (`fetch` or `agents`, never a client of its own), the
 * run's signal aborts it, and each request has a time-out. Failures are ConnectorRunErrors with
 * credential-free messages.
 */
export interface ConnectorAdapter {
  provider: ConnectorProvider;
  collect(context: AdapterContext): Promise<ProviderInventory>;
}

/** What an adapter runs with. */
export interface AdapterContext {
  /** The connector's options, opened (see docs/connectors.md for each provider's fields). */
  options: Readonly<Record<string, string>>;
  /** The team's external ID (role assumption). */
  externalId: string;
  /** Aborted when the run must stop (the job's signal, or the run's overall time limit). */
  signal: AbortSignal;
  /**
   * The operator's base URL for this provider's API (PERIMETER_CONNECTOR_ENDPOINTS: a sovereign
   * cloud, a proxy, the tests' local provider server), or undefined for the provider's own.
   */
  endpoint: string | undefined;
  /** undici fetch through the egress guard (redirects not followed), for SDKs that take a fetch and for REST. */
  fetch: GuardedFetch;
  /** Node agents through the egress guard, for SDKs built on Node's http/https. */
  agents: GuardedAgents;
  /** Time limit of one request, in milliseconds. */
  requestTimeoutMs: number;
}
