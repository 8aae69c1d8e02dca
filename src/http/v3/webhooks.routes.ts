import { Type } from '@sinclair/typebox';
import { invalidWebhookField, type WebhookBody } from '../../core/webhooks/webhook-input.ts';
import {
  createWebhook,
  deleteWebhook,
  findWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  testWebhook,
  updateWebhook,
  webhookAssetTokens,
} from '../../core/webhooks/webhook.service.ts';
import type { Webhook as WebhookRecord } from '../../core/webhooks/webhook.types.ts';
import { NotFoundProblem } from '../errors.ts';
import { defineRoute, type FieldError, type RouteContext, type RouteDef } from '../route.ts';
import { presentDelivery, presentWebhook } from './webhook.presenter.ts';
import {
  DeliveryIdParams,
  Webhook,
  WebhookCreateBody,
  WebhookDelivery,
  WebhookIdParam,
  WebhookListQuery,
  WebhookUpdateBody,
} from './webhook.schemas.ts';
import { v3ListBody, v3ListInput, v3ListPage, v3ListRequest } from './list-query.ts';

const notFound = "An unknown, malformed or another team's id answers 404 (problem type `/problems/not-found`), alike.";
const fieldRule =
  'A bad field answers 400 (type /problems/1051) whose detail names the field and what is wrong (an unknown event kind names `events`, an asset ' +
  'token that is not one of the team names `assets`, a URL whose host the egress guard refuses names `url`); a missing body 400 (/problems/1050).';
const extension = 'An extension of perimeter (docs/webhooks.md).';
const bodyFields = [
  'name',
  'format',
  'url',
  'recipients',
  'events',
  'min_severity',
  'assets',
  'digest_minutes',
  'enabled',
  'rotate_secret',
];
const fieldErrors: Record<string, FieldError> = Object.fromEntries(
  bodyFields.map((f) => [f, (value: unknown) => invalidWebhookField(f, value)]),
);
const noWebhook = () => new NotFoundProblem('No webhook with this id');
const idParam = { params: { id: noWebhook } };

/** The webhook of the path among the key's teams, or the v3 not-found problem. */
async function requireWebhook(ctx: RouteContext): Promise<WebhookRecord> {
  const webhook = await findWebhook(ctx.deps.store, ctx.caller, ctx.params['id'] ?? '');
  if (webhook === undefined) throw noWebhook();
  return webhook;
}

/** The wire shape of a webhook with its asset tokens. */
async function present(ctx: RouteContext, webhook: WebhookRecord, secret?: string): Promise<Record<string, unknown>> {
  return presentWebhook(webhook, await webhookAssetTokens(ctx.deps.store, webhook), secret);
}

const create = defineRoute({
  surface: 'v3',
  method: 'POST',
  path: '/webhooks',
  group: 'events',
  operationId: 'createWebhook',
  summary: 'Create webhook',
  description:
    `${extension} Subscribes a URL (json, slack, teams) or e-mail recipients (email) to event kinds of one of the key's teams, optionally only at or ` +
    'above a severity and for some assets. It starts at the latest event of the team (the past is not replayed). The answer carries the signing ' +
    '`secret`, shown only here. `team_id` is optional for a key tied to one team, required for a key tied to several (else 400 naming it). ' +
    fieldRule,
  tags: ['webhooks'],
  body: WebhookCreateBody,
  input: { order: ['name', 'format', 'url', 'recipients', 'events'], errors: fieldErrors },
  response: Webhook,
  successStatus: 201,
  errors: [1050, 1051],
  isExtension: true,
  handler: async (ctx) => {
    const { webhook, secret } = await createWebhook(ctx.deps.webhooks, ctx.caller, ctx.body as WebhookBody);
    return { status: 201, body: await present(ctx, webhook, secret) };
  },
});

const list = defineRoute({
  surface: 'v3',
  method: 'GET',
  path: '/webhooks',
  group: 'events',
  operationId: 'listWebhooks',
  summary: 'List webhooks',
  description:
    `${extension} The webhooks of the teams tied to the key, keyset-paged in creation order (then by id); never their secrets. ` +
    'A malformed `cursor` or `limit` answers 400 naming it (type /problems/4150).',
  tags: ['webhooks'],
  query: WebhookListQuery,
  input: v3ListInput('webhooks'),
  response: v3ListPage(Webhook),
  successStatus: 200,
  errors: [4150],
  isExtension: true,
  handler: async (ctx) => {
    const request = v3ListRequest(ctx.input);
    const after =
      request.after === undefined ? undefined : { created: request.after.firstSeenAt, id: request.after.id };
    const page = await listWebhooks(ctx.deps.store, ctx.caller, after, request.limit);
    const items = (await Promise.all(page.items.map((w) => present(ctx, w)))).map((w) => JSON.stringify(w)).join(',');
    const next = page.next === undefined ? undefined : { firstSeenAt: page.next.created, id: page.next.id };
    return { status: 200, json: v3ListBody(ctx, 'webhooks', '/webhooks', request, { items, next }) };
  },
});

const get = defineRoute({
  surface: 'v3',
  method: 'GET',
  path: '/webhooks/{id}',
  group: 'events',
  operationId: 'getWebhook',
  summary: 'Get webhook',
  description: `${extension} One webhook of the key's teams, without its secret. ${notFound}`,
  tags: ['webhooks'],
  params: WebhookIdParam,
  input: idParam,
  response: Webhook,
  successStatus: 200,
  errors: [],
  isExtension: true,
  handler: async (ctx) => ({ status: 200, body: await present(ctx, await requireWebhook(ctx)) }),
});

const update = defineRoute({
  surface: 'v3',
  method: 'PATCH',
  path: '/webhooks/{id}',
  group: 'events',
  operationId: 'updateWebhook',
  summary: 'Update webhook',
  description:
    `${extension} Changes any field. \`rotate_secret: true\` replaces the secret at once and answers the new one (once). Enabling a disabled webhook ` +
    `clears its failure state; it resumes with the first event it had not delivered. ${notFound} ${fieldRule}`,
  tags: ['webhooks'],
  params: WebhookIdParam,
  body: WebhookUpdateBody,
  input: { ...idParam, errors: fieldErrors },
  response: Webhook,
  successStatus: 200,
  errors: [1050, 1051],
  isExtension: true,
  handler: async (ctx) => {
    const updated = await updateWebhook(ctx.deps.webhooks, await requireWebhook(ctx), ctx.body as WebhookBody);
    if (updated === undefined) throw noWebhook();
    return { status: 200, body: await present(ctx, updated.webhook, updated.secret) };
  },
});

const remove = defineRoute({
  surface: 'v3',
  method: 'DELETE',
  path: '/webhooks/{id}',
  group: 'events',
  operationId: 'deleteWebhook',
  summary: 'Delete webhook',
  description: `${extension} Deletes a webhook and its delivery log; answers 204 with no body. ${notFound}`,
  tags: ['webhooks'],
  params: WebhookIdParam,
  input: { ...idParam, isUnusedBodyParsed: true },
  response: Type.Null({ description: 'No body.' }),
  successStatus: 204,
  errors: [],
  isExtension: true,
  handler: async (ctx) => {
    if (!(await deleteWebhook(ctx.deps.store, ctx.caller, ctx.params['id'] ?? ''))) throw noWebhook();
    return { status: 204 };
  },
});

const test = defineRoute({
  surface: 'v3',
  method: 'POST',
  path: '/webhooks/{id}/test',
  group: 'events',
  operationId: 'testWebhook',
  summary: 'Send a test event',
  description:
    `${extension} Sends a \`webhook.test\` event to this webhook only, now (also when it is disabled), signed like every delivery, and answers the ` +
    `delivery (its outcome, status and answer excerpt). The event is not written to the log and changes no failure state. ${notFound}`,
  tags: ['webhooks'],
  params: WebhookIdParam,
  input: { ...idParam, isUnusedBodyParsed: true },
  response: WebhookDelivery,
  successStatus: 200,
  errors: [],
  isExtension: true,
  handler: async (ctx) => ({
    status: 200,
    body: presentDelivery(await testWebhook(ctx.deps.webhooks, await requireWebhook(ctx))),
  }),
});

const deliveries = defineRoute({
  surface: 'v3',
  method: 'GET',
  path: '/webhooks/{id}/deliveries',
  group: 'events',
  operationId: 'listWebhookDeliveries',
  summary: 'List deliveries',
  description:
    `${extension} The delivery log of a webhook, newest first (kept 30 days): each attempt with its event, outcome, HTTP status, error and the ` +
    `first KiB of the answer. Keyset-paged; a malformed \`cursor\` or \`limit\` answers 400 naming it (type /problems/4150). ${notFound}`,
  tags: ['webhooks'],
  params: WebhookIdParam,
  query: WebhookListQuery,
  input: { ...v3ListInput('webhook-deliveries'), ...idParam },
  response: v3ListPage(WebhookDelivery),
  successStatus: 200,
  errors: [4150],
  isExtension: true,
  handler: async (ctx) => {
    const webhook = await requireWebhook(ctx);
    const request = v3ListRequest(ctx.input);
    const page = await listDeliveries(ctx.deps.store, webhook, request.after?.id, request.limit);
    const items = page.items.map((d) => JSON.stringify(presentDelivery(d))).join(',');
    const next = page.next === undefined ? undefined : { firstSeenAt: 0, id: page.next };
    const path = `/webhooks/${webhook.publicId}/deliveries`;
    return { status: 200, json: v3ListBody(ctx, 'webhook-deliveries', path, request, { items, next }) };
  },
});

const redeliverRoute = defineRoute({
  surface: 'v3',
  method: 'POST',
  path: '/webhooks/{id}/deliveries/{delivery_id}/redeliver',
  group: 'events',
  operationId: 'redeliverWebhookDelivery',
  summary: 'Redeliver',
  description:
    `${extension} Sends the event of a delivery again, now, under the same \`webhook-id\` (receivers deduplicate on it), and answers the new ` +
    `delivery. ${notFound} An unknown delivery of the webhook answers 404 too.`,
  tags: ['webhooks'],
  params: DeliveryIdParams,
  input: {
    params: { id: noWebhook, delivery_id: () => new NotFoundProblem('No delivery with this id') },
    isUnusedBodyParsed: true,
  },
  response: WebhookDelivery,
  successStatus: 200,
  errors: [],
  isExtension: true,
  handler: async (ctx) => {
    const webhook = await requireWebhook(ctx);
    const delivery = await redeliver(ctx.deps.webhooks, webhook, ctx.params['delivery_id'] ?? '');
    if (delivery === undefined) throw new NotFoundProblem('No delivery with this id');
    return { status: 200, body: presentDelivery(delivery) };
  },
});

/** The v3 webhook operations (an extension: docs/webhooks.md). */
export const webhookRoutes: RouteDef[] = [create, list, get, update, remove, test, deliveries, redeliverRoute];
