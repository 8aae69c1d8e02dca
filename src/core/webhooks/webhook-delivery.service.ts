import type { EventRecord, NewEvent } from '../events/event.types.ts';
import { newUuid } from '../shared/ids.ts';
import { toWireTime } from '../shared/time.ts';
import { severities } from '../vulnerabilities/vulnerability.types.ts';
import { digestDue } from './email-digest.ts';
import { sendToWebhook, wireEvents, type SendOutcome, type WebhookSendDeps } from './webhook-send.ts';
import type { Webhook, WebhookRepositories } from './webhook.types.ts';

/**
 * The delivery of a webhook's events, in the order of the team's log, at least once: events after
 * the webhook's cursor are read in batches, those its filters leave out are passed over, and each
 * one is sent and then, in ONE transaction, logged and passed by the cursor (a crash between the
 * send and the commit sends the event again, under the same `webhook-id`). A failure stops the
 * run: the events wait, in order, for the next attempt after an exponential back-off; a webhook
 * failing for longer than the retry window, or answered 410 Gone, is disabled, with a
 * `webhook.disabled` event appended in the same transaction.
 */

/** Events read per batch (an e-mail digest takes at most one batch). */
export const deliveryBatch = 500;

/** Deliveries are kept this long (pruned by the scheduler role). */
export const deliveryRetentionMs = 30 * 24 * 3_600_000;

/** What a run answers: nothing more to do now, or the time to try again. */
export type DeliveryRun = { deferUntil: Date } | undefined;

/** True when the webhook's filters keep the event (kinds, minimum severity, assets). */
export function isSubscribed(webhook: Webhook, event: EventRecord): boolean {
  if (!webhook.kinds.includes(event.kind)) return false;
  if (webhook.minSeverity !== null) {
    if (event.severity === null) return false;
    if (severities.indexOf(event.severity) < severities.indexOf(webhook.minSeverity)) return false;
  }
  if (webhook.assetIds.length > 0 && (event.assetId === null || !webhook.assetIds.includes(event.assetId)))
    return false;
  return true;
}

/** The back-off after the n-th consecutive failure: base doubling, capped, with up to 20 % taken off at random. */
export function backoffMs(failures: number, base: number, cap: number, random = Math.random()): number {
  const delay = Math.min(cap, base * 2 ** Math.min(Math.max(failures - 1, 0), 40));
  return Math.max(1, Math.round(delay * (1 - 0.2 * random)));
}

/** A duration in words for a disable reason. */
function durationText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return `${ms / 60_000} minutes`;
  return `${ms} ms`;
}

/** Logs the attempt and, on success, moves the cursor past `through`; on failure records it (and maybe disables). */
async function settle(
  deps: WebhookSendDeps,
  webhook: Webhook,
  sent: readonly EventRecord[],
  through: number,
  outcome: SendOutcome,
): Promise<DeliveryRun> {
  const now = new Date();
  const failures = webhook.consecutiveFailures + 1;
  const failingSince = webhook.failingSince ?? now;
  const isGone = outcome.httpStatus === 410;
  const isExpired = now.getTime() - failingSince.getTime() >= deps.retry.windowMs;
  const retryAt = new Date(now.getTime() + backoffMs(failures, deps.retry.baseMs, deps.retry.capMs));
  await deps.store.transaction(async (tx: WebhookRepositories) => {
    for (const event of sent) {
      await tx.webhooks.insertDelivery({
        publicId: newUuid(),
        teamId: webhook.teamId,
        webhookId: webhook.id,
        eventId: event.id,
        eventPublicId: event.publicId,
        kind: event.kind,
        attempt: failures,
        outcome: outcome.isSuccess ? 'succeeded' : 'failed',
        httpStatus: outcome.httpStatus,
        error: outcome.error,
        responseExcerpt: outcome.excerpt,
        durationMs: outcome.durationMs,
        created: now,
        isTest: false,
        isRedelivery: false,
      });
    }
    if (outcome.isSuccess) return tx.webhooks.advance(webhook.teamId, webhook.id, through);
    if (!isGone && !isExpired) {
      await tx.webhooks.update(webhook.teamId, webhook.id, {
        failingSince,
        consecutiveFailures: failures,
        retryAt,
        updated: webhook.updated,
      });
      return;
    }
    const reason = isGone
      ? 'The receiver answered 410 Gone.'
      : `Deliveries failed for ${durationText(deps.retry.windowMs)} (last: ${outcome.error ?? 'failed'}).`;
    await tx.webhooks.update(webhook.teamId, webhook.id, {
      enabled: false,
      disabledReason: reason,
      failingSince,
      consecutiveFailures: failures,
      retryAt: null,
      updated: now,
    });
    const disabled: NewEvent = {
      teamId: webhook.teamId,
      kind: 'webhook.disabled',
      occurredAt: now,
      data: { webhook_id: webhook.publicId, name: webhook.name, reason, failing_since: toWireTime(failingSince) },
    };
    await tx.events.append([disabled]);
  });
  if (outcome.isSuccess) return undefined;
  deps.log.warn(
    { webhook: webhook.publicId, failures, error: outcome.error, disabled: isGone || isExpired },
    'webhook delivery failed',
  );
  if (isGone || isExpired) return undefined;
  return { deferUntil: retryAt };
}

/** One batch of an e-mail webhook: the due digest (or single e-mail), or the time it is due. */
async function emailBatch(
  deps: WebhookSendDeps,
  webhook: Webhook,
  matched: EventRecord[],
  signal: AbortSignal,
): Promise<{ run: DeliveryRun; isDone: boolean }> {
  const due = digestDue(matched, webhook.digestMinutes, new Date());
  if ('waitUntil' in due) {
    // The pump passes over the webhook until the digest is due (the deferred job sends it then).
    if (webhook.retryAt?.getTime() !== due.waitUntil.getTime())
      await deps.store.webhooks.update(webhook.teamId, webhook.id, {
        retryAt: due.waitUntil,
        updated: webhook.updated,
      });
    return { run: { deferUntil: due.waitUntil }, isDone: true };
  }
  const last = due.send.at(-1);
  if (last === undefined) return { run: undefined, isDone: false };
  const outcome = await sendToWebhook(deps, webhook, wireEvents(due.send), signal);
  const run = await settle(deps, webhook, due.send, last.id, outcome);
  return { run, isDone: !outcome.isSuccess };
}

/**
 * Delivers what is pending for the webhook (its internal id), until it is caught up, a failure
 * defers it, it is disabled, or the signal stops the run (the pump starts it again).
 */
export async function deliverPending(
  deps: WebhookSendDeps,
  webhookId: number,
  signal: AbortSignal,
): Promise<DeliveryRun> {
  for (;;) {
    const webhook = await deps.store.webhooks.findById(webhookId);
    if (webhook === undefined || !webhook.enabled || signal.aborted) return undefined;
    // The latest id first: every event up to it that the list does not return is filtered out.
    const latest = await deps.store.events.latestId(webhook.teamId);
    const batch = await deps.store.events.list(
      webhook.teamId,
      { kinds: webhook.kinds },
      webhook.cursorEventId,
      deliveryBatch,
    );
    const matched = batch.filter((e) => isSubscribed(webhook, e));
    const passed = batch.length < deliveryBatch ? latest : (batch.at(-1)?.id ?? latest);
    if (matched.length === 0) {
      if (passed > webhook.cursorEventId) await deps.store.webhooks.advance(webhook.teamId, webhook.id, passed);
      if (batch.length < deliveryBatch) return undefined;
      continue;
    }
    if (webhook.format === 'email') {
      const { run, isDone } = await emailBatch(deps, webhook, matched, signal);
      if (isDone) return run;
      continue;
    }
    for (const [index, event] of matched.entries()) {
      if (signal.aborted) return undefined;
      const current = index === 0 ? webhook : await deps.store.webhooks.findById(webhookId);
      if (current === undefined || !current.enabled) return undefined;
      const outcome = await sendToWebhook(deps, current, wireEvents([event]), signal);
      const run = await settle(deps, current, [event], event.id, outcome);
      if (!outcome.isSuccess) return run;
    }
    const last = matched.at(-1)!.id;
    if (passed > last) await deps.store.webhooks.advance(webhook.teamId, webhook.id, passed);
  }
}

/** Enqueues the delivery of every enabled webhook behind its team's log (one query); answers how many. */
export async function pumpWebhooks(
  store: Pick<WebhookRepositories, 'webhooks'>,
  enqueue: (webhookId: number) => Promise<unknown>,
): Promise<number> {
  const ids = await store.webhooks.behind(new Date(), 10_000);
  for (const id of ids) await enqueue(id);
  return ids.length;
}

/** Deletes deliveries older than the retention (30 days); answers how many. */
export function pruneWebhookDeliveries(
  store: Pick<WebhookRepositories, 'webhooks'>,
  now = new Date(),
): Promise<number> {
  return store.webhooks.pruneDeliveries(new Date(now.getTime() - deliveryRetentionMs));
}
