/**
 * What one completed run changes in an inventory (IPs, ports, technologies): the items it saw
 * for the first time, the rows it saw again (with what it saw), the live rows it no longer saw.
 * Every inventory follows this lifecycle; each applies its own details to the rows seen again.
 */
export interface InventoryDiff<Row, Seen> {
  fresh: Array<{ key: string; seen: Seen }>;
  again: Array<{ row: Row; seen: Seen }>;
  /** Rows seen again that were not live (disappeared or closed): they return. */
  returned: number;
  gone: Row[];
}

/** Compares the asset's rows with what the run saw, by the inventory's identity key. */
export function diffInventory<Row, Seen>(
  existing: readonly Row[],
  seen: ReadonlyMap<string, Seen>,
  keyOf: (row: Row) => string,
  isLive: (row: Row) => boolean,
): InventoryDiff<Row, Seen> {
  const byKey = new Map(existing.map((row) => [keyOf(row), row]));
  const diff: InventoryDiff<Row, Seen> = { fresh: [], again: [], returned: 0, gone: [] };
  for (const [key, value] of seen) {
    const row = byKey.get(key);
    if (row === undefined) {
      diff.fresh.push({ key, seen: value });
      continue;
    }
    diff.again.push({ row, seen: value });
    if (!isLive(row)) diff.returned += 1;
  }
  diff.gone = existing.filter((row) => isLive(row) && !seen.has(keyOf(row)));
  return diff;
}
