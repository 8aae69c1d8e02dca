import { deliverPending, pumpWebhooks } from '../core/webhooks/webhook-delivery.service.ts';
import type { HttpAnswer, WebhookChannels } from '../core/webhooks/webhook-channels.ts';
import type { EmailSender } from '../core/webhooks/webhook-format.types.ts';
import type { WebhookSendDeps } from '../core/webhooks/webhook-send.ts';
import type { WebhookApiDeps } from '../core/webhooks/webhook.service.ts';
import type { ServiceLogger } from '../core/shared/service-logger.ts';
import type { WebhookRepositories } from '../core/webhooks/webhook.types.ts';
import {
  EgressDeniedError,
  resolveGuarded,
  type AddressResolver,
  type EgressGuard,
} from '../engine/net/egress-guard.ts';
import { createGuardedRequest } from '../engine/net/guarded-request.ts';
import type { JobHandler, JobQueue } from './job-queue.ts';
import type { WebhookDeliveryThread } from './threaded-webhook-delivery.ts';

/** Kind of the delivery job of one webhook. */
export const webhookDeliverKind = 'webhook.deliver';

/** Time limit of one delivery (connection, answer headers and body), in milliseconds. */
export const webhookTimeoutMs = 10_000;

interface Payload {
  webhookId: number;
}

/** Enqueues the delivery of a webhook: one job at a time per webhook (singleton by its id), so events leave in order. */
export function enqueueWebhookDelivery(jobs: JobQueue, webhookId: number): Promise<string> {
  return jobs.enqueue(webhookDeliverKind, { webhookId }, { singletonKey: `webhook:${webhookId}` });
}

/** Enqueues the delivery of every enabled webhook behind its team's event log (the pump; one query). */
export function pumpWebhookDeliveries(store: Pick<WebhookRepositories, 'webhooks'>, jobs: JobQueue): Promise<number> {
  return pumpWebhooks(store, (id) => enqueueWebhookDelivery(jobs, id));
}

/**
 * The delivery channels over the engine: HTTP through undici's request() (guarded-request.ts: cheaper
 * than fetch for many small deliveries) whose every connection passes the
 * egress guard (no redirects followed), the guard's verdict on a URL's host, and the e-mail
 * sender when SMTP is configured.
 */
export function webhookChannelsOf(options: {
  guard: EgressGuard;
  resolver: AddressResolver;
  email: EmailSender | undefined;
}): WebhookChannels {
  const send = createGuardedRequest({ guard: options.guard, resolver: options.resolver, timeoutMs: webhookTimeoutMs });
  return {
    post(url, headers, body, signal): Promise<HttpAnswer> {
      return send(url, { method: 'POST', headers, body, signal });
    },
    async hostProblem(host, signal) {
      try {
        const addresses = await resolveGuarded(host, options.guard, options.resolver, signal);
        return addresses.length === 0 ? `${host} has no address` : undefined;
      } catch (err) {
        if (err instanceof EgressDeniedError) return err.reason;
        return `${host} could not be resolved: ${(err as Error).message}`;
      }
    },
    email: options.email,
  };
}

/**
 * Delivers a webhook's pending events in order (deliverPending), on the delivery thread when the
 * process has one (threaded-webhook-delivery.ts), else on the event loop; a failure answers a
 * deferral at the back-off, so the job waits (not counted as an attempt) and the events keep their order.
 */
export function webhookDeliveryHandler(
  deps: WebhookSendDeps,
  thread: Pick<WebhookDeliveryThread, 'deliver'> | undefined,
): JobHandler<Payload> {
  return {
    kind: webhookDeliverKind,
    retryLimit: 10,
    retryDelayMs: 5000,
    parse(payload) {
      const id = (payload as Partial<Payload> | null)?.webhookId;
      if (typeof id !== 'number' || !Number.isSafeInteger(id))
        throw new Error('webhook.deliver payload needs webhookId');
      return { webhookId: id };
    },
    handle: (payload, ctx) =>
      thread === undefined
        ? deliverPending({ ...deps, log: ctx.log }, payload.webhookId, ctx.signal)
        : thread.deliver(payload.webhookId, ctx.signal),
  };
}

/** What the webhook pipeline is wired from (the runtime has all of it). */
export interface WebhookWiring {
  store: WebhookApiDeps['store'];
  box: WebhookApiDeps['box'];
  config: {
    publicUrl: string | undefined;
    port: number;
    webhookRetryBaseMs: number;
    webhookRetryCapMs: number;
    webhookRetryWindowMs: number;
  };
  log: ServiceLogger;
  guard: EgressGuard;
  resolver: AddressResolver;
  emailSender: EmailSender | undefined;
}

/** The dependencies of the webhook API and delivery job, wired from the runtime's parts. */
export function webhookDepsOf(wiring: WebhookWiring): WebhookApiDeps {
  const { config } = wiring;
  return {
    store: wiring.store,
    box: wiring.box,
    channels: webhookChannelsOf({ guard: wiring.guard, resolver: wiring.resolver, email: wiring.emailSender }),
    consoleBase: (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, ''),
    timeoutMs: webhookTimeoutMs,
    retry: {
      baseMs: config.webhookRetryBaseMs,
      capMs: config.webhookRetryCapMs,
      windowMs: config.webhookRetryWindowMs,
    },
    log: wiring.log,
  };
}

/** A running pump (see startWebhookPump). */
export interface WebhookPump {
  /** One round now: answers how many deliveries it enqueued. */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The pump of the scheduler role: every pollMs, one query finds the enabled webhooks behind their
 * team's event log and enqueues their delivery job (a singleton per webhook: one already queued,
 * deferred or running is not doubled).
 */
export function startWebhookPump(
  options: { store: Pick<WebhookRepositories, 'webhooks'>; jobs: JobQueue; pollMs: number },
  log: ServiceLogger,
): WebhookPump {
  let isStopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<number> = Promise.resolve(0);
  const tick = (): Promise<number> => {
    round = round.then(async () => {
      if (isStopped) return 0;
      try {
        return await pumpWebhookDeliveries(options.store, options.jobs);
      } catch (err) {
        log.warn({ err }, 'webhook pump round failed');
        return 0;
      }
    });
    return round;
  };
  const loop = () => {
    timer = setTimeout(() => void tick().finally(() => !isStopped && loop()), options.pollMs);
  };
  loop();
  return {
    tick,
    async stop() {
      isStopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
