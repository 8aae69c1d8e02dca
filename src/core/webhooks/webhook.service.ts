import { appError } from '../errors/app-error.ts';
import type { WireEvent } from '../events/wire-event.ts';
import { isUuid, newUuid } from '../shared/ids.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import { toWireTime } from '../shared/time.ts';
import type { Caller } from '../teams/caller.ts';
import { plans, type EndpointGroup } from '../teams/plans.ts';
import type { Team } from '../teams/team.types.ts';
import { invalidField, webhookLimits, type WebhookBody } from './webhook-input.ts';
import { sendToWebhook, wireEvents, type WebhookSendDeps } from './webhook-send.ts';
import { newWebhookSecret } from './webhook-signing.ts';
import type { Webhook, WebhookDelivery, WebhookPosition, WebhookRepositories } from './webhook.types.ts';

/** What the API's operations need: sending (test, redeliver), and the box that seals secrets. */
export interface WebhookApiDeps extends WebhookSendDeps {
  box: Pick<SecretBox, 'encrypt' | 'decrypt'>;
}

/** A webhook with its secret in clear: only in the answer that made it (create, rotation). */
export interface WebhookWithSecret {
  webhook: Webhook;
  secret: string | undefined;
}

/** A page of webhooks, and the position of its last one when more follow. */
export interface WebhookPage {
  items: Webhook[];
  next: WebhookPosition | undefined;
}

/** The settings of a webhook once checked together. */
type Settings = Pick<
  Webhook,
  'name' | 'format' | 'url' | 'recipients' | 'kinds' | 'minSeverity' | 'assetIds' | 'digestMinutes' | 'enabled'
>;

const webhookGroup: EndpointGroup = 'events';

/** The teams of the key whose plan has the events endpoints (webhooks belong to them). */
export async function webhookTeamsOf(store: WebhookRepositories, caller: Caller): Promise<Team[]> {
  const teams = await Promise.all(caller.teamIds.map((id) => store.teams.findById(id)));
  return teams.filter(
    (t): t is Team => t !== undefined && (plans[t.plan].groups as readonly EndpointGroup[]).includes(webhookGroup),
  );
}

/** The team a create acts for: the key's only team, or the one `team_id` names among the key's teams (1051 otherwise). */
async function resolveTeam(store: WebhookRepositories, caller: Caller, raw: unknown): Promise<Team> {
  const teams = await webhookTeamsOf(store, caller);
  if (raw === undefined || raw === null) {
    if (caller.teamIds.length !== 1)
      throw invalidField('team_id', 'is required: this API key is tied to several teams');
    const [team] = teams;
    if (team === undefined) throw appError(1009, 'This API key cannot access the events endpoints');
    return team;
  }
  const team = typeof raw === 'string' ? teams.find((t) => t.token === raw.trim()) : undefined;
  if (team === undefined) throw invalidField('team_id', 'is not a team of this API key');
  return team;
}

/** The internal ids of the root assets the tokens name in the team (1051 naming `assets` for any other). */
async function resolveAssets(store: WebhookRepositories, teamId: number, tokens: readonly string[]): Promise<number[]> {
  if (tokens.length > webhookLimits.assets)
    throw invalidField('assets', `must have at most ${webhookLimits.assets} asset tokens`);
  const ids = new Set<number>();
  for (const token of new Set(tokens.map((t) => t.trim()))) {
    const asset = await store.assets.findByToken(teamId, token);
    if (asset === undefined) throw invalidField('assets', `names an unknown asset ${JSON.stringify(token)}`);
    // Events carry their root asset: a subdomain stands for its root.
    ids.add(asset.rootId ?? asset.id);
  }
  return [...ids];
}

/** The checks across fields, and the egress guard on the URL's host when it is new. */
async function checkSettings(deps: WebhookApiDeps, s: Settings, isUrlNew: boolean): Promise<void> {
  if (s.format === 'email') {
    if (deps.channels.email === undefined)
      throw invalidField('format', 'email needs an SMTP server, and none is configured (PERIMETER_SMTP_URL)');
    if (s.recipients.length === 0) throw invalidField('recipients', 'is required for format email');
    if (s.url !== null) throw invalidField('url', 'must be absent or null for format email');
    return;
  }
  if (s.url === null) throw invalidField('url', `is required for format ${s.format}`);
  if (s.recipients.length > 0) throw invalidField('recipients', 'is only for format email');
  if (s.digestMinutes !== 0) throw invalidField('digest_minutes', 'is only for format email');
  if (!isUrlNew) return;
  const host = new URL(s.url).hostname;
  const problem = await deps.channels.hostProblem(host, AbortSignal.timeout(deps.timeoutMs));
  if (problem !== undefined)
    throw invalidField(
      'url',
      `names a host whose address is not allowed (${problem}); the operator's PERIMETER_EGRESS_ALLOW allows it`,
    );
}

/** Creates a webhook; it starts at the team's latest event (it does not replay the past). */
export async function createWebhook(
  deps: WebhookApiDeps,
  caller: Caller,
  body: WebhookBody,
  now = new Date(),
): Promise<WebhookWithSecret> {
  if (body.name === undefined) throw invalidField('name', 'is required');
  if (body.events === undefined) throw invalidField('events', 'is required: at least one event kind');
  const team = await resolveTeam(deps.store, caller, body.team_id);
  const format = body.format ?? 'json';
  const settings: Settings = {
    name: body.name.trim(),
    format,
    url: body.url ?? null,
    recipients: (body.recipients ?? []).map((r) => r.trim()),
    kinds: [...new Set(body.events)],
    minSeverity: body.min_severity ?? null,
    assetIds: await resolveAssets(deps.store, team.id, body.assets ?? []),
    digestMinutes: body.digest_minutes ?? 0,
    enabled: body.enabled ?? true,
  };
  await checkSettings(deps, settings, true);
  const secret = newWebhookSecret();
  const webhook = await deps.store.webhooks.insert({
    ...settings,
    publicId: newUuid(),
    teamId: team.id,
    secretSealed: deps.box.encrypt(secret),
    disabledReason: null,
    cursorEventId: await deps.store.events.latestId(team.id),
    failingSince: null,
    consecutiveFailures: 0,
    retryAt: null,
    created: now,
    updated: now,
  });
  return { webhook, secret };
}

/**
 * Applies an update (any field). `rotate_secret: true` makes a new secret, answered once;
 * enabling a disabled webhook clears its failure state and it resumes from its cursor.
 */
export async function updateWebhook(
  deps: WebhookApiDeps,
  current: Webhook,
  body: WebhookBody,
  now = new Date(),
): Promise<WebhookWithSecret | undefined> {
  const format = body.format ?? current.format;
  const isEmail = format === 'email';
  const settings: Settings = {
    name: body.name?.trim() ?? current.name,
    format,
    url: body.url !== undefined ? body.url : isEmail ? null : current.url,
    recipients: body.recipients?.map((r) => r.trim()) ?? (isEmail ? current.recipients : []),
    kinds: body.events === undefined ? current.kinds : [...new Set(body.events)],
    minSeverity: body.min_severity !== undefined ? body.min_severity : current.minSeverity,
    assetIds:
      body.assets === undefined ? current.assetIds : await resolveAssets(deps.store, current.teamId, body.assets),
    digestMinutes: body.digest_minutes ?? (isEmail ? current.digestMinutes : 0),
    enabled: body.enabled ?? current.enabled,
  };
  await checkSettings(deps, settings, settings.url !== current.url);
  const secret = body.rotate_secret === true ? newWebhookSecret() : undefined;
  const isResumed = settings.enabled && !current.enabled;
  const webhook = await deps.store.webhooks.update(current.teamId, current.id, {
    ...settings,
    ...(secret === undefined ? {} : { secretSealed: deps.box.encrypt(secret) }),
    ...(isResumed ? { disabledReason: null, failingSince: null, consecutiveFailures: 0, retryAt: null } : {}),
    ...(!settings.enabled && current.enabled ? { disabledReason: 'Disabled through the API.' } : {}),
    updated: now,
  });
  return webhook === undefined ? undefined : { webhook, secret };
}

/** One page of the webhooks of the key's teams, in creation order (then by id). */
export async function listWebhooks(
  store: WebhookRepositories,
  caller: Caller,
  after: WebhookPosition | undefined,
  limit: number,
): Promise<WebhookPage> {
  const teamIds = (await webhookTeamsOf(store, caller)).map((t) => t.id);
  if (teamIds.length === 0) return { items: [], next: undefined };
  const rows = await store.webhooks.list(teamIds, after, limit + 1);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items,
    next: rows.length > limit && last !== undefined ? { created: last.created.getTime(), id: last.id } : undefined,
  };
}

/** A webhook of the key's teams; undefined when the id is malformed, unknown or another team's. */
export async function findWebhook(
  store: WebhookRepositories,
  caller: Caller,
  id: string,
): Promise<Webhook | undefined> {
  if (!isUuid(id)) return undefined;
  const teamIds = (await webhookTeamsOf(store, caller)).map((t) => t.id);
  return teamIds.length === 0 ? undefined : store.webhooks.findByPublicId(teamIds, id.toLowerCase());
}

/** Deletes a webhook of the key's teams and its deliveries; false when unknown or another team's. */
export async function deleteWebhook(store: WebhookRepositories, caller: Caller, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const teamIds = (await webhookTeamsOf(store, caller)).map((t) => t.id);
  return teamIds.length === 0 ? false : store.webhooks.delete(teamIds, id.toLowerCase());
}

/** The tokens of the webhook's assets that still exist. */
export async function webhookAssetTokens(store: WebhookRepositories, webhook: Webhook): Promise<string[]> {
  const assets = await Promise.all(webhook.assetIds.map((id) => store.assets.findById(webhook.teamId, id)));
  return assets.flatMap((a) => (a === undefined ? [] : [a.token]));
}

/** The test event of a webhook (never in the log); `id` is kept when a test delivery is sent again. */
function testEvent(webhook: Webhook, id: string, now: Date): WireEvent {
  return {
    id,
    type: 'webhook.test',
    timestamp: toWireTime(now),
    data: {
      webhook_id: webhook.publicId,
      name: webhook.name,
      message: 'This is a test event from perimeter: the webhook is reachable and its signature can be checked.',
    },
  };
}

/** Sends one event now, to this webhook only, and logs the delivery (no cursor moves, no failure counts). */
async function sendOnce(
  deps: WebhookApiDeps,
  webhook: Webhook,
  event: WireEvent,
  eventId: number | null,
  isRedelivery: boolean,
): Promise<WebhookDelivery> {
  const outcome = await sendToWebhook(deps, webhook, [event], AbortSignal.timeout(deps.timeoutMs + 1000));
  return deps.store.webhooks.insertDelivery({
    publicId: newUuid(),
    teamId: webhook.teamId,
    webhookId: webhook.id,
    eventId,
    eventPublicId: event.id,
    kind: event.type as WebhookDelivery['kind'],
    attempt: 1,
    outcome: outcome.isSuccess ? 'succeeded' : 'failed',
    httpStatus: outcome.httpStatus,
    error: outcome.error,
    responseExcerpt: outcome.excerpt,
    durationMs: outcome.durationMs,
    created: new Date(),
    isTest: eventId === null,
    isRedelivery,
  });
}

/** Sends a `webhook.test` event to the webhook now (even when disabled) and answers the delivery. */
export function testWebhook(deps: WebhookApiDeps, webhook: Webhook): Promise<WebhookDelivery> {
  return sendOnce(deps, webhook, testEvent(webhook, newUuid(), new Date()), null, false);
}

/** Sends the event of a delivery again now, under the same `webhook-id`; undefined when the delivery is unknown. */
export async function redeliver(
  deps: WebhookApiDeps,
  webhook: Webhook,
  deliveryId: string,
): Promise<WebhookDelivery | undefined> {
  if (!isUuid(deliveryId)) return undefined;
  const delivery = await deps.store.webhooks.findDelivery(webhook.teamId, webhook.id, deliveryId.toLowerCase());
  if (delivery === undefined) return undefined;
  if (delivery.eventId === null)
    return sendOnce(deps, webhook, testEvent(webhook, delivery.eventPublicId, new Date()), null, true);
  const event = await deps.store.events.findByPublicId(webhook.teamId, delivery.eventPublicId);
  if (event === undefined) return undefined;
  return sendOnce(deps, webhook, wireEvents([event])[0]!, event.id, true);
}

/** One page of a webhook's deliveries, newest first; `next` is the id to continue below. */
export async function listDeliveries(
  store: WebhookRepositories,
  webhook: Webhook,
  beforeId: number | undefined,
  limit: number,
): Promise<{ items: WebhookDelivery[]; next: number | undefined }> {
  const rows = await store.webhooks.listDeliveries(webhook.teamId, webhook.id, beforeId, limit + 1);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, next: rows.length > limit && last !== undefined ? last.id : undefined };
}
