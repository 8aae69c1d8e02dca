import { Type } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import { AppError, appError } from '../../core/errors/app-error.ts';
import {
  defaultInventoryPageSize,
  maxInventoryPageSize,
  type InventoryPage,
  type InventoryPosition,
  type InventoryTimeFilter,
} from '../../core/shared/inventory-list.ts';
import { withEnvelope } from '../../core/shared/page-render.mjs';
import { parseTimeParameter, toWireTime } from '../../core/shared/time.ts';
import { cachedPage } from '../cached-page.ts';
import { queryInteger, queryList, queryValue } from '../request-input.ts';
import type { RouteContext, RouteResult } from '../route.ts';
import { publicBase } from '../v2/legacy-route-support.ts';

/**
 * The v3 list machinery every inventory list shares (/ips, /ports, /technologies): `limit`, an
 * opaque keyset `cursor`, the four time filters, list filters of comma lists (readEnumList,
 * readPortList), and the `{items, pagination}` envelope whose `next` is an absolute URL carrying
 * cursor, limit and every filter.
 */

/** The time filters as they appear in the query string, with the field each one sets. */
const timeFilters = [
  ['first_seen_before', 'firstSeenBefore'],
  ['first_seen_after', 'firstSeenAfter'],
  ['disappeared_before', 'disappearedBefore'],
  ['disappeared_after', 'disappearedAfter'],
] as const satisfies ReadonlyArray<readonly [string, keyof InventoryTimeFilter]>;

/** A list request, parsed and validated. */
export interface V3ListRequest {
  limit: number;
  after: InventoryPosition | undefined;
  filter: InventoryTimeFilter;
  /** The list's own filters as `next` repeats them (name, normalised value), after the time filters. */
  listFilters: Array<[name: string, value: string]>;
}

const timeFilterDoc = (what: string) =>
  Type.Optional(
    Type.String({
      format: 'date-time',
      description: `Only items ${what} (exclusive bound, compared at whole seconds). ISO 8601; a non-UTC offset must be URL-encoded (%2B).`,
    }),
  );

/** The query schema of a v3 inventory list (documentation; the handler validates). */
export const V3ListQuery = Type.Object({
  cursor: Type.Optional(
    Type.String({ description: 'Opaque position from a `next` URL; blank or absent starts at the first page.' }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: maxInventoryPageSize,
      default: defaultInventoryPageSize,
      description: `Items per page, 1 to ${maxInventoryPageSize}.`,
    }),
  ),
  first_seen_before: timeFilterDoc('first seen before this time'),
  first_seen_after: timeFilterDoc('first seen after this time'),
  disappeared_before: timeFilterDoc('that disappeared before this time (active items have not disappeared)'),
  disappeared_after: timeFilterDoc('that disappeared after this time'),
});

/** The envelope schema of a v3 list of the given items. */
export function v3ListPage(item: TSchema): TSchema {
  return Type.Object({
    items: Type.Array(item),
    pagination: Type.Object(
      {
        next: Type.Optional(
          Type.String({
            format: 'uri',
            description: 'Absolute URL of the next page, with cursor, limit and every filter; absent on the last page.',
          }),
        ),
      },
      { description: '`{}` on the last page.' },
    ),
  });
}

/** A shared sentence of the list descriptions. */
export const v3ListDescription =
  'Keyset-paged in the order items were first seen (then by id): an item never moves, new items arrive at the end, so following `next` ' +
  'never repeats an item nor skips one that existed when paging started. A malformed `cursor` or `limit` answers 400 naming it (type /problems/4150), ' +
  'a malformed time 400 (type /problems/1085).';

/** Reads limit, cursor and the time filters; a malformed value is a 400 problem naming the parameter. */
export function readV3ListRequest(ctx: Pick<RouteContext, 'deps' | 'team' | 'query'>, scope: string): V3ListRequest {
  const limit = queryInteger(ctx.query, ['limit'], {
    min: 1,
    max: maxInventoryPageSize,
    fallback: defaultInventoryPageSize,
  });
  const filter: InventoryTimeFilter = {};
  for (const [name, field] of timeFilters) {
    const raw = queryValue(ctx.query, name);
    if (raw !== undefined && raw.trim() !== '') filter[field] = parseTimeParameter(name, raw);
  }
  return { limit, after: decodeCursor(ctx, scope, queryValue(ctx.query, 'cursor')), filter, listFilters: [] };
}

/**
 * Reads a list filter of allowed values, given comma-separated, repeated or both (`status=OPEN,CLOSED`,
 * `status=OPEN&status=CLOSED`, `status[]=OPEN`), exactly as the spec writes the values. Undefined
 * when absent or blank; any other value is a 400 problem naming the parameter and the allowed values.
 * The distinct values are added to the request's list filters for `next`.
 */
export function readEnumList<T extends string>(
  ctx: Pick<RouteContext, 'query'>,
  request: V3ListRequest,
  name: string,
  allowed: readonly T[],
): T[] | undefined {
  const values = queryList(ctx.query, name);
  if (values === undefined || values.length === 0) return undefined;
  const bad = values.find((v) => !(allowed as readonly string[]).includes(v));
  if (bad !== undefined)
    throw appError(
      4150,
      `${name} must be one or more of ${allowed.join(', ')} (comma-separated or repeated), got ${JSON.stringify(bad)}`,
      [name],
    );
  const distinct = [...new Set(values)] as T[];
  request.listFilters.push([name, distinct.join(',')]);
  return distinct;
}

/**
 * Reads a time filter of the list's own (beside the four every list has), as those are read: an
 * ISO 8601 date-time, a malformed one a 400 problem naming it. Undefined when absent or blank;
 * a value is added to the request's list filters for `next`.
 */
export function readListTime(ctx: Pick<RouteContext, 'query'>, request: V3ListRequest, name: string): Date | undefined {
  const raw = queryValue(ctx.query, name);
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = parseTimeParameter(name, raw);
  request.listFilters.push([name, formatFilterTime(value)]);
  return value;
}

/**
 * Reads a list filter of port numbers (integers 0 to 65535, comma-separated, repeated or both).
 * Undefined when absent or blank; anything else is a 400 problem naming the parameter. The
 * distinct ports are added to the request's list filters for `next`.
 */
export function readPortList(
  ctx: Pick<RouteContext, 'query'>,
  request: V3ListRequest,
  name: string,
): number[] | undefined {
  const values = queryList(ctx.query, name);
  if (values === undefined || values.length === 0) return undefined;
  const bad = values.find((v) => !/^\d{1,5}$/.test(v) || Number(v) > 65535);
  if (bad !== undefined)
    throw appError(
      4150,
      `${name} must be integers from 0 to 65535 (comma-separated or repeated), got ${JSON.stringify(bad)}`,
      [name],
    );
  const distinct = [...new Set(values.map(Number))];
  request.listFilters.push([name, distinct.join(',')]);
  return distinct;
}

/**
 * The `{items, pagination}` body of one page, as JSON text: the items come rendered by the store
 * (InventoryPage), so the body is spliced, never parsed or serialised item by item. `next`
 * repeats the request's limit and filters.
 */
export function v3ListBody(
  ctx: Pick<RouteContext, 'deps' | 'team' | 'request'>,
  scope: string,
  path: string,
  request: V3ListRequest,
  page: InventoryPage,
): Buffer {
  const pagination =
    page.next === undefined ? '{}' : JSON.stringify({ next: nextUrl(ctx, scope, path, request, page.next) });
  return withEnvelope('{"items":[', page.items, `],"pagination":${pagination}}`);
}

/** The absolute URL of the page after `position`, with the request's limit and filters. */
function nextUrl(
  ctx: Pick<RouteContext, 'deps' | 'team' | 'request'>,
  scope: string,
  path: string,
  request: V3ListRequest,
  position: InventoryPosition,
): string {
  const params = new URLSearchParams({ cursor: encodeCursor(ctx, scope, position), limit: String(request.limit) });
  for (const [name, field] of timeFilters) {
    const value = request.filter[field];
    if (value !== undefined) params.set(name, formatFilterTime(value));
  }
  for (const [name, value] of request.listFilters) params.set(name, value);
  return `${publicBase(ctx).replace(/\/+$/, '')}/rest/v3${path}?${params.toString()}`;
}

/** A filter time as the next URL repeats it: whole seconds as YYYY-MM-DDTHH:mm:ssZ, else with milliseconds. */
function formatFilterTime(value: Date): string {
  return value.getTime() % 1000 === 0 ? toWireTime(value) : value.toISOString();
}

function encodeCursor(ctx: Pick<RouteContext, 'deps' | 'team'>, scope: string, position: InventoryPosition): string {
  return ctx.deps.markers.encode(ctx.team.id, `v3:${scope}`, [position.firstSeenAt, position.id]);
}

/**
 * The position a cursor carries. Cursors are MAC-protected and bound to the team and the list,
 * so a cursor that was altered, belongs to another list or another team is rejected alike.
 */
function decodeCursor(
  ctx: Pick<RouteContext, 'deps' | 'team'>,
  scope: string,
  cursor: string | undefined,
): InventoryPosition | undefined {
  const malformed = () =>
    appError(4150, 'cursor is malformed: pass the cursor of a `next` URL unchanged, or none for the first page', [
      'cursor',
    ]);
  let position: unknown;
  try {
    position = ctx.deps.markers.decode(ctx.team.id, `v3:${scope}`, cursor?.trim(), 'cursor');
  } catch (err) {
    if (err instanceof AppError) throw malformed();
    throw err;
  }
  if (position === undefined) return undefined;
  if (!Array.isArray(position) || position.length !== 2 || !position.every((n) => Number.isSafeInteger(n)))
    throw malformed();
  return { firstSeenAt: position[0] as number, id: position[1] as number };
}

/**
 * Answers a list page from the page cache when the same team asked the same query (with the
 * same base for `next`) at the same data version, else builds, serialises and caches it. The
 * version is read from the store on every request, so a change on any process (a monitoring
 * run) makes the old pages unreachable at once; a request that fails is never cached.
 */
export async function cachedV3Page(
  ctx: Pick<RouteContext, 'deps' | 'team' | 'request'>,
  scope: string,
  version: number,
  build: () => Promise<Buffer>,
): Promise<RouteResult> {
  const url = ctx.request.url;
  const rawQuery = url.slice(url.indexOf('?') + 1 || url.length);
  const key = `v3:${scope}:${ctx.team.id}:${version}:${publicBase(ctx)}:${rawQuery}`;
  return { status: 200, json: await cachedPage(ctx.deps.pageCache, key, build) };
}
