import type { Config } from '../config/config.ts';

// The messages between the process and its webhook delivery thread (threaded-webhook-delivery.ts,
// webhook-thread.ts).

/** What the delivery thread is started with: the configuration, never live objects (they cannot cross threads). */
export interface WebhookThreadData {
  config: Config;
}

/** Messages to the delivery thread: deliver a webhook's pending events, abort a delivery, or close. */
export type WebhookThreadRequest =
  { kind: 'deliver'; id: number; webhookId: number } | { kind: 'abort'; id: number } | { kind: 'close' };

/** Messages from the delivery thread: ready (its store is open), a delivery's end, or closed. */
export type WebhookThreadMessage =
  | { kind: 'ready' }
  | { kind: 'failed-to-start'; error: string }
  | { kind: 'done'; id: number; deferUntilMs?: number; error?: string }
  | { kind: 'closed' };
