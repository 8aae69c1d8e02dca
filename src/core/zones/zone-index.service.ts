import type { Team } from '../teams/team.types.ts';
import { ownerName } from './dns-names.ts';
import { RootMatcher } from './root-matcher.ts';
import type { RootDomain, ZoneSource } from '../assets/asset.types.ts';
import type { DnsRecordInput, IndexedName } from './zone.types.ts';
import type { ZoneRepositories } from './zone-lookup.types.ts';

/** A stream of records in batches (a zone file's or a transfer's, as the engine yields them). */
export type RecordBatches = AsyncIterable<readonly DnsRecordInput[]> | Iterable<readonly DnsRecordInput[]>;

/** Names written per statement batch. */
export const indexBatchSize = 1000;
/** A run of at least this many names is large: it reads the team's asset names once, and it
 * refreshes the planner's statistics once committed. */
export const largeIndexRun = 10_000;
/** Teams with at most this many assets have their asset names read once per run, not per batch. */
const assetNamesInMemory = 20_000;

/** Normalises an owner name: lowercase, no trailing dot (an escaped final dot belongs to the label). */
export function normaliseOwner(name: string): string {
  return ownerName(name);
}

/**
 * Indexes a stream of records into a team's inventory, inside a transaction the caller owns.
 * Records are grouped by owner name; names under one of the team's root domain assets become
 * (or refresh) discovered names with this source's record set, listed as subdomains of the
 * root; every other name is skipped, never added. Records of one name arriving far apart are
 * merged (the batch keeps names until it is full; a name met again after its batch was written
 * is merged with what was stored). Returns `indexed`: the number of distinct names written.
 */
export async function indexRecords(
  tx: ZoneRepositories,
  team: Team,
  batches: RecordBatches,
  source: ZoneSource,
): Promise<number> {
  // One indexing run of a team at a time: two uploads writing the same names in different
  // orders cannot deadlock. Other writes of the team are not held up by it.
  await tx.zones.lockIndexing(team.id);
  const roots = new RootMatcher(await tx.zones.rootDomains(team.id));
  const at = new Date();
  const written = new Set<string>();
  let batch = new Map<string, { root: RootDomain; records: DnsRecordInput[] }>();
  // Which names are assets is looked up batch by batch; a large run (a big zone, not a lookup
  // job's chunk) reads the team's asset names once instead, when it gets large.
  let assetNames: ReadonlySet<string> | undefined;
  let assetNamesRead = false;
  const flush = async () => {
    if (!assetNamesRead && written.size >= largeIndexRun) {
      assetNamesRead = true;
      assetNames = await tx.zones.assetNames(team.id, assetNamesInMemory);
    }
    const byRoot = new Map<RootDomain, IndexedName[]>();
    for (const [name, entry] of batch) {
      const list = byRoot.get(entry.root) ?? [];
      const merge = written.has(name);
      list.push(merge ? { name, records: entry.records, merge } : { name, records: entry.records });
      byRoot.set(entry.root, list);
      written.add(name);
    }
    batch = new Map();
    for (const [root, names] of byRoot) await tx.zones.indexNames(team.id, root, names, source, at, assetNames);
  };
  let lastOwner: string | undefined;
  let lastName = '';
  let lastRoot: RootDomain | undefined;
  for await (const records of batches) {
    if (roots.isEmpty) continue; // still drain the stream: a syntax error must surface
    for (const record of records) {
      // A zone lists a name's records together: its owner and root are worked out once.
      if (record.name !== lastOwner) {
        lastOwner = record.name;
        lastName = normaliseOwner(record.name);
        lastRoot = roots.match(lastName);
      }
      const name = lastName;
      const root = lastRoot;
      if (root === undefined) continue;
      const named = name === record.name ? record : { ...record, name };
      const entry = batch.get(name);
      if (entry === undefined) batch.set(name, { root, records: [named] });
      else entry.records.push(named);
    }
    if (batch.size >= indexBatchSize) await flush();
  }
  await flush();
  return written.size;
}
