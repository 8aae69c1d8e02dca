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
 * keeps most of each item as a stored document, see http/v3/inventory.render.ts), and, when
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
export function storeBounds(filter: InventoryTimeFilter): { firstSeen: StoreRange; disappeared: StoreRange } {
  return {
    firstSeen: storeRange(filter.firstSeenAfter, filter.firstSeenBefore),
    disappeared: storeRange(filter.disappearedAfter, filter.disappearedBefore),
  };
}

/** A range of epoch ms: `low` inclusive, `high` exclusive, each absent when unbounded. */
export interface StoreRange {
  low?: number;
  high?: number;
}

/** The store range of one pair of exclusive wire bounds, compared at whole seconds as storeBounds says. */
export function storeRange(after: Date | undefined, before: Date | undefined): StoreRange {
  const low = after === undefined ? undefined : (Math.floor(after.getTime() / 1000) + 1) * 1000;
  const high = before === undefined ? undefined : Math.ceil(before.getTime() / 1000) * 1000;
  return { ...(low === undefined ? {} : { low }), ...(high === undefined ? {} : { high }) };
}
