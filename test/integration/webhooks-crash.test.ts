import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewEvent } from '../../src/core/events/event.types.ts';
import { settleGroup } from '../../src/core/webhooks/webhook-delivery.service.ts';
import { startWebhookPump, type WebhookPump } from '../../src/jobs/webhook-delivery.job.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { eventsOf } from '../support/events.ts';
import { waitUntil } from '../support/test-jobs.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { killAll, killHard, startWorker, type WorkerProcess } from '../support/worker-process.ts';

// kill -9 during deliveries: the webhook's job runs in worker child processes
// (test/support/scan-worker.ts works every job kind); 500 events are appended, the worker
// delivering them is killed twice mid-way, and the next one takes the job over once the dead
// one's lease expires. The receiver must see every event id, in the log's order of first
// arrival, and a duplicate only of an event in flight at a kill (sent, its group not yet
// committed): at most one settle group (settleGroup.maxEvents) per kill, since one job per webhook
// sends one event at a time and commits its successes in groups.

const eventCount = 500;

describe(`webhook deliveries across kill -9 (${testStore})`, () => {
  let h: Harness;
  let pump: WebhookPump;
  const workers: WorkerProcess[] = [];
  const receiver = new WebhookReceiver();

  before(async () => {
    h = await createHarness();
    await receiver.start();
    // Each answer takes a few milliseconds, so the kills land mid-way through the 500.
    receiver.delay(3);
  });
  after(async () => {
    await pump?.stop();
    await killAll(workers);
    await receiver.stop();
    await h.close();
  });

  it('loses no event and duplicates only those in flight at each kill', async (t) => {
    await h.team('acme');
    const key = (await h.key('acme', '--v3')).key;
    const teamId = (await h.runtime.store.teams.findByName('acme'))!.id;
    const res = await h.send('POST', '/rest/v3/webhooks', {
      key,
      body: { name: 'crash', url: receiver.url, events: ['port.opened'] },
    });
    assert.equal(res.statusCode, 201, res.body);
    receiver.setSecret((res.json() as { secret: string }).secret);
    const events: NewEvent[] = [];
    for (let i = 0; i < eventCount; i += 1)
      events.push({
        teamId,
        kind: 'port.opened',
        occurredAt: new Date(Date.UTC(2026, 10, 1) + i * 1000),
        data: { n: i },
      });
    await h.runtime.store.events.append(events);
    const expected = (await eventsOf(h.runtime.store, teamId, 'port.opened')).map((e) => e.publicId);
    assert.equal(expected.length, eventCount);

    pump = startWebhookPump({ store: h.runtime.store, jobs: h.jobs, pollMs: 100 }, h.runtime.log);
    const inFlight: string[][] = [];
    for (const killAt of [100, 250]) {
      const worker = await startWorker(h, workers, { kind: 'script', leaseMs: 4000 });
      await waitUntil(
        `${killAt} deliveries`,
        async () => (receiver.deliveries.length >= killAt ? true : undefined),
        60_000,
      );
      await killHard(worker);
      // The last group the receiver saw (at most settleGroup.maxEvents sends) may be the one whose
      // commit the kill prevented.
      inFlight.push(receiver.deliveries.slice(-settleGroup.maxEvents).map((d) => d.id));
      t.diagnostic(`killed after ${receiver.deliveries.length} deliveries`);
    }
    await startWorker(h, workers, { kind: 'script', leaseMs: 4000 });
    await waitUntil(
      'every event delivered',
      async () => (new Set(receiver.deliveries.map((d) => d.id)).size >= eventCount ? true : undefined),
      120_000,
    );
    await new Promise((r) => setTimeout(r, 500));

    const firstArrival: string[] = [];
    const seen = new Map<string, number>();
    for (const d of receiver.deliveries) {
      assert.equal(d.isSignatureValid, true);
      if (!seen.has(d.id)) firstArrival.push(d.id);
      seen.set(d.id, (seen.get(d.id) ?? 0) + 1);
    }
    assert.deepEqual(firstArrival, expected, 'every event id, in the order of the log');
    const duplicated = [...seen].filter(([, n]) => n > 1);
    t.diagnostic(`${receiver.deliveries.length} deliveries of ${eventCount} events; ${duplicated.length} duplicated`);
    assert.ok(
      duplicated.length <= inFlight.length * settleGroup.maxEvents,
      `at most one settle group of duplicates per kill: ${duplicated.length}`,
    );
    for (const [id, n] of duplicated) {
      assert.equal(n, 2, 'sent twice at most');
      assert.ok(
        inFlight.some((group) => group.includes(id)),
        'a duplicate is an event of the group in flight at a kill',
      );
    }
    const webhook = (await h.runtime.store.webhooks.list([teamId], undefined, 10))[0]!;
    assert.equal(webhook.cursorEventId, await h.runtime.store.events.latestId(teamId), 'the cursor reached the end');
  });
});
