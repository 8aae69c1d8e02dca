import type { Breach } from '../policies/breach.types.ts';
import type { PortStateRow } from './port-inventory.types.ts';
import type { TechnologyStateRow } from './technology-inventory.types.ts';
import type { IpVersion } from './ip-inventory.types.ts';
import type { SurfaceRunListing } from './surface-run.types.ts';

/**
 * Single records of the surface inventory and the runs that built it, as the console reads them
 * (one address, one breach, one run, the rows around them). The v3 lists page through the same
 * tables (ip-inventory, port-inventory, technology-inventory, breach); these reads fetch one
 * record by id, always within one team, so another team's id finds nothing.
 */

/** The root asset a record belongs to, by its v2 token and name. */
export interface RecordAsset {
  assetId: number;
  assetToken: string;
  assetName: string;
}

/** One address of the IP inventory with its offline enrichment. */
export interface IpRecord extends RecordAsset {
  id: number;
  ipAddress: string;
  ipVersion: IpVersion;
  domainName: string;
  active: boolean;
  enriched: boolean;
  firstSeenAt: Date;
  disappearedAt: Date | null;
  asNumber: number | null;
  asName: string | null;
  country: string | null;
  countryName: string | null;
  continentName: string | null;
}

/** One (address, port) of the port inventory. */
export interface PortRecord extends PortStateRow {
  firstSeenAt: Date;
  disappearedAt: Date | null;
}

/** One technology of the technology inventory. */
export interface TechnologyRecord extends TechnologyStateRow {
  firstSeenAt: Date;
  disappearedAt: Date | null;
}

/** One policy breach, with its root asset's token and name (`assetName` is the host in breach). */
export type BreachRecord = Breach & { assetToken: string; rootName: string };

/** One monitoring run, with its root asset's token. */
export type RunRecord = SurfaceRunListing & { assetToken: string };

/** Counts stop past this: an index says "10,000+" rather than walk a huge inventory. */
export const surfaceCountCap = 10_000;

/** How much of each inventory a team has, and how much of it is live now. */
export interface SurfaceCounts {
  ips: { total: number; active: number };
  ports: { total: number; open: number };
  technologies: { total: number; active: number };
  breaches: { total: number; open: number };
  runs: number;
}

/** Reads of single surface records. Every method is scoped to a team. */
export interface SurfaceRecordRepository {
  findIp(teamId: number, id: number): Promise<IpRecord | undefined>;
  /** The ports (open or closed) of one address of one root asset, by port number. */
  portsOfAddress(teamId: number, assetId: number, ipAddress: string): Promise<PortRecord[]>;
  /** The ports (open or closed) recorded under one host name of one root asset. */
  portsOfHost(teamId: number, assetId: number, domainName: string): Promise<PortRecord[]>;
  /** The technologies of one root asset seen on these host names. */
  technologiesOfHosts(teamId: number, assetId: number, domainNames: string[]): Promise<TechnologyRecord[]>;
  /** The ids of these addresses of one root asset, by address. */
  ipIdsOf(teamId: number, assetId: number, ipAddresses: string[]): Promise<Map<string, number>>;
  /** The ids of these addresses across the team's root assets, by `<asset token> <address>`. */
  ipIdsByAsset(teamId: number, ipAddresses: string[]): Promise<Map<string, number>>;
  findBreach(teamId: number, id: number): Promise<BreachRecord | undefined>;
  /** Runs newest first, of one root asset or of all, with ids below `beforeId` when given. */
  runsPage(teamId: number, query: { assetId?: number; beforeId?: number; limit: number }): Promise<RunRecord[]>;
  findRun(teamId: number, id: number): Promise<RunRecord | undefined>;
  counts(teamId: number): Promise<SurfaceCounts>;
}
