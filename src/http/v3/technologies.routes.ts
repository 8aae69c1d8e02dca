import { listTechnologies, technologyInventoryVersion } from '../../core/surface/technology-inventory.service.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import {
  cachedV3Page,
  v3ListInput,
  v3ListRequest,
  v3ListBody,
  v3ListDescription,
  v3ListPage,
  V3ListQuery,
} from './list-query.ts';
import { Technology } from './technology.schemas.ts';

/** The v3 technology inventory. */
export const technologyRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/technologies',
    group: 'inventory',
    operationId: 'listTechnologies',
    summary: 'List technologies',
    description:
      "Every technology fingerprinting found on the hosts of the team's monitored assets, one item per (root asset, host name, port, technology, version): " +
      'active while surface monitoring runs see it, with `disappeared_at` once a run no longer does, active again (same `first_seen_at`) when it returns; ' +
      'a new version is a new item. ' +
      `${v3ListDescription}`,
    tags: ['inventory'],
    query: V3ListQuery,
    isQueryCheckedOnUse: true,
    input: v3ListInput('technologies'),
    response: v3ListPage(Technology),
    successStatus: 200,
    errors: [1085, 4150],
    handler: async (ctx) => {
      const version = await technologyInventoryVersion(ctx.deps.store, ctx.team.id);
      return cachedV3Page(ctx, 'technologies', version, async () => {
        const request = v3ListRequest(ctx.checkedQuery());
        const page = await listTechnologies(ctx.deps.store, ctx.team.id, request.filter, request.after, request.limit);
        return v3ListBody(ctx, 'technologies', '/technologies', request, page);
      });
    },
  }),
];
