import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewEvent } from '../../src/core/events/event.types.ts';
import { deliverySlice } from '../../src/core/webhooks/webhook-delivery.service.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { startWebhookPump, type WebhookPump } from '../../src/jobs/webhook-delivery.job.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { waitUntil } from '../support/test-jobs.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

// Fairness of the delivery queue: six webhooks behind the same log, a queue of 4 slots. A
// delivery job hands its slot back after its slice (deliverySlice: 2 s or 500 events), so the two
// webhooks waiting start while the first four are still busy: every receiver gets its first
// event before any receiver has all of them. Each answer takes a few milliseconds, so one
// webhook's backlog outlasts a slice.

const webhookCount = 6;
const eventCount = deliverySlice.maxEvents + 200;

describe(`webhook delivery fairness (${testStore})`, () => {
  let h: Harness;
  let pump: WebhookPump | undefined;
  const receivers: WebhookReceiver[] = [];

  before(async () => {
    h = await createHarness();
  });
  after(async () => {
    await pump?.stop();
    for (const r of receivers) await r.stop();
    await h.close();
  });

  it('every webhook receives its first event before any receives all of them (4 slots, 6 webhooks)', async (t) => {
    await h.team('acme');
    const key = (await h.key('acme', '--v3')).key;
    const teamId = (await h.runtime.store.teams.findByName('acme'))!.id;
    for (let i = 0; i < webhookCount; i += 1) {
      const receiver = await new WebhookReceiver().start();
      receiver.delay(4);
      receivers.push(receiver);
      const res = await h.send('POST', '/rest/v3/webhooks', {
        key,
        body: { name: `hook ${i}`, url: receiver.url, events: ['port.opened'] },
      });
      assert.equal(res.statusCode, 201, res.body);
      receiver.setSecret((res.json() as { secret: string }).secret);
    }
    const events: NewEvent[] = [];
    for (let i = 0; i < eventCount; i += 1)
      events.push({
        teamId,
        kind: 'port.opened',
        occurredAt: new Date(Date.UTC(2026, 10, 1) + i * 1000),
        data: { n: i },
      });
    await h.runtime.store.events.append(events);
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50, concurrency: 4 });
    pump = startWebhookPump({ store: h.runtime.store, jobs: h.jobs, pollMs: 50 }, h.runtime.log);
    await waitUntil(
      'every webhook caught up',
      async () =>
        receivers.every((r) => new Set(r.accepted().map((d) => d.id)).size >= eventCount) ? true : undefined,
      180_000,
    );

    const firsts = receivers.map((r) => r.deliveries[0]!.at);
    const completions = receivers.map((r) => {
      const seen = new Set<string>();
      for (const d of r.deliveries) {
        seen.add(d.id);
        if (seen.size === eventCount) return d.at;
      }
      throw new Error('a receiver lacks events');
    });
    t.diagnostic(`first events at +${firsts.map((f) => f - Math.min(...firsts)).join(', ')} ms`);
    t.diagnostic(`complete at +${completions.map((c) => c - Math.min(...firsts)).join(', ')} ms`);
    assert.ok(
      Math.max(...firsts) < Math.min(...completions),
      'the last webhook to start started before the first to finish had finished',
    );
    const firstArrivals = receivers.map((r) => [...new Set(r.deliveries.map((d) => d.id))]);
    for (const [i, r] of receivers.entries()) {
      assert.equal(firstArrivals[i]!.length, eventCount);
      assert.deepEqual(firstArrivals[i], firstArrivals[0], 'every webhook got the events in the same (log) order');
      assert.ok(r.deliveries.every((d) => d.isSignatureValid));
    }
  });
});
