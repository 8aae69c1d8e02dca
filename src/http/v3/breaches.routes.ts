import { listBreaches } from '../../core/policies/breach.service.ts';
import { breachStatuses, type BreachPage, type BreachStatus } from '../../core/policies/breach.types.ts';
import { toWireTime } from '../../core/shared/time.ts';
import { defineRoute, type RouteDef } from '../route.ts';
import { Breach, V3BreachListQuery } from './breach.schemas.ts';
import {
  listFilterValues,
  v3ListBody,
  v3ListDescription,
  v3ListInput,
  v3ListPage,
  v3ListRequest,
} from './list-query.ts';

/** The wire JSON of a page's breaches, comma-joined (the list envelope splices it). */
export function presentBreaches(page: BreachPage): string {
  return page.items
    .map((b) => {
      const tokens = page.tokens.get(b.assetId);
      return JSON.stringify({
        id: String(b.id),
        policy_id: b.policyId,
        policy_name: b.policyName,
        asset_id: tokens?.assetToken ?? '',
        asset_name: b.assetName,
        severity: b.severity,
        active: b.active,
        status: b.status,
        status_updated_at: toWireTime(b.statusUpdatedAt),
        first_seen_at: toWireTime(b.firstSeenAt),
        disappeared_at: b.disappearedAt === null ? null : toWireTime(b.disappearedAt),
      });
    })
    .join(',');
}

/** The v3 policy breaches. */
export const breachRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/breaches',
    group: 'inventory',
    operationId: 'listBreaches',
    summary: 'List policy breaches',
    description:
      "Every breach of the policies (docs/policies.md) by the inventory of the team's monitored assets, one item per (root asset, policy, host name): " +
      "the policies are evaluated after every completed surface-monitoring run over the asset's open ports and active technologies. " +
      'A breach is `NEW` (active) from the run that first finds it, `RESOLVED` with `disappeared_at` once a run no longer does, and `NEW` again ' +
      '(same `first_seen_at`, a new `status_updated_at`) when it returns. `status_updated_before` and `status_updated_after` bound `status_updated_at`; ' +
      '`status` (an extension of perimeter) keeps the breaches of the given statuses, comma-separated or repeated: `status=NEW` lists the open ones. ' +
      `${v3ListDescription}`,
    tags: ['inventory'],
    query: V3BreachListQuery,
    input: v3ListInput('breaches', {
      enums: { status: breachStatuses },
      times: ['status_updated_before', 'status_updated_after'],
    }),
    response: v3ListPage(Breach),
    successStatus: 200,
    errors: [1085, 4150],
    handler: async (ctx) => {
      const request = v3ListRequest(ctx.input, ['status_updated_before', 'status_updated_after', 'status']);
      const statuses = listFilterValues<BreachStatus>(ctx.input, 'status');
      const statusUpdatedBefore = ctx.input['status_updated_before'] as Date | undefined;
      const statusUpdatedAfter = ctx.input['status_updated_after'] as Date | undefined;
      const filter = {
        ...request.filter,
        ...(statusUpdatedBefore === undefined ? {} : { statusUpdatedBefore }),
        ...(statusUpdatedAfter === undefined ? {} : { statusUpdatedAfter }),
        ...(statuses === undefined ? {} : { statuses }),
      };
      const page = await listBreaches(ctx.deps.store, ctx.team.id, filter, request.after, request.limit);
      return {
        status: 200,
        json: v3ListBody(ctx, 'breaches', '/breaches', request, { items: presentBreaches(page), next: page.next }),
      };
    },
  }),
];
