import type { EventRecord, NewEvent } from '../events/event.types.ts';
import { newUuid } from '../shared/ids.ts';
import { toWireTime } from '../shared/time.ts';
import { severities } from '../vulnerabilities/vulnerability.types.ts';
import { digestDue } from './email-digest.ts';
import {
  prepareSend,
  sendToWebhook,
  wireEvents,
  type PreparedSend,
  type SendOutcome,
  type WebhookSendDeps,
} from './webhook-send.ts';
import type { NewWebhookDelivery, Webhook, WebhookRepositories } from './webhook.types.ts';

/**
 * The delivery of a webhook's events, in the order of the team's log, at least once: events after
 * the webhook's cursor are read in batches, those its filters leave out are passed over, and they
 * are sent one after another; each group of successes is then, in ONE transaction, logged and
 * passed by the cursor (a crash between a send and its group's commit sends the group's events
 * again, under the same `webhook-id`: at most settleGroup.maxEvents). A failure stops the
 * run: the events wait, in order, for the next attempt after an exponential back-off; a webhook
 * failing for longer than the retry window, or answered 410 Gone, is disabled, with a
 * `webhook.disabled` event appended in the same transaction.
 */

/** Events read per batch (an e-mail digest takes at most one batch). */
export const deliveryBatch = 500;

/** Deliveries are kept this long (pruned by the scheduler role). */
export const deliveryRetentionMs = 30 * 24 * 3_600_000;

/** How much one run delivers before its job hands the queue's slot back (whichever comes first). */
export interface DeliverySlice {
  maxMs: number;
  maxEvents: number;
}

/** The slice of a delivery run: 2 s or 500 events. */
export const deliverySlice: DeliverySlice = { maxMs: 2000, maxEvents: 500 };

/**
 * Successes settled together (delivery rows and cursor in one transaction): every 50, or 250 ms
 * after the group's first; a failure, a stop or the end of the slice settles the group at once.
 * A process killed before its group's commit sends the group's events again.
 */
export const settleGroup = { maxEvents: 50, maxMs: 250 };

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

/** One event sent with success, waiting for its group's commit. */
interface Sent {
  event: EventRecord;
  outcome: SendOutcome;
  attempt: number;
  at: Date;
}

/** A failed send: the events it carried and its outcome. */
interface Failure {
  events: readonly EventRecord[];
  outcome: SendOutcome;
}

/** The delivery log row of an attempt. */
function deliveryRow(webhook: Webhook, event: EventRecord, sent: Omit<Sent, 'event'>): NewWebhookDelivery {
  const { outcome } = sent;
  return {
    publicId: newUuid(),
    teamId: webhook.teamId,
    webhookId: webhook.id,
    eventId: event.id,
    eventPublicId: event.publicId,
    kind: event.kind,
    attempt: sent.attempt,
    outcome: outcome.isSuccess ? 'succeeded' : 'failed',
    httpStatus: outcome.httpStatus,
    error: outcome.error,
    responseExcerpt: outcome.excerpt,
    durationMs: outcome.durationMs,
    created: sent.at,
    isTest: false,
    isRedelivery: false,
  };
}

/**
 * Settles a group in ONE transaction: logs its successes (one bulk insert) and moves the cursor
 * to `through`; then, on a failure, logs it and records it (back-off, or disable with a
 * `webhook.disabled` event). `webhook` holds the failure state the group started from.
 */
async function settle(
  deps: WebhookSendDeps,
  webhook: Webhook,
  group: readonly Sent[],
  through: number,
  failure?: Failure,
): Promise<DeliveryRun> {
  const now = new Date();
  const failures = webhook.consecutiveFailures + 1;
  const failingSince = webhook.failingSince ?? now;
  const isGone = failure?.outcome.httpStatus === 410;
  const isExpired = now.getTime() - failingSince.getTime() >= deps.retry.windowMs;
  const retryAt = new Date(now.getTime() + backoffMs(failures, deps.retry.baseMs, deps.retry.capMs));
  const rows = group.map((sent) => deliveryRow(webhook, sent.event, sent));
  for (const event of failure?.events ?? [])
    rows.push(deliveryRow(webhook, event, { ...failure!, attempt: failures, at: now }));
  await deps.store.transaction(async (tx: WebhookRepositories) => {
    if (rows.length > 0) await tx.webhooks.insertDeliveries(rows);
    if (through > webhook.cursorEventId) await tx.webhooks.advance(webhook.teamId, webhook.id, through);
    if (failure === undefined) return;
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
      : `Deliveries failed for ${durationText(deps.retry.windowMs)} (last: ${failure.outcome.error ?? 'failed'}).`;
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
  if (failure === undefined) return undefined;
  deps.log.warn(
    { webhook: webhook.publicId, failures, error: failure.outcome.error, disabled: isGone || isExpired },
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
  if (!outcome.isSuccess) {
    const run = await settle(deps, webhook, [], webhook.cursorEventId, { events: due.send, outcome });
    return { run, isDone: true };
  }
  const at = new Date();
  const group = due.send.map((event) => ({ event, outcome, attempt: webhook.consecutiveFailures + 1, at }));
  await settle(deps, webhook, group, last.id, undefined);
  return { run: undefined, isDone: false };
}

/** What a run has spent of its slice. */
interface RunBudget {
  started: number;
  sent: number;
  slice: DeliverySlice;
}

/**
 * How far past now a run that used its slice defers its job: the queue hands the freed slot to a
 * job already waiting first (pg-boss takes the oldest job due, and a deferred job keeps its age).
 */
export const sliceGapMs = 100;

/** True when another enabled webhook is behind its team's log (one query): a spent run then yields. */
async function othersWaiting(deps: WebhookSendDeps, webhookId: number): Promise<boolean> {
  const behind = await deps.store.webhooks.behind(new Date(), 2);
  return behind.some((id) => id !== webhookId);
}

/** True once the run has used its slice (its job hands the slot back if others wait). */
function isSpent(budget: RunBudget): boolean {
  return budget.sent >= budget.slice.maxEvents || Date.now() - budget.started >= budget.slice.maxMs;
}

/**
 * Sends the matched events of one batch one after another, settling the successes in groups
 * (settleGroup) and at once on a failure, at the end of the slice or when the run is stopped.
 * `through` is where the cursor goes once every matched event is sent (filtered events after the last).
 */
async function sendMatched(
  deps: WebhookSendDeps,
  webhook: Webhook,
  matched: readonly EventRecord[],
  through: number,
  run: { signal: AbortSignal; prepared: PreparedSend; budget: RunBudget },
): Promise<{ run: DeliveryRun; isDone: boolean }> {
  let state = webhook;
  let group: Sent[] = [];
  let groupStarted = Date.now();
  let attempt = webhook.consecutiveFailures + 1;
  const flush = async (to: number, failure?: Failure): Promise<DeliveryRun> => {
    if (group.length === 0 && failure === undefined && to <= state.cursorEventId) return undefined;
    const answer = await settle(deps, state, group, to, failure);
    if (group.length > 0) state = { ...state, cursorEventId: to, consecutiveFailures: 0, failingSince: null };
    group = [];
    return answer;
  };
  const sentThrough = () => group.at(-1)?.event.id ?? state.cursorEventId;
  for (const event of matched) {
    if (run.signal.aborted) return { run: await flush(sentThrough()), isDone: true };
    if (isSpent(run.budget)) {
      // Settled here; the run's loop decides whether the job hands its slot back.
      await flush(sentThrough());
      return { run: undefined, isDone: false };
    }
    const outcome = await sendToWebhook(deps, state, wireEvents([event]), run.signal, run.prepared);
    // A send cut short by the stop is not the receiver's failure: the event goes again next run.
    if (!outcome.isSuccess && run.signal.aborted) return { run: await flush(sentThrough()), isDone: true };
    if (!outcome.isSuccess) {
      const failed = {
        ...state,
        consecutiveFailures: attempt - 1,
        failingSince: group.length > 0 ? null : state.failingSince,
      };
      state = failed;
      return { run: await flush(sentThrough(), { events: [event], outcome }), isDone: true };
    }
    if (group.length === 0) groupStarted = Date.now();
    group.push({ event, outcome, attempt, at: new Date() });
    attempt = 1;
    run.budget.sent += 1;
    if (group.length >= settleGroup.maxEvents || Date.now() - groupStarted >= settleGroup.maxMs)
      await flush(sentThrough());
  }
  await flush(Math.max(through, sentThrough()));
  return { run: undefined, isDone: false };
}

/**
 * Delivers what is pending for the webhook (its internal id), until it is caught up, a failure
 * defers it, it is disabled, the signal stops the run (the pump starts it again), or the run has
 * used its slice while another webhook is behind: it then answers a deferral to just after now
 * (sliceGapMs), so its job hands the queue's slot to the webhooks waiting and comes back after
 * them (a deferral is not an attempt). The team and the secret are read once a run.
 */
export async function deliverPending(
  deps: WebhookSendDeps,
  webhookId: number,
  signal: AbortSignal,
  slice: DeliverySlice = deliverySlice,
): Promise<DeliveryRun> {
  const budget: RunBudget = { started: Date.now(), sent: 0, slice };
  let prepared: PreparedSend | undefined;
  for (;;) {
    const webhook = await deps.store.webhooks.findById(webhookId);
    if (webhook === undefined || !webhook.enabled || signal.aborted) return undefined;
    if (isSpent(budget)) {
      if (await othersWaiting(deps, webhookId)) return { deferUntil: new Date(Date.now() + sliceGapMs) };
      budget.started = Date.now();
      budget.sent = 0;
    }
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
    const { run, isDone } =
      webhook.format === 'email'
        ? await emailBatch(deps, webhook, matched, signal)
        : await sendMatched(deps, webhook, matched, passed, {
            signal,
            budget,
            prepared: (prepared =
              prepared?.sealed === webhook.secretSealed ? prepared : await prepareSend(deps, webhook)),
          });
    if (isDone) return run;
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
