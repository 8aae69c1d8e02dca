import { Type } from '@sinclair/typebox';
import {
  connectorExternalId,
  createConnector,
  deleteConnector,
  findConnector,
  invalidConnectorName,
  invalidConnectorOptions,
  invalidConnectorProvider,
  listConnectorAssets,
  listConnectors,
  type ConnectorBody,
} from '../../core/connectors/connector.service.ts';
import { requestConnectorRun } from '../../core/connectors/connector-run.service.ts';
import { NotFoundProblem } from '../errors.ts';
import { defineRoute, type RouteContext, type RouteDef } from '../route.ts';
import { presentConnector, presentConnectorAsset } from './connector.presenter.ts';
import {
  Connector,
  ConnectorAssetList,
  ConnectorAssetsQuery,
  ConnectorCreateBody,
  ConnectorIdParam,
  ConnectorListQuery,
  ExternalId,
  ExternalIdQuery,
} from './connector.schemas.ts';
import { v3ListBody, v3ListInput, v3ListPage, v3ListRequest } from './list-query.ts';

const runs =
  "A run imports the account's DNS zones and records, public addresses and CDN or load balancer host names as assets; one runs on create, daily, and on demand " +
  '(POST /connectors/{id}/run); `last_run` is the latest run (docs/connectors.md).';
const notFound = "An unknown, malformed or another team's id answers 404 (problem type `/problems/not-found`), alike.";
const teamRule = (problemType: string) =>
  "`team_id` is optional for a key tied to one team and required for a key tied to several; it must be the token of one of the key's teams " +
  `(any other value, an unknown team or another team, answers the same 400 naming \`team_id\`, type ${problemType}).`;

/** The connector of the path among the key's teams, or the v3 not-found problem. */
async function requireConnector(ctx: RouteContext) {
  const connector = await findConnector(ctx.deps.store, ctx.caller, ctx.params['id'] ?? '');
  if (connector === undefined) throw new NotFoundProblem('No connector with this id');
  return connector;
}

/** The v3 connector operations and the team's external ID. */
export const connectorRoutes: RouteDef[] = [
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/connectors',
    group: 'connectors',
    operationId: 'listConnectors',
    summary: 'List connectors',
    description:
      'The connectors of the teams tied to the key, keyset-paged in creation order (then by id): following `next` never repeats a connector nor skips one ' +
      'that existed when paging started. A malformed `cursor` or `limit` answers 400 naming it (type /problems/4150). ' +
      `Options are never part of a connector. ${runs}`,
    tags: ['connectors'],
    query: ConnectorListQuery,
    input: v3ListInput('connectors'),
    response: v3ListPage(Connector),
    successStatus: 200,
    errors: [4150],
    handler: async (ctx) => {
      // Only cursor and limit: connectors have no time filters, and `next` repeats no others.
      const request = v3ListRequest(ctx.input);
      const after =
        request.after === undefined ? undefined : { created: request.after.firstSeenAt, id: request.after.id };
      const page = await listConnectors(ctx.deps.store, ctx.caller, after, request.limit);
      const items = page.items.map((c) => JSON.stringify(presentConnector(c))).join(',');
      const next = page.next === undefined ? undefined : { firstSeenAt: page.next.created, id: page.next.id };
      return { status: 200, json: v3ListBody(ctx, 'connectors', '/connectors', request, { items, next }) };
    },
  }),
  defineRoute({
    surface: 'v3',
    method: 'POST',
    path: '/connectors',
    group: 'connectors',
    operationId: 'createConnector',
    summary: 'Create connector',
    description:
      `Stores a connector for one of the key's teams. ${teamRule('/problems/1051')} A bad field answers 400 (type /problems/1051) whose detail names the field and what is wrong; ` +
      'a missing body 400 (/problems/1050), a body that is not a JSON object 400 (/problems/1051). ' +
      `The options are stored only encrypted with the server key and are never returned. ${runs}`,
    tags: ['connectors'],
    body: ConnectorCreateBody,
    input: {
      order: ['name', 'provider', 'options'],
      errors: { name: invalidConnectorName, provider: invalidConnectorProvider, options: invalidConnectorOptions },
    },
    response: Connector,
    successStatus: 201,
    errors: [1050, 1051],
    handler: async (ctx) => {
      const connector = await createConnector(ctx.deps.store, ctx.deps.box, ctx.caller, ctx.body as ConnectorBody);
      // Its first run is queued at once: the answer shows it QUEUED.
      return { status: 201, body: presentConnector(await requestConnectorRun(ctx.deps.connectorRuns, connector)) };
    },
  }),
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/connectors/external-id',
    group: 'connectors',
    operationId: 'getConnectorExternalId',
    summary: 'Get external ID',
    description:
      'The external ID of a team, for the trust policy of a role-based connector: 32 random hexadecimal characters, made on the first request for the team ' +
      `and the same for every request and connector afterwards. ${teamRule('/problems/4150')}`,
    tags: ['connectors'],
    query: ExternalIdQuery,
    response: ExternalId,
    successStatus: 200,
    errors: [4150],
    handler: async (ctx) => {
      const { team, externalId } = await connectorExternalId(
        ctx.deps.store,
        ctx.caller,
        ctx.input['team_id'] as string | undefined,
      );
      return { status: 200, body: { external_id: externalId, team_id: team.token } };
    },
  }),
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/connectors/{id}',
    group: 'connectors',
    operationId: 'getConnector',
    summary: 'Get connector',
    description: `One connector of the key's teams, without its options. ${notFound} ${runs}`,
    tags: ['connectors'],
    params: ConnectorIdParam,
    input: { params: { id: () => new NotFoundProblem('No connector with this id') } },
    response: Connector,
    successStatus: 200,
    errors: [],
    handler: async (ctx) => ({ status: 200, body: presentConnector(await requireConnector(ctx)) }),
  }),
  defineRoute({
    surface: 'v3',
    method: 'DELETE',
    path: '/connectors/{id}',
    group: 'connectors',
    operationId: 'deleteConnector',
    summary: 'Delete connector',
    description: `Deletes a connector of the key's teams and its stored options; answers 204 with no body. ${notFound}`,
    tags: ['connectors'],
    params: ConnectorIdParam,
    input: { params: { id: () => new NotFoundProblem('No connector with this id') } },
    response: Type.Null({ description: 'No body.' }),
    successStatus: 204,
    errors: [],
    handler: async (ctx) => {
      if (!(await deleteConnector(ctx.deps.store, ctx.caller, ctx.params['id'] ?? '')))
        throw new NotFoundProblem('No connector with this id');
      return { status: 204 };
    },
  }),
  defineRoute({
    surface: 'v3',
    method: 'POST',
    path: '/connectors/{id}/run',
    group: 'connectors',
    operationId: 'runConnector',
    summary: 'Run connector (extension)',
    description:
      'Queues a run of the connector now and answers 202 with the connector, `last_run.status` QUEUED (or RUNNING). While a run is queued or running, ' +
      `no second one is queued: the answer shows that run. The next daily run is then due a day later. ${notFound}`,
    tags: ['connectors'],
    params: ConnectorIdParam,
    input: { params: { id: () => new NotFoundProblem('No connector with this id') } },
    response: Connector,
    successStatus: 202,
    errors: [],
    handler: async (ctx) => ({
      status: 202,
      body: presentConnector(await requestConnectorRun(ctx.deps.connectorRuns, await requireConnector(ctx))),
    }),
  }),
  defineRoute({
    surface: 'v3',
    method: 'GET',
    path: '/connectors/{id}/assets',
    group: 'connectors',
    operationId: 'listConnectorAssets',
    summary: "List a connector's assets (extension)",
    description:
      "The names and addresses the connector's runs brought in (zones, names of their records, host names, public addresses), those the provider still " +
      'has first, then by kind and name, at most `limit` (1–1000, default 1000); `total` and `gone` count them all. One that a later run no longer saw ' +
      `is \`gone_from_provider\`: runs never delete an asset. ${notFound}`,
    tags: ['connectors'],
    params: ConnectorIdParam,
    query: ConnectorAssetsQuery,
    input: { params: { id: () => new NotFoundProblem('No connector with this id') } },
    response: ConnectorAssetList,
    successStatus: 200,
    errors: [4150],
    handler: async (ctx) => {
      const connector = await requireConnector(ctx);
      const limit = ctx.input['limit'] === undefined ? 1000 : Number(ctx.input['limit']);
      const page = await listConnectorAssets(ctx.deps.store, connector, limit);
      return {
        status: 200,
        body: { items: page.items.map(presentConnectorAsset), total: page.total, gone: page.gone },
      };
    },
  }),
];
