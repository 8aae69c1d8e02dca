import type { AssetRepository } from '../assets/asset.types.ts';
import type { EventRepositories } from '../events/event.types.ts';
import type { PolicySeverity } from './policy-catalogue.ts';
import type { InventoryPosition, InventoryTimeFilter } from '../shared/inventory-list.ts';
import type { Transactional } from '../shared/transactional.ts';

/**
 * Breach status as v3 writes it: `NEW` while the policy is breached (from the run that first
 * found it, and again from a run that finds it back), `RESOLVED` once a run no longer does. The
 * spec names NEW and leaves the rest to the service.
 */
export type BreachStatus = 'NEW' | 'RESOLVED';

/** Every breach status, in the order the API documents them. */
export const breachStatuses: readonly BreachStatus[] = ['NEW', 'RESOLVED'];

/** A stored breach, as the core and the list read it. */
export interface Breach {
  id: number;
  teamId: number;
  /** The root asset whose inventory breaches the policy. */
  assetId: number;
  policyId: string;
  policyName: string;
  /** The host name in breach. */
  assetName: string;
  severity: PolicySeverity;
  /** What breached it in the latest run that found it (a port or a technology). */
  evidence: string;
  status: BreachStatus;
  /** True exactly while status is NEW. */
  active: boolean;
  firstSeenAt: Date;
  lastSeenAt: Date;
  statusUpdatedAt: Date;
  disappearedAt: Date | null;
}

/** A breach to insert: NEW, first seen and status updated at `at`. */
export type NewBreach = Pick<
  Breach,
  'teamId' | 'assetId' | 'policyId' | 'policyName' | 'assetName' | 'severity' | 'evidence'
> & { at: Date };

/** The list filters of /breaches: the inventory time filters and the status-update bounds (exclusive). */
export interface BreachListFilter extends InventoryTimeFilter {
  statusUpdatedBefore?: Date;
  statusUpdatedAfter?: Date;
  /** Only breaches with one of these statuses (an extension of perimeter: `status`). */
  statuses?: BreachStatus[] | undefined;
}

/** One page of the list: the breaches and, when more follow, the position of the last one. */
export interface BreachPage {
  items: Breach[];
  /** Asset and team tokens of the page's breaches, by asset id. */
  tokens: Map<number, { assetToken: string; teamToken: string }>;
  next: InventoryPosition | undefined;
}

/** Persistence of breaches. Every method is scoped to a team. */
export interface BreachRepository {
  /** Every breach of one root asset, open or resolved. */
  listOfAsset(teamId: number, assetId: number): Promise<Breach[]>;
  /** Inserts new NEW breaches; a (asset, policy, host) the asset already has is left alone. Answers the rows inserted. */
  insertMany(rows: NewBreach[]): Promise<Breach[]>;
  /** A run found these breaches (still) breached: last_seen_at = at. */
  markSeen(teamId: number, ids: number[], at: Date): Promise<void>;
  /** Resolved breaches a run found breached again: NEW, active, status updated at `at`, disappeared_at cleared. */
  markReturned(teamId: number, ids: number[], at: Date): Promise<void>;
  /** Replaces what breaches one breach (the latest run's port or technology). */
  setEvidence(teamId: number, id: number, evidence: string): Promise<void>;
  /** A run no longer found these breached: RESOLVED, inactive, disappeared and status updated at `at`. */
  markResolved(teamId: number, ids: number[], at: Date): Promise<void>;
  /** One page of the team's breaches in (first_seen_at, id) order after `after`, `limit` at most. */
  listPage(query: {
    teamId: number;
    filter: BreachListFilter;
    after: InventoryPosition | undefined;
    limit: number;
  }): Promise<BreachPage>;
}

/** A port of the inventory as the policies read it (the surface area's port rows carry these fields). */
export interface PolicyPortRow {
  ipAddress: string;
  port: number;
  domainName: string;
  status: string;
  service: { name: string; isTls: boolean; isHttp: boolean };
}

/** A technology of the inventory as the policies read it (the surface area's technology rows carry these fields). */
export interface PolicyTechnologyRow {
  domainName: string;
  port: number;
  name: string;
  version: string | null;
  categories: string[];
  active: boolean;
}

/** What appending an evaluation's events works with inside its transaction: the log and the asset read. */
export type BreachEventRepositories = EventRepositories & { assets: Pick<AssetRepository, 'findById'> };

/**
 * The repositories breach evaluation works with: the breaches, the inventory it reads (one root
 * asset's rows), and the event log with the asset read its events need.
 */
export interface BreachRepositories extends BreachEventRepositories {
  breaches: BreachRepository;
  ports: { listOfAsset(teamId: number, assetId: number): Promise<PolicyPortRow[]> };
  technologies: { listOfAsset(teamId: number, assetId: number): Promise<PolicyTechnologyRow[]> };
}

/** The store as breach evaluation sees it. */
export type BreachStore = Transactional<BreachRepositories>;
