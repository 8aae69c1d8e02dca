import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../shared/secret-box.ts';
import type { ServiceLogger } from '../shared/service-logger.ts';
import type { Team } from '../teams/team.types.ts';
import {
  ConnectorRunError,
  type ConnectorCollector,
  type ConnectorFailureKind,
  type ConnectorPorts,
  type ConnectorRunStore,
  type ProviderInventory,
} from './connector-run.types.ts';
import type { Connector, ConnectorRun } from './connector.types.ts';
import { connectorRunFinishedEvent, writeInventory, type InventoryCounts } from './connector-inventory.ts';

/**
 * Connector runs. A run reads the provider account through the engine's collector (outside any
 * transaction: it may take minutes), then writes everything it found in one transaction with the
 * run's outcome and its `connector.run_finished` event, so a run that fails or is cut off half
 * way leaves nothing but its state. Runs are durable jobs (jobs/connector-run.job.ts): requested
 * on create, daily and on demand; one queued or running per connector; a run cut off by a crash
 * or a stop runs again from the start (reading a provider changes nothing there).
 */

/** A connector's runs are due this long after the last was requested (daily). */
export const connectorRunIntervalMs = 24 * 3600 * 1000;
/** A run that has not finished reading the provider after this long fails. */
export const connectorRunTimeoutMs = 30 * 60 * 1000;
/** The longest `last_run.error` kept. */
const errorLimit = 500;

/** What runs need: the store, the server key's box, the engine's collector and the job queue. */
export interface ConnectorRunDeps {
  store: ConnectorRunStore;
  /** The assets' and zones' capabilities a run writes with. */
  ports: ConnectorPorts;
  box: SecretBox;
  collector: ConnectorCollector;
  /**
   * Enqueues the durable run job of a connector's request number `request`; a job of that request
   * already queued or running is not added again.
   */
  enqueueRun(teamId: number, connectorId: number, request: number): Promise<void>;
  log?: ServiceLogger;
  /** The time limit of one run (default connectorRunTimeoutMs). */
  runTimeoutMs?: number;
}

/**
 * Asks for a run of the connector now (on create, on demand): a new request, QUEUED, unless a run
 * is already queued or running, which then stands for this request (one at a time per
 * connector); either way the job of the connector's latest request is enqueued (idempotent). The
 * next daily run is due a day later. Answers the connector as it now reads.
 */
export async function requestConnectorRun(
  deps: Pick<ConnectorRunDeps, 'store' | 'enqueueRun'>,
  connector: Connector,
  at = new Date(),
): Promise<Connector> {
  const { teamId, id } = connector;
  await deps.store.connectors.setNextRun(teamId, id, new Date(at.getTime() + connectorRunIntervalMs));
  return queueAndEnqueue(deps, teamId, id);
}

async function queueAndEnqueue(
  deps: Pick<ConnectorRunDeps, 'store' | 'enqueueRun'>,
  teamId: number,
  id: number,
): Promise<Connector> {
  await deps.store.connectors.queueRun(teamId, id);
  const now = await deps.store.connectors.findForRun(teamId, id);
  if (now === undefined) throw new Error(`connector ${id} is gone`);
  await deps.enqueueRun(teamId, id, now.runRequests);
  return now;
}

/**
 * The scheduler's round: claims the connectors whose daily run is due (each once, however many
 * schedulers run) and queues a run of each; and queues again any run left QUEUED without a job
 * (requested in the instant its connector's previous job was closing). Answers how many daily
 * runs were queued.
 */
export async function fireDueConnectorRuns(
  deps: Pick<ConnectorRunDeps, 'store' | 'enqueueRun'>,
  now = new Date(),
): Promise<number> {
  const claimed = await deps.store.connectors.claimDue(now, new Date(now.getTime() + connectorRunIntervalMs), 100);
  for (const { teamId, id } of claimed) {
    if ((await deps.store.connectors.findForRun(teamId, id)) !== undefined) await queueAndEnqueue(deps, teamId, id);
  }
  // Enqueueing a request's job is idempotent: one whose job is pending is left as it is.
  for (const run of await deps.store.connectors.liveRuns('QUEUED'))
    await deps.enqueueRun(run.teamId, run.id, run.runRequests);
  return claimed.length;
}

/** How a run ended, for the job's log. */
export interface ConnectorRunOutcome {
  run: ConnectorRun;
  counts?: InventoryCounts;
}

/**
 * Runs a connector's request number `request`: RUNNING, read the account, then one transaction
 * with everything found, SUCCEEDED and the event; or FAILED with a clear, credential-free error
 * and the event. When the job's signal aborts (the queue stops, the lease is lost) the error is
 * thrown and the state stays RUNNING: the job runs again. Answers undefined, running nothing, for
 * a connector deleted before or a request that is not its latest (a stale job), and keeping
 * nothing (no asset, no event) for one deleted while the run read its provider.
 */
export async function runConnector(
  deps: ConnectorRunDeps,
  teamId: number,
  connectorId: number,
  request: number,
  signal: AbortSignal,
): Promise<ConnectorRunOutcome | undefined> {
  const { store } = deps;
  const connector = await store.connectors.findForRun(teamId, connectorId);
  const team = await store.teams.findById(teamId);
  if (connector === undefined || team === undefined || connector.runRequests !== request) return undefined;
  await store.connectors.setRun(teamId, connectorId, { status: 'RUNNING', error: '', completedAt: null });
  let options: Record<string, string> = {};
  let inventory: ProviderInventory;
  try {
    options = openOptions(deps.box, connector.optionsSealed);
    const externalId = await store.connectors.externalId(teamId, randomBytes(16).toString('hex'), new Date());
    const limit = AbortSignal.timeout(deps.runTimeoutMs ?? connectorRunTimeoutMs);
    inventory = await deps.collector.collect({
      provider: connector.provider,
      options,
      externalId,
      signal: AbortSignal.any([signal, limit]),
    });
  } catch (err) {
    if (signal.aborted) throw err;
    const failure = describeFailure(err, options, deps.runTimeoutMs ?? connectorRunTimeoutMs);
    deps.log?.warn({ connector: connector.publicId, kind: failure.kind }, 'connector run failed');
    const run = await finish(store, team, connector, failure.message);
    return run === undefined ? undefined : { run };
  }
  return store.transaction(async (tx) => {
    // Deleted while it read the provider: nothing of the run is kept (its assets would name a connector that is gone).
    if ((await tx.connectors.findForRun(teamId, connectorId)) === undefined) return undefined;
    const at = new Date();
    const counts = await writeInventory(tx, deps.ports, team, connector, inventory, at);
    const run: ConnectorRun = { status: 'SUCCEEDED', error: '', completedAt: at };
    await tx.connectors.setRun(teamId, connectorId, run);
    await tx.events.append([connectorRunFinishedEvent(connector, run, counts)]);
    return { run, counts };
  });
}

/** Records a failed run and its event, in one transaction; undefined when the connector was deleted meanwhile. */
async function finish(
  store: ConnectorRunStore,
  team: Team,
  connector: Connector,
  error: string,
): Promise<ConnectorRun | undefined> {
  return store.transaction(async (tx) => {
    if ((await tx.connectors.findForRun(team.id, connector.id)) === undefined) return undefined;
    const run: ConnectorRun = { status: 'FAILED', error, completedAt: new Date() };
    await tx.connectors.setRun(team.id, connector.id, run);
    await tx.events.append([connectorRunFinishedEvent(connector, run, undefined)]);
    return run;
  });
}

function openOptions(box: SecretBox, sealed: string): Record<string, string> {
  try {
    const parsed = JSON.parse(box.decrypt(sealed)) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string')) as Record<
        string,
        string
      >;
  } catch {
    // Falls through: the message must not say more (the text is a credential).
  }
  throw new ConnectorRunError(
    'options',
    "The connector's stored options cannot be opened with this server's key: create the connector again",
  );
}

/** A failure as `last_run.error`: its kind's words, and never an option value. */
export function describeFailure(
  err: unknown,
  options: Readonly<Record<string, string>>,
  timeoutMs: number,
): { kind: ConnectorFailureKind; message: string } {
  let kind: ConnectorFailureKind;
  let message: string;
  if (err instanceof ConnectorRunError) {
    kind = err.kind;
    message = err.message;
  } else if (err instanceof Error && err.name === 'TimeoutError') {
    kind = 'unreachable';
    message = `The run did not finish reading the provider within ${Math.round(timeoutMs / 60_000)} minutes`;
  } else {
    kind = 'provider';
    message = `The provider's answer could not be used (${err instanceof Error ? err.name : 'error'})`;
  }
  return { kind, message: redact(message, options).slice(0, errorLimit) };
}

/** Removes every option value (credentials) from a text, however it got there. */
function redact(text: string, options: Readonly<Record<string, string>>): string {
  let out = text;
  for (const value of Object.values(options)) {
    if (value.length >= 4) out = out.split(value).join('[redacted]');
  }
  return out;
}
