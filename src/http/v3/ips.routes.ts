import { ipInventoryVersion, listIpAddresses } from '../../core/surface/ip-inventory.service.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import { IpAddress } from './ip.schemas.ts';
import {
  cachedV3Page,
  v3ListInput,
  v3ListRequest,
  v3ListBody,
  v3ListDescription,
  v3ListPage,
  V3ListQuery,
} from './list-query.ts';

/** The v3 IP inventory. */
export const ipRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/ips',
    group: 'inventory',
    operationId: 'listIps',
    summary: 'List IP addresses',
    description:
      'Every address the monitored names of the team resolve to, one item per (root asset, address): active while surface monitoring runs see it, ' +
      'with `disappeared_at` once a run no longer does, active again (same `first_seen_at`) when it returns. ' +
      `${v3ListDescription}`,
    tags: ['inventory'],
    query: V3ListQuery,
    isQueryCheckedOnUse: true,
    input: v3ListInput('ips'),
    response: v3ListPage(IpAddress),
    successStatus: 200,
    errors: [1085, 4150],
    handler: async (ctx) => {
      const version = await ipInventoryVersion(ctx.deps.store, ctx.team.id);
      return cachedV3Page(ctx, 'ips', version, async () => {
        const request = v3ListRequest(ctx.checkedQuery());
        const page = await listIpAddresses(ctx.deps.store, ctx.team.id, request.filter, request.after, request.limit);
        return v3ListBody(ctx, 'ips', '/ips', request, page);
      });
    },
  }),
];
