import type {
  BreachRecord,
  IpRecord,
  PortRecord,
  RunRecord,
  SurfaceCounts,
  SurfaceRecordRepository,
  TechnologyRecord,
} from './surface-record.types.ts';

/**
 * One record of the surface inventory with the records linked to it: an address with its ports
 * and the technologies seen on them, a breach with the inventory rows of its host, a run. The
 * console's detail pages read these; every read is scoped to the team, so another team's id and
 * an unknown one both answer undefined.
 */

/** The store as these reads see it. */
export interface SurfaceRecordStore {
  surfaceRecords: SurfaceRecordRepository;
}

/** An address, its ports, and the technologies seen on the (host name, port) pairs of those ports. */
export interface IpDetail {
  ip: IpRecord;
  ports: PortRecord[];
  technologies: TechnologyRecord[];
}

/** One address of the team with what links to it; undefined when the team has no such address. */
export async function ipAddressDetail(
  store: SurfaceRecordStore,
  teamId: number,
  id: number,
): Promise<IpDetail | undefined> {
  const ip = await store.surfaceRecords.findIp(teamId, id);
  if (ip === undefined) return undefined;
  const ports = await store.surfaceRecords.portsOfAddress(teamId, ip.assetId, ip.ipAddress);
  // A technology is recorded per (host name, port): it runs on this address when one of the
  // address's ports was recorded under that name and port.
  const pairs = new Set(ports.map((p) => `${p.domainName} ${p.port}`));
  const hosts = [...new Set([ip.domainName, ...ports.map((p) => p.domainName)])];
  const technologies = (await store.surfaceRecords.technologiesOfHosts(teamId, ip.assetId, hosts)).filter((t) =>
    pairs.has(`${t.domainName} ${t.port}`),
  );
  return { ip, ports, technologies };
}

/** A breach with the inventory of its host: the ports and technologies the policy was judged on. */
export interface BreachDetail {
  breach: BreachRecord;
  ports: PortRecord[];
  technologies: TechnologyRecord[];
  /** Inventory ids of the ports' addresses, to link to them. */
  ipIds: Map<string, number>;
}

/** One breach of the team with its host's inventory; undefined when the team has no such breach. */
export async function breachDetail(
  store: SurfaceRecordStore,
  teamId: number,
  id: number,
): Promise<BreachDetail | undefined> {
  const breach = await store.surfaceRecords.findBreach(teamId, id);
  if (breach === undefined) return undefined;
  const ports = await store.surfaceRecords.portsOfHost(teamId, breach.assetId, breach.assetName);
  const technologies = await store.surfaceRecords.technologiesOfHosts(teamId, breach.assetId, [breach.assetName]);
  const ipIds = await store.surfaceRecords.ipIdsOf(teamId, breach.assetId, [...new Set(ports.map((p) => p.ipAddress))]);
  return { breach, ports, technologies, ipIds };
}

/**
 * The inventory ids of these addresses in every root asset of the team, by `<asset token>
 * <address>` (a list page of ports links each port to its address with one read).
 */
export function addressIds(
  store: SurfaceRecordStore,
  teamId: number,
  addresses: string[],
): Promise<Map<string, number>> {
  return store.surfaceRecords.ipIdsByAsset(teamId, [...new Set(addresses)]);
}

/** A page of the team's monitoring runs, newest first, and whether older ones follow. */
export async function listRuns(
  store: SurfaceRecordStore,
  teamId: number,
  query: { assetId?: number; beforeId?: number; limit: number },
): Promise<{ runs: RunRecord[]; hasMore: boolean }> {
  const rows = await store.surfaceRecords.runsPage(teamId, { ...query, limit: query.limit + 1 });
  return { runs: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

/** One monitoring run of the team; undefined when the team has no such run. */
export function findRun(store: SurfaceRecordStore, teamId: number, id: number): Promise<RunRecord | undefined> {
  return store.surfaceRecords.findRun(teamId, id);
}

/** How much of each inventory the team has, and how much is live. */
export function surfaceCounts(store: SurfaceRecordStore, teamId: number): Promise<SurfaceCounts> {
  return store.surfaceRecords.counts(teamId);
}
