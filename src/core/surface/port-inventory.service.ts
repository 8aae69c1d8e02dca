import { type InventoryPage, type InventoryPosition, type InventoryTimeFilter } from '../shared/inventory-list.ts';
import type { ServiceGuess } from './exposure-engines.ts';
import { canonicalIpAddress } from './ip-inventory.service.ts';
import { toPortService, type NewPort, type PortService, type PortStatus } from './port-inventory.types.ts';
import { chunksOf } from '../shared/chunks.ts';
import { diffInventory } from '../shared/inventory-diff.ts';
import { appendAssetEvents, portEvents, type PortChange } from './surface-events.ts';
import type { SurfaceStore } from './surface-run.types.ts';

/** What one completed monitoring run of a root asset found open. */
export interface PortRunInput {
  teamId: number;
  /** The root asset of the monitored domain. */
  assetId: number;
  /** When the run completed, epoch ms. */
  at: number;
  /** Every open (address, port) the run found, with a name that resolved to the address. */
  open: Array<{ address: string; port: number; domainName: string; service: ServiceGuess }>;
}

/** What recordRun changed. */
export interface PortRunSummary {
  /** (address, port) pairs recorded for the first time. */
  opened: number;
  /** CLOSED rows the run found open again. */
  reopened: number;
  /** OPEN rows of the asset the run no longer found open. */
  closed: number;
  /** Distinct (address, port) pairs the run found open (entries with no IP address or port dropped). */
  open: number;
}

/** The list filters of /ports beside the time filters. */
export interface PortListFilter extends InventoryTimeFilter {
  statuses?: PortStatus[] | undefined;
  ports?: number[] | undefined;
}

interface SeenPort {
  address: string;
  port: number;
  names: Set<string>;
  service: PortService;
}

/**
 * The port inventory of a team: every (address, port) a monitoring run found open, one row per
 * (root asset, address, port), OPEN while runs find it open and CLOSED (with `disappeared_at`)
 * once one does not.
 */
export class PortInventoryService {
  constructor(private readonly store: SurfaceStore) {}

  /**
   * Records one completed run of a root asset, in one transaction: new (address, port) pairs are
   * inserted OPEN (first seen now), CLOSED rows found open again become OPEN with
   * `disappeared_at` cleared (`first_seen_at` kept), OPEN rows of the asset the run did not find
   * open become CLOSED with `disappeared_at = at`, and the service fields of every row found open
   * take the latest guess. Only a completed run may call this: a partial run would close the rest.
   *
   * The row's `domain_name` is kept while that name still resolves to the address, else it
   * becomes the first (in sort order) of the names the run gave for it. The list version is
   * bumped only when something the list shows changed (not for last_seen_at or service fields).
   * A port.opened event is written for every new or reopened port and a port.closed event for
   * every port found closed, in the same transaction.
   */
  async recordRun(input: PortRunInput): Promise<PortRunSummary> {
    const at = new Date(input.at);
    const seen = groupByEndpoint(input.open);
    return this.store.transaction(async (tx) => {
      const existing = await tx.ports.listOfAsset(input.teamId, input.assetId);
      const diff = diffInventory(
        existing,
        seen,
        (row) => endpointKey(row.ipAddress, row.port),
        (row) => row.status === 'OPEN',
      );
      const fresh: NewPort[] = diff.fresh.map(({ seen: found }) => ({
        teamId: input.teamId,
        assetId: input.assetId,
        ipAddress: found.address,
        port: found.port,
        domainName: [...found.names].sort()[0]!,
        service: found.service,
        at,
      }));
      const opened: PortChange[] = fresh.map((p) => ({ ...p, host: p.domainName }));
      let renamed = 0;
      for (const { row, seen: found } of diff.again) {
        const domainName = found.names.has(row.domainName) ? row.domainName : [...found.names].sort()[0]!;
        if (row.status !== 'OPEN') opened.push({ ...row, host: domainName, service: found.service });
        if (domainName !== row.domainName) renamed += 1;
        if (domainName !== row.domainName || !sameService(row.service, found.service))
          await tx.ports.setDetails(input.teamId, row.id, domainName, found.service);
      }
      const openIds = diff.again.map(({ row }) => row.id);
      const closedIds = diff.gone.map((row) => row.id);
      const reopened = diff.returned;
      for (const part of chunksOf(fresh)) await tx.ports.insertMany(part);
      for (const part of chunksOf(openIds)) await tx.ports.markOpen(input.teamId, part, at);
      for (const part of chunksOf(closedIds)) await tx.ports.markClosed(input.teamId, part, at);
      if (fresh.length + reopened + renamed + closedIds.length > 0) await tx.ports.bumpVersion(input.teamId);
      const closed: PortChange[] = diff.gone.map((row) => ({ ...row, host: row.domainName }));
      const change = { teamId: input.teamId, assetId: input.assetId, at, count: opened.length + closed.length };
      await appendAssetEvents(tx, change, (base) => [
        ...portEvents('port.opened', base, opened),
        ...portEvents('port.closed', base, closed),
      ]);
      return { opened: fresh.length, reopened, closed: closedIds.length, open: seen.size };
    });
  }
}

/** The team's port list version, part of every cache key over its pages. */
export function portInventoryVersion(store: SurfaceStore, teamId: number): Promise<number> {
  return store.ports.version(teamId);
}

/** One page of the team's ports in (first_seen_at, id) order, after the given position. */
export async function listPorts(
  store: SurfaceStore,
  teamId: number,
  filter: PortListFilter,
  after: InventoryPosition | undefined,
  pageSize: number,
): Promise<InventoryPage> {
  const { statuses, ports, ...times } = filter;
  return store.ports.listPage({ teamId, filter: times, statuses, ports, after, limit: pageSize });
}

function endpointKey(address: string, port: number): string {
  return `${address} ${port}`;
}

function sameService(a: PortService, b: PortService): boolean {
  return (
    a.name === b.name &&
    a.isTls === b.isTls &&
    a.isHttp === b.isHttp &&
    a.banner === b.banner &&
    a.product === b.product &&
    a.version === b.version
  );
}

/** The distinct canonical (address, port) pairs of a run, each with its names (lower case, no final dot) and the first service guess. */
function groupByEndpoint(open: PortRunInput['open']): Map<string, SeenPort> {
  const seen = new Map<string, SeenPort>();
  for (const entry of open) {
    const address = canonicalIpAddress(entry.address);
    const name = entry.domainName.trim().toLowerCase().replace(/\.$/, '');
    if (address === undefined || name === '' || !Number.isInteger(entry.port) || entry.port < 0 || entry.port > 65535)
      continue;
    const key = endpointKey(address, entry.port);
    let found = seen.get(key);
    if (found === undefined)
      seen.set(key, (found = { address, port: entry.port, names: new Set(), service: toPortService(entry.service) }));
    found.names.add(name);
  }
  return seen;
}
