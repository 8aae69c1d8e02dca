import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { type InventoryPage, type InventoryPosition, type InventoryTimeFilter } from '../shared/inventory-list.ts';
import type { IpEnricher, IpVersion, NewIpAddress } from './ip-inventory.types.ts';
import { chunksOf } from '../shared/chunks.ts';
import { diffInventory } from '../shared/inventory-diff.ts';
import type { SurfaceStore } from './surface-run.types.ts';

/** What one monitoring run of a root asset saw: every (name, address) pair it resolved. */
export interface IpRunInput {
  teamId: number;
  /** The root asset of the monitored domain. */
  assetId: number;
  seen: Array<{ name: string; address: string }>;
  /** When the run completed, epoch ms. */
  at: number;
}

/** What recordRun changed. */
export interface IpRunSummary {
  /** Addresses recorded for the first time. */
  added: number;
  /** Addresses seen again after they had disappeared. */
  returned: number;
  /** Addresses the run no longer saw. */
  disappeared: number;
  /** Distinct addresses the run saw. */
  seen: number;
  /** Pairs whose address is not an IP address (dropped). */
  ignored: number;
}

/**
 * The IP inventory of a team: every address a monitored name resolves to, one row per (root
 * asset, address), active while seen, with `disappeared_at` once a run no longer sees it.
 */
export class IpInventoryService {
  constructor(
    private readonly store: SurfaceStore,
    private readonly enricher: IpEnricher,
  ) {}

  /**
   * Records one completed monitoring run of a root asset, in one transaction: new addresses
   * are inserted (active, first seen now, enriched from the offline data), addresses seen again
   * become active (a returning one gets `disappeared_at` cleared and keeps `first_seen_at`),
   * and active addresses of the asset the run did not see become inactive with
   * `disappeared_at = at`. Only a run that completed may call this: an aborted or failed run
   * saw only part of the asset, and recording it would mark the rest as disappeared.
   *
   * When several names of the asset resolve to one address there is still one row: its
   * `domain_name` is kept while that name still resolves to the address, else it becomes the
   * first of the names that do (in sort order), so it always names a name seen by the last run.
   */
  async recordRun(input: IpRunInput): Promise<IpRunSummary> {
    const at = new Date(input.at);
    const { names, ignored } = groupByAddress(input.seen);
    await this.enricher.prepare();
    return this.store.transaction(async (tx) => {
      const existing = await tx.ipAddresses.listOfAsset(input.teamId, input.assetId);
      const diff = diffInventory(
        existing,
        names,
        (row) => row.ipAddress,
        (row) => row.active,
      );
      const fresh: NewIpAddress[] = diff.fresh.map(({ key: address, seen: seenNames }) => ({
        teamId: input.teamId,
        assetId: input.assetId,
        ipAddress: address,
        ipVersion: versionOf(address),
        domainName: [...seenNames].sort()[0]!,
        at,
        enrichment: this.enricher.enrich(address),
      }));
      let renamed = 0;
      for (const { row, seen: seenNames } of diff.again) {
        if (seenNames.has(row.domainName)) continue;
        await tx.ipAddresses.setDomainName(input.teamId, row.id, [...seenNames].sort()[0]!);
        renamed += 1;
      }
      const seenIds = diff.again.map(({ row }) => row.id);
      const goneIds = diff.gone.map((row) => row.id);
      const { returned } = diff;
      for (const part of chunksOf(fresh)) await tx.ipAddresses.insertMany(part);
      for (const part of chunksOf(seenIds)) await tx.ipAddresses.markSeen(input.teamId, part, at);
      for (const part of chunksOf(goneIds)) await tx.ipAddresses.markDisappeared(input.teamId, part, at);
      // last_seen_at is not shown on the wire: a run that changed nothing else keeps cached pages valid.
      if (fresh.length + returned + renamed + goneIds.length > 0) await tx.ipAddresses.bumpVersion(input.teamId);
      return { added: fresh.length, returned, disappeared: goneIds.length, seen: names.size, ignored };
    });
  }
}

/** The team's inventory version, part of every cache key over its list pages. */
export function ipInventoryVersion(store: SurfaceStore, teamId: number): Promise<number> {
  return store.ipAddresses.version(teamId);
}

/** One page of the team's addresses in (first_seen_at, id) order, after the given position. */
export async function listIpAddresses(
  store: SurfaceStore,
  teamId: number,
  filter: InventoryTimeFilter,
  after: InventoryPosition | undefined,
  pageSize: number,
): Promise<InventoryPage> {
  return store.ipAddresses.listPage({ teamId, filter, after, limit: pageSize });
}

/** Canonical text of an IP address (dotted quad, RFC 5952 IPv6), or undefined when it is not one (as node's isIP judges). */
export function canonicalIpAddress(text: string): string | undefined {
  const trimmed = text.trim();
  // isIP reads addresses as a socket does (no `127.1`); a zone index names no address of the internet.
  if (isIP(trimmed) === 0 || trimmed.includes('%')) return undefined;
  const parsed = ipaddr.parse(trimmed);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  // RFC 5952 §5: an IPv4-mapped address keeps its dotted quad.
  return v6.isIPv4MappedAddress() ? `::ffff:${v6.toIPv4Address().toString()}` : v6.toRFC5952String();
}

function versionOf(address: string): IpVersion {
  return address.includes(':') ? 'IPv6' : 'IPv4';
}

/** The distinct canonical addresses of a run, each with the names (lower case, no final dot) that resolved to it. */
function groupByAddress(seen: IpRunInput['seen']): { names: Map<string, Set<string>>; ignored: number } {
  const names = new Map<string, Set<string>>();
  let ignored = 0;
  for (const pair of seen) {
    const address = canonicalIpAddress(pair.address);
    const name = pair.name.trim().toLowerCase().replace(/\.$/, '');
    if (address === undefined || name === '') {
      ignored += 1;
      continue;
    }
    let set = names.get(address);
    if (set === undefined) names.set(address, (set = new Set()));
    set.add(name);
  }
  return { names, ignored };
}
