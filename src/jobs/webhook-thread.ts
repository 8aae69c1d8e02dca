import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import type { Config } from '../config/config.ts';
import { SecretBox } from '../core/shared/secret-box.ts';
import { deliverPending } from '../core/webhooks/webhook-delivery.service.ts';
import { NameTokenCodec } from '../core/zones/name-token.ts';
import { createDnsResolver } from '../engine/dns/resolver.ts';
import { EgressGuard } from '../engine/net/egress-guard.ts';
import { loadServerKey, renderers } from '../runtime.ts';
import { openDatabase } from '../storage/database.ts';
import { createStore } from '../storage/store.ts';
import { webhookDepsOf } from './webhook-delivery.job.ts';
import type { WebhookThreadData, WebhookThreadMessage, WebhookThreadRequest } from './webhook-thread.types.ts';

/**
 * The thread side of threaded-webhook-delivery.ts: the webhook deliveries of this process, with a
 * store connection, a guard, a resolver and an e-mail sender of its own, built from the
 * configuration as the process builds them. Every delivery runs deliverPending, the same core
 * function the event loop runs when there is no thread; the thread writes the store as the core
 * does (deliveries, cursors, the `webhook.disabled` event), through its own connection.
 */
export async function serveWebhookThread(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('serveWebhookThread runs in a worker thread');
  const { config } = workerData as WebhookThreadData;
  const post = (message: WebhookThreadMessage): void => port.postMessage(message);
  const log = pino({ level: config.logLevel }).child({ component: 'webhooks', thread: 'delivery' });
  let opened: Awaited<ReturnType<typeof open>>;
  try {
    opened = await open(config, log);
  } catch (err) {
    post({ kind: 'failed-to-start', error: err instanceof Error ? err.message : String(err) });
    return;
  }
  const { deps, database } = opened;
  const running = new Map<number, AbortController>();
  const deliveries = new Set<Promise<void>>();

  const deliver = async (id: number, webhookId: number): Promise<void> => {
    const controller = new AbortController();
    running.set(id, controller);
    try {
      const run = await deliverPending(deps, webhookId, controller.signal);
      post({ kind: 'done', id, ...(run === undefined ? {} : { deferUntilMs: run.deferUntil.getTime() }) });
    } catch (err) {
      post({ kind: 'done', id, error: err instanceof Error ? err.message : String(err) });
    } finally {
      running.delete(id);
    }
  };

  port.on('message', (request: WebhookThreadRequest) => {
    switch (request.kind) {
      case 'deliver': {
        const delivery = deliver(request.id, request.webhookId);
        deliveries.add(delivery);
        void delivery.finally(() => deliveries.delete(delivery));
        break;
      }
      case 'abort':
        running.get(request.id)?.abort();
        break;
      case 'close':
        for (const controller of running.values()) controller.abort();
        void Promise.allSettled([...deliveries])
          .then(() => database.close())
          .finally(() => {
            post({ kind: 'closed' });
            port.close();
          });
        break;
    }
  });
  post({ kind: 'ready' });
}

/**
 * The thread's store and channels. Its connection is a second one on the store, as another process
 * of a scaled deployment would hold (SQLite's writer lock and busy time-out order it with the
 * process's own); migrations ran when the process opened the store, so none run here, and plain
 * reads go straight to this connection (no reader threads of its own).
 */
async function open(config: Config, log: pino.Logger) {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    cacheMb: 8,
    readers: 0,
    poolSize: 2,
    ...(config.databaseSchema === undefined ? {} : { pgSchema: config.databaseSchema }),
    onBackgroundError: (message, err) => log.warn({ err }, message),
  });
  try {
    const box = new SecretBox(loadServerKey(config));
    const store = createStore(database, {
      nameTokens: new NameTokenCodec(box.blockCipher('discovered-name-token')),
      renderers,
    });
    const guard = new EgressGuard(config.egressAllow);
    const resolver = createDnsResolver(config.dnsResolvers);
    const smtp = config.smtpUrl === undefined ? undefined : await import('../engine/mail/smtp-sender.ts');
    const emailSender = smtp?.configuredSmtpSender(config, guard, resolver);
    const deps = webhookDepsOf({ store, box, config, guard, resolver, emailSender, log });
    return { deps, database };
  } catch (err) {
    await database.close();
    throw err;
  }
}
