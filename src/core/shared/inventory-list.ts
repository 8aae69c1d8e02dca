/**
 * What the v3 inventory lists (IPs, ports, technologies) share: the four time filters, the
 * keyset position and the page. Every list is in (first_seen_at, id) order: a row's
 * first_seen_at never changes, so a row never moves, and new rows arrive at the end. A list with
 * filters of its own (ports: status and port) extends InventoryPageQuery.
 */

/** The four time filters of a v3 list; every bound is exclusive. */
export interface InventoryTimeFilter {
  firstSeenBefore?: Date;
  firstSeenAfter?: Date;
  disappearedBefore?: Date;
  disappearedAfter?: Date;
}

/** A keyset position: the last row of the previous page. */
export interface InventoryPosition {
  firstSeenAt: number;
  id: number;
}

/** One page of a list query. */
export interface InventoryPageQuery {
  teamId: number;
  filter: InventoryTimeFilter;
  after: InventoryPosition | undefined;
  /** Items of the page; the store reads one more row to tell whether more follow. */
  limit: number;
}

/**
 * One page of a list as the store renders it: the items' wire JSON, comma-joined (the store
 * keeps most of each item as a stored document, see surface/inventory-documents.ts), and, when
 * more follow, the position of the last item.
 */
export interface InventoryPage {
  /** Text, or UTF-8 bytes when the store rendered them off the event loop. */
  items: string | Uint8Array;
  next: InventoryPosition | undefined;
}

/** Largest page of a v3 list (spec: limit 1 to 1000). */
export const maxInventoryPageSize = 1000;

/** Page size when the request gives none. */
export const defaultInventoryPageSize = 100;

/**
 * The store bounds of the filters in epoch ms: `low` inclusive, `high` exclusive. Times on the
 * wire have whole seconds, so a bound compares with the second a row shows: "after T" keeps
 * rows whose shown second is later than T, "before T" rows whose shown second is earlier, and
 * a client that passes back a time it read excludes exactly that row.
 */
export function storeBounds(filter: InventoryTimeFilter): { firstSeen: { low?: number; high?: number }; disappeared: { low?: number; high?: number } } {
  const after = (d: Date | undefined) => (d === undefined ? undefined : (Math.floor(d.getTime() / 1000) + 1) * 1000);
  const before = (d: Date | undefined) => (d === undefined ? undefined : Math.ceil(d.getTime() / 1000) * 1000);
  const range = (low: number | undefined, high: number | undefined) => ({ ...(low === undefined ? {} : { low }), ...(high === undefined ? {} : { high }) });
  return {
    firstSeen: range(after(filter.firstSeenAfter), before(filter.firstSeenBefore)),
    disappeared: range(after(filter.disappearedAfter), before(filter.disappearedBefore)),
  };
}
