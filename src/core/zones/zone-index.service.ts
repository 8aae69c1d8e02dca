import type { Repositories, Store } from '../shared/store.ts';
import type { Team } from '../teams/team.types.ts';
import type { DnsRecordInput, IndexedName, RootDomain, ZoneSource } from './zone.types.ts';

/** Names written per statement batch. */
export const indexBatchSize = 1000;

/** Normalises an owner name: lowercase, no trailing dot. */
export function normaliseOwner(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** Finds, for any name, the most specific root asset it falls under (the name itself or a parent). */
export class RootMatcher {
  private readonly byName: Map<string, RootDomain>;

  constructor(roots: RootDomain[]) {
    this.byName = new Map(roots.map((r) => [r.name, r]));
  }

  get isEmpty(): boolean {
    return this.byName.size === 0;
  }

  match(name: string): RootDomain | undefined {
    let rest = name;
    for (;;) {
      const root = this.byName.get(rest);
      if (root !== undefined) return root;
      const dot = rest.indexOf('.');
      if (dot === -1) return undefined;
      rest = rest.slice(dot + 1);
    }
  }
}

/**
 * Indexes a stream of records into a team's inventory, inside a transaction the caller owns.
 * Records are grouped by owner name; names under one of the team's root domain assets become
 * (or refresh) assets with their records and `source` in added_by; every other name is skipped,
 * never added. Records of one name arriving far apart are merged (the batch keeps names until
 * it is full). Returns `indexed`: the number of distinct names written.
 */
export async function indexRecords(tx: Repositories, team: Team, records: AsyncIterable<DnsRecordInput> | Iterable<DnsRecordInput>, source: ZoneSource): Promise<number> {
  const roots = new RootMatcher(await tx.zones.rootDomains(team.id));
  const at = new Date();
  const written = new Set<string>();
  let batch = new Map<string, { root: RootDomain; records: DnsRecordInput[] }>();
  const flush = async () => {
    const byRoot = new Map<RootDomain, IndexedName[]>();
    for (const [name, entry] of batch) {
      const list = byRoot.get(entry.root) ?? [];
      list.push({ name, records: entry.records });
      byRoot.set(entry.root, list);
      written.add(name);
    }
    batch = new Map();
    for (const [root, names] of byRoot) await tx.zones.indexNames(team.id, root, names, source, at);
  };
  for await (const record of records) {
    if (roots.isEmpty) continue; // still drain the stream: a syntax error must surface
    const name = normaliseOwner(record.name);
    const root = roots.match(name);
    if (root === undefined) continue;
    const entry = batch.get(name);
    if (entry === undefined) batch.set(name, { root, records: [{ ...record, name }] });
    else entry.records.push({ ...record, name });
    if (batch.size >= indexBatchSize) await flush();
  }
  await flush();
  return written.size;
}

/** Indexes records atomically: all of them, or (on any failure, a syntax error included) none. */
export function indexRecordsAtomically(store: Store, team: Team, records: AsyncIterable<DnsRecordInput>, source: ZoneSource): Promise<number> {
  return store.transaction((tx) => indexRecords(tx, team, records, source));
}
