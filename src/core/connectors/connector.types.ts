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

/** The outcome of a connector's last run. No run is built yet, so every connector has none (null). */
export interface ConnectorRun {
  status: string;
  error: string;
  completedAt: Date;
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
}

/** A keyset position in the list order (created, id). */
export interface ConnectorPosition {
  created: number;
  id: number;
}

/** Persistence of connectors and external IDs. Every method is scoped to the given teams. */
export interface ConnectorRepository {
  insert(connector: Omit<Connector, 'id' | 'teamToken' | 'lastRun'>): Promise<Connector>;
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
}

/** The repositories of the connector services. */
export interface ConnectorRepositories extends TeamRepositories {
  connectors: ConnectorRepository;
}
