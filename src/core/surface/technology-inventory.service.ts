import { type InventoryPage, type InventoryPosition, type InventoryTimeFilter } from '../shared/inventory-list.ts';
import type { NewTechnology } from './technology-inventory.types.ts';
import { chunksOf } from '../shared/chunks.ts';
import { diffInventory } from '../shared/inventory-diff.ts';
import { appendAssetEvents, technologyEvents } from './surface-events.ts';
import type { SurfaceStore } from './surface-run.types.ts';

/** What one completed monitoring run of a root asset fingerprinted. */
export interface TechnologyRunInput {
  teamId: number;
  /** The root asset of the monitored domain. */
  assetId: number;
  /** When the run completed, epoch ms. */
  at: number;
  seen: Array<{
    domainName: string;
    port: number;
    serviceProtocol: string;
    name: string;
    version: string | null;
    categories: string[];
  }>;
}

/** What recordRun changed. */
export interface TechnologyRunSummary {
  /** Technologies recorded for the first time. */
  added: number;
  /** Technologies seen again after they had disappeared. */
  returned: number;
  /** Active technologies of the asset the run no longer saw. */
  disappeared: number;
  /** Distinct technologies the run saw (entries with no name, host or valid port dropped). */
  seen: number;
}

type SeenTechnology = Omit<NewTechnology, 'teamId' | 'assetId' | 'at'>;

/**
 * The technology inventory of a team: every technology fingerprinting saw on a host of a
 * monitored asset, one row per (root asset, host name, port, technology, version), active while
 * runs see it, with `disappeared_at` once one does not.
 */
export class TechnologyInventoryService {
  constructor(private readonly store: SurfaceStore) {}

  /**
   * Records one completed run of a root asset, in one transaction: new technologies are inserted
   * active (first seen now), technologies seen again become active (a returning one gets
   * `disappeared_at` cleared and keeps `first_seen_at`), active technologies of the asset the run
   * did not see become inactive with `disappeared_at = at`, and protocol and categories take the
   * latest run's. A new version is a new row (the old one disappears). Only a completed run may
   * call this. The list version is bumped only when something the list shows changed. A
   * technology.discovered event is written for every new row (a technology, or a version of
   * one, the inventory did not hold), in the same transaction.
   */
  async recordRun(input: TechnologyRunInput): Promise<TechnologyRunSummary> {
    const at = new Date(input.at);
    const seen = groupByIdentity(input.seen);
    return this.store.transaction(async (tx) => {
      const existing = await tx.technologies.listOfAsset(input.teamId, input.assetId);
      const diff = diffInventory(existing, seen, identityKey, (row) => row.active);
      const fresh: NewTechnology[] = diff.fresh.map(({ seen: found }) => ({
        ...found,
        teamId: input.teamId,
        assetId: input.assetId,
        at,
      }));
      let changed = 0;
      for (const { row, seen: found } of diff.again) {
        if (row.serviceProtocol === found.serviceProtocol && row.categories.join('\n') === found.categories.join('\n'))
          continue;
        await tx.technologies.setDetails(input.teamId, row.id, found.serviceProtocol, found.categories);
        changed += 1;
      }
      const seenIds = diff.again.map(({ row }) => row.id);
      const goneIds = diff.gone.map((row) => row.id);
      const { returned } = diff;
      for (const part of chunksOf(fresh)) await tx.technologies.insertMany(part);
      for (const part of chunksOf(seenIds)) await tx.technologies.markSeen(input.teamId, part, at);
      for (const part of chunksOf(goneIds)) await tx.technologies.markDisappeared(input.teamId, part, at);
      if (fresh.length + returned + changed + goneIds.length > 0) await tx.technologies.bumpVersion(input.teamId);
      const change = { teamId: input.teamId, assetId: input.assetId, at, count: fresh.length };
      await appendAssetEvents(tx, change, (base) => technologyEvents(base, fresh));
      return { added: fresh.length, returned, disappeared: goneIds.length, seen: seen.size };
    });
  }
}

/** The team's technology list version, part of every cache key over its pages. */
export function technologyInventoryVersion(store: SurfaceStore, teamId: number): Promise<number> {
  return store.technologies.version(teamId);
}

/** One page of the team's technologies in (first_seen_at, id) order, after the given position. */
export async function listTechnologies(
  store: SurfaceStore,
  teamId: number,
  filter: InventoryTimeFilter,
  after: InventoryPosition | undefined,
  pageSize: number,
): Promise<InventoryPage> {
  return store.technologies.listPage({ teamId, filter, after, limit: pageSize });
}

/** The identity of a row within its asset; a null version differs from every string. */
function identityKey(row: { domainName: string; port: number; name: string; version: string | null }): string {
  return JSON.stringify([row.domainName, row.port, row.name, row.version]);
}

/**
 * The distinct technologies of a run: host names lower case without a final dot, an empty
 * version read as none, categories distinct in first-seen order (several sightings of one
 * technology pool their categories; the first gives the protocol).
 */
function groupByIdentity(seen: TechnologyRunInput['seen']): Map<string, SeenTechnology> {
  const out = new Map<string, SeenTechnology>();
  for (const entry of seen) {
    const domainName = entry.domainName.trim().toLowerCase().replace(/\.$/, '');
    const name = entry.name.trim();
    const version = entry.version === null || entry.version.trim() === '' ? null : entry.version.trim();
    if (domainName === '' || name === '' || !Number.isInteger(entry.port) || entry.port < 0 || entry.port > 65535)
      continue;
    const technology = { domainName, port: entry.port, name, version };
    const key = identityKey(technology);
    const found = out.get(key);
    if (found === undefined)
      out.set(key, {
        ...technology,
        serviceProtocol: entry.serviceProtocol,
        categories: [...new Set(entry.categories)],
      });
    else found.categories = [...new Set([...found.categories, ...entry.categories])];
  }
  return out;
}
