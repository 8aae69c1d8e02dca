import type { TeamRepositories } from '../teams/team.types.ts';

/**
 * Terminology. A *connector* is a team's stored access to one cloud, CDN, registrar or DNS
 * provider account, from which a *run* would import assets. Its *options* are the credentials and
 * settings of that account: they are kept only sealed with the server key and never leave the
 * server. The *external ID* is one random value per team that a provider's role trust policy names,
 * so that only this team's role assumptions are accepted; every connector of the team reuses it.
 */

/** The providers of the spec, in its order. */
export const connectorProviders = [
  'CLOUD_A_ROLE_BASED',
  'CLOUD_A_CRED_BASED',
  'CLOUD_B',
  'CLOUD_C',
  'CDN_D',
  'CLOUD_E',
  'CLOUD_F',
  'REGISTRAR_G',
  'DNS_H',
] as const;

/** One provider of a connector. */
export type ConnectorProvider = (typeof connectorProviders)[number];

/**
 * The states of a connector's latest run (`last_run.status`): QUEUED (requested, waiting for a
 * worker), RUNNING, SUCCEEDED, FAILED (`error` says why). See docs/connectors.md.
 */
export const connectorRunStatuses = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED'] as const;

/** One state of a run. */
export type ConnectorRunStatus = (typeof connectorRunStatuses)[number];

/** The connector's latest run; null until its first run is requested. */
export interface ConnectorRun {
  status: ConnectorRunStatus;
  /** What went wrong (FAILED), else ''. Never contains a credential. */
  error: string;
  /** When the run ended; null while it is queued or running. */
  completedAt: Date | null;
}

/** What a connector's runs brought in: a zone, a name of its records, a host name, an address. */
export const connectorAssetKinds = ['zone', 'name', 'hostname', 'address'] as const;

/** One kind of what a connector's runs brought in. */
export type ConnectorAssetKind = (typeof connectorAssetKinds)[number];

/** One name or address a connector's runs saw; `gone` once a later run no longer saw it. */
export interface ConnectorAsset {
  name: string;
  kind: ConnectorAssetKind;
  source: string;
  firstSeen: Date;
  lastSeen: Date;
  /** When a run first no longer saw it; null while the provider still has it. */
  goneAt: Date | null;
}

/** A name or address seen by a run. */
export interface SeenConnectorAsset {
  name: string;
  kind: ConnectorAssetKind;
  source: string;
}

/** A connector as the core sees it; its options stay sealed (the repository never opens them). */
export interface Connector {
  id: number;
  /** The wire id: a random UUID. */
  publicId: string;
  teamId: number;
  /** The token of the team (`team_id` on the wire). */
  teamToken: string;
  name: string;
  provider: ConnectorProvider;
  /** The options as one JSON object, encrypted with the server key (SecretBox). */
  optionsSealed: string;
  created: Date;
  updated: Date;
  lastRun: ConnectorRun | null;
  /** Runs requested so far: the job of the latest request carries this number. */
  runRequests: number;
}

/** A keyset position in the list order (created, id). */
export interface ConnectorPosition {
  created: number;
  id: number;
}

/** Persistence of connectors and external IDs. Every method is scoped to the given teams. */
export interface ConnectorRepository {
  insert(connector: Omit<Connector, 'id' | 'teamToken' | 'lastRun' | 'runRequests'>): Promise<Connector>;
  /** Up to `limit` connectors of the teams after the position, in (created, id) order. */
  list(teamIds: number[], after: ConnectorPosition | undefined, limit: number): Promise<Connector[]>;
  findByPublicId(teamIds: number[], publicId: string): Promise<Connector | undefined>;
  /** False when no connector of the teams has that id. */
  delete(teamIds: number[], publicId: string): Promise<boolean>;
  /**
   * The team's external ID: `candidate` is stored unless the team has one already (insert or
   * ignore), then the stored one is read, so concurrent first requests all answer the same value.
   */
  externalId(teamId: number, candidate: string, at: Date): Promise<string>;
  /** A connector of the team by its row id (the run job's payload), or undefined when deleted. */
  findForRun(teamId: number, id: number): Promise<Connector | undefined>;
  /** Records the state of the connector's latest run. */
  setRun(teamId: number, id: number, run: ConnectorRun): Promise<void>;
  /**
   * Requests a run: QUEUED and one more request, in one statement that first checks no run is
   * queued or running (compare and set). False when one is: that run stands for the request.
   */
  queueRun(teamId: number, id: number): Promise<boolean>;
  /** Sets when the next daily run is due. */
  setNextRun(teamId: number, id: number, at: Date): Promise<void>;
  /**
   * Claims up to `limit` connectors whose daily run is due at `now` (next_run_at null or past):
   * each claimed one's next_run_at becomes `next` in the same statement that checks it is still
   * due, so two schedulers never claim one connector for the same day.
   */
  claimDue(now: Date, next: Date, limit: number): Promise<{ teamId: number; id: number }[]>;
  /**
   * Records what a run saw at `at`: each seen name is stored (first time) or refreshed (last
   * seen, no longer gone); every name of the connector that this run did not see and that was
   * not gone yet is marked gone at `at`. Answers how many were new and how many went.
   */
  recordAssets(
    teamId: number,
    id: number,
    seen: SeenConnectorAsset[],
    at: Date,
  ): Promise<{ added: number; gone: number }>;
  /** The connector's names and addresses, present ones first, then by kind and name; at most `limit`. */
  listAssets(teamId: number, id: number, limit: number): Promise<ConnectorAsset[]>;
  /** Connectors whose latest run is QUEUED or RUNNING (recovered at start: their jobs are enqueued again). */
  liveRuns(status?: 'QUEUED' | 'RUNNING'): Promise<{ teamId: number; id: number; runRequests: number }[]>;
  /** How many names and addresses the connector has, and how many of them are gone. */
  countAssets(teamId: number, id: number): Promise<{ total: number; gone: number }>;
}

/** The repositories of the connector services. */
export interface ConnectorRepositories extends TeamRepositories {
  connectors: ConnectorRepository;
}
