import type { Transactional } from '../shared/transactional.ts';
import type { NameIndexer } from '../surface/surface-run.types.ts';
import type { ApexAssetAdder, ZoneRepositories } from '../zones/zone-lookup.types.ts';
import type { DnsRecordInput } from '../zones/zone.types.ts';
import type { ConnectorProvider, ConnectorRepositories } from './connector.types.ts';

/**
 * What a connector run brings back from a provider account (the engine's observation; only the
 * core writes the store): DNS zones with their records, public IP addresses of compute and load
 * balancers, and host names (CDN, load balancers) that the provider serves for the account.
 */
export interface ProviderInventory {
  zones: ProviderZone[];
  addresses: ProviderAddress[];
  hostnames: ProviderHostname[];
}

/** A DNS zone of the account with its records (owner names absolute, RDATA in presentation form). */
export interface ProviderZone {
  /** The zone's apex, lower case, without the final dot. */
  name: string;
  records: DnsRecordInput[];
}

/** A public IP address of the account. */
export interface ProviderAddress {
  address: string;
  /** What holds it, for people: `ec2 instance i-0abc (eu-west-1)`, `public ip web-1`. */
  source: string;
}

/** A host name the provider serves for the account (a CDN hostname, a load balancer's name). */
export interface ProviderHostname {
  /** Lower case, without the final dot. */
  name: string;
  source: string;
}

/**
 * Why a run failed, as `last_run.error` says it: `credentials` (the provider refused them),
 * `permission` (accepted, but not allowed to list what the run reads), `throttled` (still
 * throttled after the SDK's retries), `unreachable` (no answer, a time-out, or the egress guard
 * refused the address), `options` (the stored options cannot be used, e.g. a key file that does
 * not parse), `provider` (any other error answer).
 */
export type ConnectorFailureKind = 'credentials' | 'permission' | 'throttled' | 'unreachable' | 'options' | 'provider';

/**
 * A run's failure, with a message meant for `last_run.error`: it says what went wrong and, where
 * useful, the provider's own error code, and never contains a credential (the core also removes
 * every option value from it before storing).
 */
export class ConnectorRunError extends Error {
  override readonly name = 'ConnectorRunError';

  constructor(
    readonly kind: ConnectorFailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** What the core asks of the engine: collect one account's inventory. */
export interface ConnectorCollector {
  collect(request: CollectRequest): Promise<ProviderInventory>;
}

/** One collection: the provider, its opened options, the team's external ID, the run's signal. */
export interface CollectRequest {
  provider: ConnectorProvider;
  options: Readonly<Record<string, string>>;
  externalId: string;
  signal: AbortSignal;
}

/** `connector.run_finished`, as the run appends it to the team event log. */
export interface ConnectorLogEntry {
  teamId: number;
  kind: 'connector.run_finished';
  occurredAt: Date;
  data: Record<string, unknown>;
}

/**
 * Port: the team event log, appended to in the run's transaction (the events area's
 * EventRepository implements it).
 */
export interface ConnectorEventLog {
  append(events: readonly ConnectorLogEntry[]): Promise<void>;
}

/** The repositories a run writes: its connector, the zones' (assets and names) and the event log. */
export type ConnectorRunRepositories = ConnectorRepositories & ZoneRepositories & { events: ConnectorEventLog };

/** The store as connector runs see it. */
export type ConnectorRunStore = Transactional<ConnectorRunRepositories>;

/**
 * What a run asks of the other areas, wired by the composition root: an asset added with the
 * rules of adding one by hand (the assets area), and records indexed as a zone upload's are (the
 * zones area).
 */
export interface ConnectorPorts {
  assets: ApexAssetAdder;
  names: NameIndexer;
}
