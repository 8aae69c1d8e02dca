import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { startWebhookPump, type WebhookPump } from '../../src/jobs/webhook-delivery.job.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { eventsOf } from '../support/events.ts';
import { waitUntil } from '../support/test-jobs.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

// The delivery thread of the process (config webhookThreads 1, jobs/threaded-webhook-delivery.ts):
// deliveries run there, with its own store connection; a thread that dies mid-delivery fails that
// run, its job retries, and a new thread delivers every event, in order.

describe(`the webhook delivery thread (${testStore})`, () => {
  let h: Harness;
  let pump: WebhookPump;
  let teamId = 0;
  const receiver = new WebhookReceiver();

  before(async () => {
    h = await createHarness({ webhookThreads: 1, webhookRetryBaseMs: 100, webhookRetryCapMs: 400 });
    await h.team('acme');
    teamId = (await h.runtime.store.teams.findByName('acme'))!.id;
    await receiver.start();
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50, concurrency: 4 });
    pump = startWebhookPump({ store: h.runtime.store, jobs: h.jobs, pollMs: 50 }, h.runtime.log);
  });
  after(async () => {
    await pump.stop();
    await receiver.stop();
    await h.close();
  });

  it('a thread that dies mid-delivery: the job retries on a new thread, and every event arrives once the receiver answers, in order', async () => {
    const { key } = await h.key('acme', '--v3');
    const res = await h.send('POST', '/rest/v3/webhooks', {
      key,
      body: { name: 'hook', url: receiver.url, events: ['asset.added'] },
    });
    assert.equal(res.statusCode, 201, res.body);
    receiver.setSecret((res.json() as { secret: string }).secret);
    receiver.delay(2000);
    await h.runtime.store.events.append(
      [1, 2, 3].map((n) => ({ teamId, kind: 'asset.added' as const, occurredAt: new Date(), data: { n } })),
    );
    const appended = (await eventsOf(h.runtime.store, teamId)).slice(-3).map((e) => e.publicId);
    // The first event is on its way from the thread (the receiver holds its answer back).
    await waitUntil('the first delivery in flight', async () => (receiver.deliveries.length > 0 ? true : undefined));
    assert.equal(h.runtime.webhookThread?.isRunning, true);
    await h.runtime.webhookThread!.terminateThread();
    assert.equal(h.runtime.webhookThread.isRunning, false);
    receiver.delay(0);
    await waitUntil(
      'every event accepted',
      async () => (new Set(receiver.accepted().map((d) => d.id)).size >= 3 ? true : undefined),
      20_000,
    );
    const firstArrivals = [...new Set(receiver.deliveries.map((d) => d.id))];
    assert.deepEqual(firstArrivals, appended, 'each event, in the order of the log');
    assert.ok(receiver.deliveries.every((d) => d.isSignatureValid));
    assert.equal(h.runtime.webhookThread.isRunning, true, 'a new thread delivered them');
  });
});
