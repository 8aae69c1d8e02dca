import { Readable } from 'node:stream';
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { appError } from '../../core/errors/app-error.ts';
import {
  exportDisposition,
  exportFormats,
  exportMediaTypes,
  formatFromAccept,
  type ExportFormat,
} from '../../core/exports/export-format.ts';
import { inventoryExport, type InventoryExportPage } from '../../core/exports/inventory-export.ts';
import { exportBatchSize, vulnerabilityExport } from '../../core/exports/vulnerability-export.ts';
import { listBreaches } from '../../core/policies/breach.service.ts';
import type { BreachStatus } from '../../core/policies/breach.types.ts';
import { breachStatuses } from '../../core/policies/breach.types.ts';
import { maxInventoryPageSize, type InventoryPosition } from '../../core/shared/inventory-list.ts';
import { assertCanCall } from '../../core/teams/caller.ts';
import { listIpAddresses } from '../../core/surface/ip-inventory.service.ts';
import { listPorts } from '../../core/surface/port-inventory.service.ts';
import { portStatuses, type PortStatus } from '../../core/surface/port-inventory.types.ts';
import { listTechnologies } from '../../core/surface/technology-inventory.service.ts';
import { packageVersion } from '../ops.routes.ts';
import { defineRoute, type RouteContext, type RouteDef, type RouteInput, type RouteResult } from '../route.ts';
import { listInputOf } from '../v2/vulnerabilities.routes.ts';
import { VulnerabilityListQuery, vulnerabilityListInput } from '../v2/vulnerability.schemas.ts';
import { Breach, V3BreachListQuery } from './breach.schemas.ts';
import { presentBreaches } from './breaches.routes.ts';
import { IpAddress } from './ip.schemas.ts';
import { listFilterValues, v3ListInput, v3ListRequest, V3ListQuery } from './list-query.ts';
import { Port, V3PortListQuery } from './port.schemas.ts';
import { Technology } from './technology.schemas.ts';

/**
 * Streamed exports (docs/exports.md): the vulnerabilities with the filters of the v2 list as CSV,
 * NDJSON or SARIF 2.1.0, and the v3 inventories with their lists' filters as CSV or NDJSON. The
 * rows are read in keyset batches and written as they come; the reply pulls the next batch only
 * once the socket took the last, so memory stays flat whatever the size of the export.
 */

const paging = new Set(['marker', 'pageSize', 'cursor', 'limit']);

/** A list's query schema without its paging parameters, with `format`. */
function exportQuery(list: TObject, formats: readonly ExportFormat[]): TObject {
  const properties: Record<string, TSchema> = {};
  for (const [name, schema] of Object.entries(list.properties)) if (!paging.has(name)) properties[name] = schema;
  properties['format'] = Type.Optional(
    Type.String({
      description: `${formats.join(', ')}. Without it, the Accept header chooses (${formats
        .map((f) => exportMediaTypes[f].split(';')[0])
        .join(', ')}); else csv. Another value answers 400 naming format (type /problems/4150).`,
    }),
  );
  return Type.Object(properties);
}

/** A list's declared input without its paging parameters. */
function exportInput(input: RouteInput): RouteInput {
  return { ...input, order: input.order?.filter((name) => !paging.has(name)) };
}

/** The format of the request: `format`, else the Accept header, else CSV; another `format` is 4150 naming it. */
function formatOf(ctx: RouteContext, allowed: readonly ExportFormat[]): ExportFormat {
  const given = ctx.input['format'];
  if (typeof given === 'string' && given.trim() !== '') {
    const format = given.trim().toLowerCase() as ExportFormat;
    if (!allowed.includes(format))
      throw appError(4150, `format must be one of ${allowed.join(', ')}, got ${JSON.stringify(given)}`, ['format']);
    return format;
  }
  return formatFromAccept(ctx.request.headers.accept, allowed) ?? 'csv';
}

/** The streamed reply: the chunks as a byte stream (one chunk buffered ahead at most), an attachment. */
function streamed(what: string, format: ExportFormat, chunks: AsyncGenerator<string>): RouteResult {
  return {
    status: 200,
    stream: Readable.from(chunks, { objectMode: false, highWaterMark: 64 * 1024 }),
    contentType: exportMediaTypes[format],
    headers: { 'content-disposition': exportDisposition(what, format, new Date()), 'cache-control': 'no-store' },
  };
}

/** The CSV columns of an item schema: its fields, an object's fields as `object.field`. */
function columnsOf(schema: TObject): string[] {
  const columns: string[] = [];
  for (const [name, field] of Object.entries(schema.properties)) {
    const nested = (field as TObject).properties;
    if ((field as TSchema)['type'] === 'object' && nested !== undefined)
      for (const inner of Object.keys(nested)) columns.push(`${name}.${inner}`);
    else columns.push(name);
  }
  return columns;
}

const ExportResponse = Type.String({ description: 'The export, streamed (CSV, NDJSON or SARIF).' });
const inventoryFormats = ['csv', 'ndjson'] as const satisfies readonly ExportFormat[];

type InventoryPager = (
  ctx: RouteContext,
) => (after: InventoryPosition | undefined, limit: number) => Promise<InventoryExportPage<InventoryPosition>>;

/** One inventory export route. */
function inventoryRoute(
  name: string,
  summary: string,
  item: TObject,
  query: TObject,
  input: RouteInput,
  pager: InventoryPager,
): RouteDef {
  const columns = columnsOf(item);
  return defineRoute({
    surface: 'v3',
    method: 'GET',
    path: `/exports/${name}`,
    group: 'exports',
    operationId: `export${name[0]!.toUpperCase()}${name.slice(1)}`,
    summary,
    description:
      `Every item of GET /rest/v3/${name} matching the filters (the list's own, without cursor and limit), streamed as one attachment: ` +
      `NDJSON writes each item as the list does, one per line; CSV writes a header row, then one row per item (columns: ${columns.join(', ')}; ` +
      'arrays as JSON), per RFC 4180, a cell starting with = + - or @ prefixed with a single quote. ' +
      'The team and the key must reach the list too (endpoint group inventory; 1009 otherwise).',
    tags: ['exports'],
    isExtension: true,
    query: exportQuery(query, inventoryFormats),
    input: exportInput(input),
    response: ExportResponse,
    responseMediaTypes: inventoryFormats.map((f) => exportMediaTypes[f].split(';')[0]!),
    successStatus: 200,
    errors: [1085, 4150],
    handler: async (ctx) => {
      // An export shows what the list shows: the team and the key must reach the list too.
      assertCanCall(ctx.caller, ctx.team, 'inventory');
      const format = formatOf(ctx, inventoryFormats) as (typeof inventoryFormats)[number];
      const page = pager(ctx);
      return streamed(name, format, inventoryExport({ page, format, columns, batchSize: maxInventoryPageSize }));
    },
  });
}

/** The export operations. */
export const exportRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/exports/vulnerabilities',
    group: 'exports',
    operationId: 'exportVulnerabilities',
    summary: 'Export vulnerabilities (CSV, NDJSON, SARIF)',
    description:
      'Every vulnerability matching the filters of GET /rest/v2/vulnerabilities/ (the same parameters and errors, without marker and pageSize), ' +
      `in the order they were first recorded, streamed as one attachment read in batches of ${exportBatchSize}. ` +
      'csv: a header row, RFC 4180, a cell starting with = + - or @ prefixed with a single quote; ndjson: one object per line; ' +
      'sarif: SARIF 2.1.0, one run of tool perimeter with a rule per kind of finding (CWE, help) and a result per vulnerability ' +
      '(level from severity, the URL as location, the fingerprint in partialFingerprints). ' +
      'The key must reach the list too (endpoint group vulnerabilities; 1009 otherwise).',
    tags: ['exports'],
    isExtension: true,
    query: exportQuery(VulnerabilityListQuery, exportFormats),
    input: exportInput(vulnerabilityListInput),
    response: ExportResponse,
    responseMediaTypes: exportFormats.map((f) => exportMediaTypes[f].split(';')[0]!),
    successStatus: 200,
    errors: [1085, 4085, 4110, 4115, 4150],
    handler: async (ctx) => {
      assertCanCall(ctx.caller, ctx.team, 'vulnerabilities');
      const format = formatOf(ctx, exportFormats);
      const filter = await ctx.deps.vulnerabilities.resolveFilter(ctx.team, listInputOf(ctx.input).filter);
      return streamed(
        'vulnerabilities',
        format,
        vulnerabilityExport({
          vulnerabilities: ctx.deps.store.vulnerabilities,
          teamId: ctx.team.id,
          filter,
          format,
          version: packageVersion,
        }),
      );
    },
  }),
  inventoryRoute('ips', 'Export IP addresses (CSV, NDJSON)', IpAddress, V3ListQuery, v3ListInput('ips'), (ctx) => {
    const { filter } = v3ListRequest(ctx.input);
    return (after, limit) => listIpAddresses(ctx.deps.store, ctx.team.id, filter, after, limit);
  }),
  inventoryRoute(
    'ports',
    'Export ports (CSV, NDJSON)',
    Port,
    V3PortListQuery,
    v3ListInput('ports', { enums: { status: portStatuses }, ports: ['port'] }),
    (ctx) => {
      const { filter } = v3ListRequest(ctx.input);
      const statuses = listFilterValues<PortStatus>(ctx.input, 'status');
      const ports = listFilterValues<number>(ctx.input, 'port');
      return (after, limit) => listPorts(ctx.deps.store, ctx.team.id, { ...filter, statuses, ports }, after, limit);
    },
  ),
  inventoryRoute(
    'technologies',
    'Export technologies (CSV, NDJSON)',
    Technology,
    V3ListQuery,
    v3ListInput('technologies'),
    (ctx) => {
      const { filter } = v3ListRequest(ctx.input);
      return (after, limit) => listTechnologies(ctx.deps.store, ctx.team.id, filter, after, limit);
    },
  ),
  inventoryRoute(
    'breaches',
    'Export policy breaches (CSV, NDJSON)',
    Breach,
    V3BreachListQuery,
    v3ListInput('breaches', {
      enums: { status: breachStatuses },
      times: ['status_updated_before', 'status_updated_after'],
    }),
    (ctx) => {
      const { filter: times } = v3ListRequest(ctx.input);
      const statuses = listFilterValues<BreachStatus>(ctx.input, 'status');
      const statusUpdatedBefore = ctx.input['status_updated_before'] as Date | undefined;
      const statusUpdatedAfter = ctx.input['status_updated_after'] as Date | undefined;
      const filter = {
        ...times,
        ...(statusUpdatedBefore === undefined ? {} : { statusUpdatedBefore }),
        ...(statusUpdatedAfter === undefined ? {} : { statusUpdatedAfter }),
        ...(statuses === undefined ? {} : { statuses }),
      };
      return async (after, limit) => {
        const page = await listBreaches(ctx.deps.store, ctx.team.id, filter, after, limit);
        return { items: presentBreaches(page), next: page.next };
      };
    },
  ),
];
