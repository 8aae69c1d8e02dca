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
import { withEnvelope } from '../../shared/page-render.mjs';
import { parseTimeParameter, toWireTime } from '../../core/shared/time.ts';
import { cachedPage } from '../cached-page.ts';
import type { FieldError, InputContext, RouteContext, RouteInput, RouteResult } from '../route.ts';
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

/** The query schema of a v3 inventory list (validated with v3ListInput's declared input). */
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

/** A time filter's text: blank is none, anything else an ISO 8601 date-time (1085 naming it otherwise). */
function decodeTime(value: string, name: string): Date | undefined {
  return value.trim() === '' ? undefined : parseTimeParameter(name, value);
}

/** 4150 naming a list filter of allowed values, and the first value that is not one. */
function enumListError(allowed: readonly string[]): FieldError {
  return (values, name) => {
    const bad = (values as string[]).find((v) => !allowed.includes(v));
    return appError(
      4150,
      `${name} must be one or more of ${allowed.join(', ')} (comma-separated or repeated), got ${JSON.stringify(bad)}`,
      [name],
    );
  };
}

/** One port of a port filter: 0 to 65535 in at most five digits, else 4150 naming the filter and the value. */
function decodePort(value: string, name: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw appError(
      4150,
      `${name} must be integers from 0 to 65535 (comma-separated or repeated), got ${JSON.stringify(value)}`,
      [name],
    );
  return Number(value);
}

/**
 * The declared input of a v3 list (RouteInput): `limit`, the four time filters and the cursor (bound
 * to the team and the list `scope`) are checked first, in that order, then the list's own filters:
 * `enums` (allowed values, comma-separated, repeated or both), `ports` (port numbers) and `times`
 * (ISO 8601), in the order given.
 */
export function v3ListInput(
  scope: string,
  own: { enums?: Record<string, readonly string[]>; ports?: string[]; times?: string[] } = {},
): RouteInput {
  const enums = Object.entries(own.enums ?? {});
  const decode: NonNullable<RouteInput['decode']> = {
    cursor: (value, _name, ctx) => decodeCursor(ctx, scope, value),
  };
  for (const name of [...timeFilters.map(([n]) => n), ...(own.times ?? [])]) decode[name] = decodeTime;
  for (const name of own.ports ?? []) decode[name] = decodePort;
  return {
    order: ['limit', ...timeFilters.map(([n]) => n), 'cursor'],
    decode,
    errors: Object.fromEntries(enums.map(([name, allowed]) => [name, enumListError(allowed)])),
  };
}

/**
 * The list request of a validated query (see v3ListInput). `own` names the list's own filters as
 * `next` repeats them, in order: list filters repeat their distinct values, time filters their time.
 */
export function v3ListRequest(input: RouteContext['input'], own: string[] = []): V3ListRequest {
  const filter: InventoryTimeFilter = {};
  for (const [name, field] of timeFilters) {
    const value = input[name] as Date | undefined;
    if (value !== undefined) filter[field] = value;
  }
  const listFilters: V3ListRequest['listFilters'] = [];
  for (const name of own) {
    const value = input[name];
    if (value instanceof Date) listFilters.push([name, formatFilterTime(value)]);
    else if (Array.isArray(value) && value.length > 0) listFilters.push([name, [...new Set(value)].join(',')]);
  }
  return {
    limit: (input['limit'] as number | undefined) ?? defaultInventoryPageSize,
    after: input['cursor'] as InventoryPosition | undefined,
    filter,
    listFilters,
  };
}

/** The distinct values of a validated list filter; undefined when absent or blank. */
export function listFilterValues<T>(input: RouteContext['input'], name: string): T[] | undefined {
  const values = input[name] as T[] | undefined;
  return values === undefined || values.length === 0 ? undefined : [...new Set(values)];
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

/** The cursor of a position in a v3 list (the console's pages link with the API's own cursors). */
export function encodeCursor(
  ctx: Pick<RouteContext, 'deps' | 'team'>,
  scope: string,
  position: InventoryPosition,
): string {
  return ctx.deps.markers.encode(ctx.team.id, `v3:${scope}`, [position.firstSeenAt, position.id]);
}

/**
 * The position a cursor carries. Cursors are MAC-protected and bound to the team and the list,
 * so a cursor that was altered, belongs to another list or another team is rejected alike.
 */
function decodeCursor(ctx: InputContext, scope: string, cursor: string | undefined): InventoryPosition | undefined {
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
