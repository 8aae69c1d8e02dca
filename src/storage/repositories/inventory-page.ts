import type { Kysely, RawBuilder } from 'kysely';
import { sql } from '../kysely.ts';
import { storeBounds, type InventoryPage, type InventoryPageQuery } from '../../core/shared/inventory-list.ts';
import type { Database, Dialect } from '../database.ts';
import type { Schema } from '../schema.ts';
import type { InventoryRenderer } from '../../core/surface/inventory-renderer.ts';
import { inventoryHeads, type DocumentedTable } from './inventory-documents.ts';
import { readRenderedPage } from './rendered-page.ts';
import { envelopeRoom, type RenderedPage } from '../../shared/page-render.mjs';

/** Tables listed by the v3 inventory lists: each has team_id, id, first_seen_at, disappeared_at and a document. */
export type InventoryTable = DocumentedTable;

/** Conditions of a list beyond the time filters; the list indexes carry the columns they read. */
export interface InventoryRowFilter {
  /** true: only rows that disappeared (disappeared_at set: CLOSED ports); false: only rows that did not. */
  isGone?: boolean | undefined;
  /** Only rows whose `port` is one of these (the ports table; it has a (team_id, port, first_seen_at, id) index). */
  ports?: number[] | undefined;
}

/** Rows of the list order a disappeared filter is first checked against, for a page of `limit` rows. */
export function probeSize(limit: number): number {
  return Math.min(50_000, Math.max(5_000, limit * 20));
}

/** A port filter of at most this many ports that few rows match is read port by port; a longer one along the order. */
export const maxPortRanges = 64;

/** A port filter of at most this many ports is read port by port at once, whatever else is asked (see pageOf). */
export const directPortRanges = 4;

/**
 * One page of a v3 inventory list, in (first_seen_at, id) order, rendered by the store: the keys
 * are found through the indexes, joined to their rows' changing fields and documents in the same
 * statement, and rendered where they are read (Database.readPage; `readPage` is undefined inside
 * a transaction, where the transaction's connection reads them).
 *
 * The order index (team_id, first_seen_at, id, disappeared_at[, port]) makes the page, its
 * position and the first_seen bounds one index range. A port list of at most maxPortRanges ports
 * and nothing else is read through the port index at once (one list-ordered range per port,
 * merged). Other conditions (disappeared bounds, gone or not, port with them) are checked along
 * the order range, inside the index, for at most probeSize rows (a disappearance condition along
 * the order of the gone rows only, which have an index of their own); when those hold too few matches
 * (a condition few rows meet, or matches far ahead), the keys are read another way, so no page
 * walks a long stretch of non-matching rows: a short port list through the port ranges; else a
 * disappeared condition through the disappeared index, sorted. Only "not gone" with nothing else
 * (OPEN ports when nearly all are CLOSED) keeps walking the order index.
 */
export async function inventoryPage(
  db: Kysely<Schema>,
  dialect: Dialect,
  readPage: Database['readPage'] | undefined,
  renderer: InventoryRenderer,
  table: InventoryTable,
  query: InventoryPageQuery,
  rowFilter: InventoryRowFilter = {},
): Promise<InventoryPage> {
  const { teamId } = query;
  // One row more than the page, to tell whether more follow.
  const limit = query.limit + 1;
  const { columns, head } = inventoryHeads(renderer, table);
  const spec = { keys: 2, head, limit: query.limit, room: envelopeRoom };
  const changing = sql.raw(columns.map((c) => `r.${c} as h_${c}`).join(', '));
  // Every page query selects the spec's layout: the keys, the changing fields, the document.
  const render = (from: RawBuilder<unknown>, key: 'k' | 'r', rest: RawBuilder<unknown>) =>
    readRenderedPage(
      db,
      readPage,
      sql`select ${sql.ref(`${key}.first_seen_at`)} as k_first_seen_at, ${sql.ref(`${key}.id`)} as k_id, ${changing}, r.document as document from ${from} ${rest}`.compile(
        db,
      ),
      spec,
    );
  const read = (keys: RawBuilder<unknown>) =>
    render(
      sql`(${keys}) k join ${sql.table(table)} r on r.id = k.id`,
      'k',
      sql`where r.team_id = ${teamId} order by k.first_seen_at, k.id`,
    );
  // A page that is one range of the order index reads its rows along that range at once: no
  // keys first and then each row by primary key (one index descent per row saved).
  const readRange = (conditions: RawBuilder<unknown>) =>
    render(sql`${sql.table(table)} r`, 'r', sql`where ${conditions} order by r.first_seen_at, r.id limit ${limit}`);
  // A page merged from a few ports' ranges: on PostgreSQL each range reads its rows at once too
  // (the port index carries every column the conditions name, and the merge append fetches only
  // the rows it takes): 43 against 415 buffers for two ports, and 4,400–4,660 against
  // 3,580–4,050 requests/s at 50 connections in alternating runs for two ports and a disappeared
  // bound. SQLite sorts each range's output again before it merges them (a temporary b-tree per
  // range), and sorting whole rows costs it more than keys and a rowid lookup per row (372
  // against 257 µs for two ports): there the keys are merged.
  const rowColumns = sql.raw([...new Set(['first_seen_at', 'id', ...columns, 'document'])].join(', '));
  const keyColumns = sql.raw('id, first_seen_at');
  const readPorts = (conditions: RawBuilder<unknown>, ports: number[]) =>
    dialect === 'postgres'
      ? render(
          sql`(${portRanges(sql.table(table), conditions, ports, limit, rowColumns)}) r`,
          'r',
          sql`order by r.first_seen_at, r.id limit ${limit}`,
        )
      : read(
          sql`select id, first_seen_at from (${portRanges(sql.table(table), conditions, ports, limit, keyColumns)}) u order by first_seen_at, id limit ${limit}`,
        );
  const page = await pageOf(db, table, query, limit, read, rowFilter, readRange, readPorts);
  const next = page.next === undefined ? undefined : { firstSeenAt: Number(page.next[0]), id: Number(page.next[1]) };
  return { items: page.items, next };
}

/** The page's rows through the cheapest index path (see inventoryPage). */
async function pageOf(
  db: Kysely<Schema>,
  table: InventoryTable,
  query: InventoryPageQuery,
  limit: number,
  read: (keys: RawBuilder<unknown>) => Promise<RenderedPage>,
  rowFilter: InventoryRowFilter,
  readRange: (conditions: RawBuilder<unknown>) => Promise<RenderedPage>,
  readPorts: (conditions: RawBuilder<unknown>, ports: number[]) => Promise<RenderedPage>,
): Promise<RenderedPage> {
  const { teamId, after } = query;
  const bounds = storeBounds(query.filter);
  const from = sql.table(table);
  // One lower bound on first_seen_at (the filter's or the position's, whichever is later) and a
  // residual for the rows tied with the position: given two bounds, or a row value, SQLite's
  // planner may pick a skip-scan and a sort over the whole range instead of the index range.
  const low =
    after === undefined ? bounds.firstSeen.low : Math.max(bounds.firstSeen.low ?? after.firstSeenAt, after.firstSeenAt);
  const range: Array<RawBuilder<unknown>> = [];
  if (low !== undefined) range.push(sql`first_seen_at >= ${low}`);
  if (bounds.firstSeen.high !== undefined) range.push(sql`first_seen_at < ${bounds.firstSeen.high}`);
  if (after !== undefined) range.push(sql`(first_seen_at > ${after.firstSeenAt} or id > ${after.id})`);
  const inOrder = sql.join([sql`team_id = ${teamId}`, ...range], sql` and `);

  const gone: Array<RawBuilder<unknown>> = [];
  if (bounds.disappeared.low !== undefined) gone.push(sql`disappeared_at >= ${bounds.disappeared.low}`);
  if (bounds.disappeared.high !== undefined) gone.push(sql`disappeared_at < ${bounds.disappeared.high}`);
  // A row that never disappeared meets no disappeared bound.
  if (rowFilter.isGone === false && gone.length > 0) return { items: '', count: 0, last: undefined, next: undefined };
  if (rowFilter.isGone === true && gone.length === 0) gone.push(sql`disappeared_at is not null`);
  const state = rowFilter.isGone === false ? [...gone, sql`disappeared_at is null`] : gone;
  const residual = [...state];
  const ports =
    rowFilter.ports === undefined || rowFilter.ports.length === 0
      ? undefined
      : [...new Set(rowFilter.ports)].sort((a, b) => a - b);
  // Validated integers, written as literals: a long list binds no parameters.
  if (ports !== undefined) residual.push(sql`port in (${sql.join(ports.map((p) => sql.lit(p)))})`);
  if (residual.length === 0) return readRange(inOrder);

  const byPort = ports !== undefined && ports.length <= maxPortRanges;
  // With nothing else to check, each port's range holds only matches: read it directly, no probe.
  // With a state condition too, a few ports' ranges are read directly as well: the probe along
  // the order would only pay off when matches were dense there, and its fallback is these same
  // ranges (a probe and a count first cost more than the ranges themselves: 0.8 against 0.6 ms).
  if (byPort && (state.length === 0 || ports.length <= directPortRanges))
    return readPorts(sql.join([sql`team_id = ${teamId}`, ...range, ...state], sql` and `), ports);
  const matches = sql.join(residual, sql` and `);
  const probe = probeSize(limit);
  const columns = sql.raw(
    ports === undefined ? 'id, first_seen_at, disappeared_at' : 'id, first_seen_at, disappeared_at, port',
  );
  // Only gone rows can match a disappearance condition: the probe walks the list order of those
  // alone (the gone-order index, migration 016), not of every row.
  const probed = gone.length > 0 ? sql`${inOrder} and disappeared_at is not null` : inOrder;
  const ahead = sql`select ${columns} from ${from} where ${probed} order by first_seen_at, id limit ${probe}`;
  const found = await read(
    sql`select id, first_seen_at from (${ahead}) p where ${matches} order by first_seen_at, id limit ${limit}`,
  );
  if (found.count === limit) return found;
  const scanned = await sql<{
    n: number;
  }>`select count(*) as n from (select 1 as one from ${from} where ${probed} order by first_seen_at, id limit ${probe}) c`.execute(
    db,
  );
  if (Number(scanned.rows[0]?.n ?? 0) < probe) return found;

  if (byPort) return readPorts(sql.join([sql`team_id = ${teamId}`, ...range, ...state], sql` and `), ports);
  if (gone.length === 0)
    return read(
      sql`select id, first_seen_at from ${from} where ${inOrder} and ${matches} order by first_seen_at, id limit ${limit}`,
    );
  // Unary plus keeps the order index out of this query on both dialects: the rows come from the
  // disappeared index, and only they are sorted.
  const sparse = [sql`team_id = ${teamId}`, matches];
  if (bounds.firstSeen.low !== undefined) sparse.push(sql`+first_seen_at >= ${bounds.firstSeen.low}`);
  if (bounds.firstSeen.high !== undefined) sparse.push(sql`+first_seen_at < ${bounds.firstSeen.high}`);
  if (after !== undefined)
    sparse.push(
      sql`(+first_seen_at > ${after.firstSeenAt} or (+first_seen_at = ${after.firstSeenAt} and +id > ${after.id}))`,
    );
  return read(
    sql`select id, first_seen_at from ${from} where ${sql.join(sparse, sql` and `)} order by +first_seen_at, +id limit ${limit}`,
  );
}

/**
 * One range of the port index per port, each in list order and cut at the page size, as one
 * union of the given columns; the caller takes the first `limit` in list order (PostgreSQL
 * merges the ranges as they are, SQLite sorts each again first). Columns are named, never `*`:
 * PostgreSQL keeps the plans of named reads only (pg-named-statements.ts).
 */
function portRanges(
  from: RawBuilder<unknown>,
  conditions: RawBuilder<unknown>,
  ports: number[],
  limit: number,
  columns: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const perPort = ports.map(
    (p, i) =>
      sql`select ${columns} from (select ${columns} from ${from} where ${conditions} and port = ${sql.lit(p)} order by first_seen_at, id limit ${limit}) ${sql.raw(`r${i}`)}`,
  );
  return sql.join(perPort, sql` union all `);
}
