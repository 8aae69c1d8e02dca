import { Worker } from 'node:worker_threads';
import type { Config } from '../config/config.ts';
import type { DeliveryRun } from '../core/webhooks/webhook-delivery.service.ts';
import type { WebhookThreadData, WebhookThreadMessage, WebhookThreadRequest } from './webhook-thread.types.ts';

const workerUrl = new URL('./webhook-thread-worker.mjs', import.meta.url);

/** Delivers a webhook's pending events off the event loop (see createWebhookDeliveryThread). */
export interface WebhookDeliveryThread {
  deliver(webhookId: number, signal: AbortSignal): Promise<DeliveryRun>;
  /** True while the thread runs (it starts with the first delivery). */
  readonly isRunning: boolean;
  /** Ends the thread as its death would: its runs fail (their jobs retry), the next delivery starts a new one. */
  terminateThread(): Promise<void>;
  /** Aborts the deliveries in flight, lets them settle, closes the thread's store and ends it. */
  close(): Promise<void>;
}

interface Pending {
  resolve: (run: DeliveryRun) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  ready: Promise<void>;
  pending: Map<number, Pending>;
  closed?: Promise<void>;
}

/**
 * Runs the webhook deliveries of the process on a worker thread of their own (webhook-thread.ts),
 * so that sending, signing and settling thousands of deliveries a minute leaves the event loop to
 * the API: in one process with every role, deliveries on the loop moved the list's p99 several
 * times over (docs/benchmarks.md, `events-fanout`). The job queue stays on the loop: a delivery
 * job's handler hands its webhook to the thread and answers what the thread's run answered, and
 * its signal aborts the run there. A thread that dies fails its deliveries (their jobs retry) and
 * the next delivery starts a new one.
 */
export function createWebhookDeliveryThread(config: Config): WebhookDeliveryThread {
  let thread: Thread | undefined;
  let nextId = 1;
  let isClosed = false;
  const start = (): Thread => {
    const started = startThread(config, () => {
      if (thread === started) thread = undefined;
    });
    return started;
  };

  const send = (target: Thread, request: WebhookThreadRequest) => target.worker.postMessage(request);

  return {
    async deliver(webhookId, signal) {
      if (isClosed) throw new Error('the webhook delivery thread is closed');
      if (signal.aborted) return undefined;
      thread ??= start();
      const current = thread;
      await current.ready;
      const id = nextId++;
      return new Promise<DeliveryRun>((resolve, reject) => {
        const abort = () => send(current, { kind: 'abort', id });
        signal.addEventListener('abort', abort, { once: true });
        current.pending.set(id, {
          resolve: (run) => {
            signal.removeEventListener('abort', abort);
            resolve(run);
          },
          reject: (err) => {
            signal.removeEventListener('abort', abort);
            reject(err);
          },
        });
        send(current, { kind: 'deliver', id, webhookId });
      });
    },
    get isRunning() {
      return thread !== undefined;
    },
    async terminateThread() {
      await thread?.worker.terminate();
    },
    async close() {
      isClosed = true;
      const current = thread;
      if (current === undefined) return;
      current.closed ??= new Promise<void>((resolve) => {
        current.worker.once('exit', () => resolve());
        // The thread ends its deliveries and its store; one that does not within 10 s is ended.
        const timer = setTimeout(() => void current.worker.terminate(), 10_000);
        current.worker.once('exit', () => clearTimeout(timer));
        send(current, { kind: 'close' });
      });
      await current.closed;
    },
  };
}

/**
 * Starts the thread; `onEnd` runs when it dies or exits, after its runs in flight were failed.
 * Unreferenced: its deliveries' jobs keep the process alive while they run, an idle thread does not.
 */
function startThread(config: Config, onEnd: () => void): Thread {
  const data: WebhookThreadData = { config };
  const worker = new Worker(workerUrl, { workerData: data });
  worker.unref();
  const pending = new Map<number, Pending>();
  let markReady: () => void = () => {};
  let failReady: (err: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  ready.catch(() => undefined);
  const end = (reason: string) => {
    onEnd();
    const err = new Error(`the webhook delivery thread stopped: ${reason}`);
    failReady(err);
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('message', (message: WebhookThreadMessage) => {
    if (message.kind === 'ready') markReady();
    else if (message.kind === 'failed-to-start') end(`it could not open the store: ${message.error}`);
    else if (message.kind === 'done') {
      const p = pending.get(message.id);
      pending.delete(message.id);
      if (p === undefined) return;
      if (message.error !== undefined) p.reject(new Error(message.error));
      else p.resolve(message.deferUntilMs === undefined ? undefined : { deferUntil: new Date(message.deferUntilMs) });
    }
  });
  worker.on('error', (err) => end(err.message));
  worker.on('exit', (code) => end(`it exited with code ${code}`));
  return { worker, ready, pending };
}
