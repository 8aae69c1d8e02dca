import { listPorts, portInventoryVersion } from '../../core/surface/port-inventory.service.ts';
import { portStatuses, type PortStatus } from '../../core/surface/port-inventory.types.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import {
  cachedV3Page,
  listFilterValues,
  v3ListBody,
  v3ListDescription,
  v3ListInput,
  v3ListPage,
  v3ListRequest,
} from './list-query.ts';
import { Port, V3PortListQuery } from './port.schemas.ts';

/** The v3 port inventory. */
export const portRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/ports',
    group: 'inventory',
    operationId: 'listPorts',
    summary: 'List ports',
    description:
      "Every (address, port) that surface monitoring runs found open on the addresses of the team's monitored names, one item per (root asset, address, port): " +
      '`OPEN` while runs find it open, `CLOSED` with `disappeared_at` once a run no longer does, `OPEN` again (same `first_seen_at`, the first time it was seen open) when it returns. ' +
      '`status` and `port` take comma-separated or repeated values; a bad value answers 400 (type /problems/4150) naming the parameter. ' +
      `${v3ListDescription}`,
    tags: ['inventory'],
    query: V3PortListQuery,
    isQueryCheckedOnUse: true,
    input: v3ListInput('ports', { enums: { status: portStatuses }, ports: ['port'] }),
    response: v3ListPage(Port),
    successStatus: 200,
    errors: [1085, 4150],
    handler: async (ctx) => {
      const version = await portInventoryVersion(ctx.deps.store, ctx.team.id);
      return cachedV3Page(ctx, 'ports', version, async () => {
        const input = ctx.checkedQuery();
        const request = v3ListRequest(input, ['status', 'port']);
        const statuses = listFilterValues<PortStatus>(input, 'status');
        const ports = listFilterValues<number>(input, 'port');
        const page = await listPorts(
          ctx.deps.store,
          ctx.team.id,
          { ...request.filter, statuses, ports },
          request.after,
          request.limit,
        );
        return v3ListBody(ctx, 'ports', '/ports', request, page);
      });
    },
  }),
];
