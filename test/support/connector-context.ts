import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AgentOptions } from 'node:https';
import { ConnectorRunError } from '../../src/core/connectors/connector-run.types.ts';
import { EgressGuard, type AddressResolver } from '../../src/engine/net/egress-guard.ts';
import { createGuardedFetch } from '../../src/engine/net/guarded-fetch.ts';
import { guardedAgents, type GuardedAgents } from '../../src/engine/net/guarded-agent.ts';
import type { AdapterContext } from '../../src/engine/connectors/connector-adapter.ts';

/** Names resolve to loopback only: a test never asks the system resolver. */
const loopbackResolver: AddressResolver = {
  resolveAddresses: (name) => Promise.resolve(name === 'localhost' ? ['127.0.0.1'] : []),
};

/** The guard of the tests' contexts: loopback only, names resolved to loopback, 5 s time-outs. */
function loopbackClients(): { guard: EgressGuard; resolver: AddressResolver; timeoutMs: number } {
  return { guard: new EgressGuard(['127.0.0.0/8', '::1/128']), resolver: loopbackResolver, timeoutMs: 5000 };
}

/** Guarded agents opening loopback only, with TLS options (a local HTTPS server's CA, as an operator's CA would be). */
export function loopbackAgents(tls: AgentOptions = {}): GuardedAgents {
  return guardedAgents(loopbackClients(), tls);
}

/**
 * An adapter's context for a test: the given options and endpoint (a local provider server), the
 * egress guard opening loopback only, a 5 s request time-out and a run signal the test may abort.
 */
export function adapterContext(
  options: Record<string, string>,
  endpoint: string | undefined,
  overrides: Partial<AdapterContext> = {},
): AdapterContext {
  const guarded = loopbackClients();
  return {
    options,
    externalId: '0123456789abcdef0123456789abcdef',
    signal: AbortSignal.timeout(60_000),
    endpoint,
    fetch: createGuardedFetch(guarded),
    agents: guardedAgents(guarded),
    requestTimeoutMs: 5000,
    ...overrides,
  };
}

/** The same context with a guard that opens nothing: every connection must be refused. */
export function deniedContext(options: Record<string, string>, endpoint: string | undefined): AdapterContext {
  const guarded = { guard: new EgressGuard([]), resolver: loopbackResolver, timeoutMs: 5000 };
  return adapterContext(options, endpoint, { fetch: createGuardedFetch(guarded), agents: guardedAgents(guarded) });
}

/** A port on 127.0.0.1 that nothing listens on (a server opened and closed again): a connection is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The ConnectorRunError a collection fails with; the test fails when it succeeds or fails otherwise. */
export async function failureOf(run: Promise<unknown>): Promise<ConnectorRunError> {
  const err = await run.then(
    () => assert.fail('the run succeeded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConnectorRunError, `not a ConnectorRunError: ${String(err)}`);
  return err;
}
