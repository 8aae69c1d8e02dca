import type { Kysely, RawBuilder } from 'kysely';
import { sql } from '../kysely.ts';
import { storeBounds, type InventoryPageQuery } from '../../core/shared/inventory-list.ts';
import type { Schema } from '../schema.ts';

/** Tables listed by the v3 inventory lists: each has team_id, id, first_seen_at and disappeared_at. */
export type InventoryTable = 'ip_addresses';

/** Rows of the list order a disappeared filter is first checked against, for a page of `limit` rows. */
export function probeSize(limit: number): number {
  return Math.min(50_000, Math.max(5_000, limit * 20));
}

/** Reads the full rows of the page whose keys (id, first_seen_at, in order) the subquery selects. */
export type PageReader<R> = (keys: RawBuilder<unknown>) => Promise<R[]>;

/**
 * One page of a v3 inventory list, in (first_seen_at, id) order: the keys are found through
 * the indexes, and `read` joins them to the full rows in the same statement.
 *
 * The order index (team_id, first_seen_at, id, disappeared_at) makes the page, its position
 * and the first_seen bounds one index range. A disappeared bound is checked along that range,
 * inside the index, for at most probeSize rows; when those hold too few matches (a bound few
 * rows meet, or matches far ahead), the keys are read through the disappeared index and sorted
 * instead, so no page walks a long stretch of non-matching rows.
 */
export async function inventoryPage<R>(db: Kysely<Schema>, table: InventoryTable, query: InventoryPageQuery, read: PageReader<R>): Promise<R[]> {
  const { teamId, after, limit } = query;
  const bounds = storeBounds(query.filter);
  const from = sql.table(table);
  // One lower bound on first_seen_at (the filter's or the position's, whichever is later) and a
  // residual for the rows tied with the position: given two bounds, or a row value, SQLite's
  // planner may pick a skip-scan and a sort over the whole range instead of the index range.
  const low = after === undefined ? bounds.firstSeen.low : Math.max(bounds.firstSeen.low ?? after.firstSeenAt, after.firstSeenAt);
  const conditions: Array<RawBuilder<unknown>> = [sql`team_id = ${teamId}`];
  if (low !== undefined) conditions.push(sql`first_seen_at >= ${low}`);
  if (bounds.firstSeen.high !== undefined) conditions.push(sql`first_seen_at < ${bounds.firstSeen.high}`);
  if (after !== undefined) conditions.push(sql`(first_seen_at > ${after.firstSeenAt} or id > ${after.id})`);
  const inOrder = sql.join(conditions, sql` and `);

  const gone: Array<RawBuilder<unknown>> = [];
  if (bounds.disappeared.low !== undefined) gone.push(sql`disappeared_at >= ${bounds.disappeared.low}`);
  if (bounds.disappeared.high !== undefined) gone.push(sql`disappeared_at < ${bounds.disappeared.high}`);
  if (gone.length === 0) return read(sql`select id, first_seen_at from ${from} where ${inOrder} order by first_seen_at, id limit ${limit}`);
  const isGone = sql.join(gone, sql` and `);
  const probe = probeSize(limit);
  const ahead = sql`select id, first_seen_at, disappeared_at from ${from} where ${inOrder} order by first_seen_at, id limit ${probe}`;
  const found = await read(sql`select id, first_seen_at from (${ahead}) p where ${isGone} order by first_seen_at, id limit ${limit}`);
  if (found.length === limit) return found;
  const scanned = await sql<{ n: number }>`select count(*) as n from (select 1 as one from ${from} where ${inOrder} order by first_seen_at, id limit ${probe}) c`.execute(db);
  if (Number(scanned.rows[0]?.n ?? 0) < probe) return found;
  // Unary plus keeps the order index out of this query on both dialects: the rows come from the
  // disappeared index, and only they are sorted.
  const sparse = [sql`team_id = ${teamId}`, isGone];
  if (bounds.firstSeen.low !== undefined) sparse.push(sql`+first_seen_at >= ${bounds.firstSeen.low}`);
  if (bounds.firstSeen.high !== undefined) sparse.push(sql`+first_seen_at < ${bounds.firstSeen.high}`);
  if (after !== undefined) sparse.push(sql`(+first_seen_at > ${after.firstSeenAt} or (+first_seen_at = ${after.firstSeenAt} and +id > ${after.id}))`);
  return read(sql`select id, first_seen_at from ${from} where ${sql.join(sparse, sql` and `)} order by +first_seen_at, +id limit ${limit}`);
}
