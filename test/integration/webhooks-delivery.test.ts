import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { wireEvent } from '../../src/core/events/wire-event.ts';
import type { NewEvent } from '../../src/core/events/event.types.ts';
import { eventKindDoc } from '../../src/core/events/event-catalogue.ts';
import { slackMessage } from '../../src/core/webhooks/formats/slack.ts';
import { teamsMessage } from '../../src/core/webhooks/formats/teams.ts';
import { pruneWebhookDeliveries } from '../../src/core/webhooks/webhook-delivery.service.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { startWebhookPump, type WebhookPump } from '../../src/jobs/webhook-delivery.job.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { eventsOf } from '../support/events.ts';
import { waitUntil } from '../support/test-jobs.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

// Delivery through the job queue: events appended to a team's log reach each webhook signed, in
// order, filtered by kind, severity and asset; a receiver that is down gets everything once it is
// up again, after back-offs that grow; a webhook failing past the retry window, or answered 410,
// is disabled with a webhook.disabled event. Retry settings are milliseconds here (config).

const breachExample = eventKindDoc('breach.opened').example;
const retry = { webhookRetryBaseMs: 100, webhookRetryCapMs: 800, webhookRetryWindowMs: 4000 };

describe(`webhook delivery (${testStore})`, () => {
  let h: Harness;
  let pump: WebhookPump;
  let key = '';
  let teamId = 0;
  const assetIds: number[] = [];
  const assetTokens: string[] = [];
  let minute = 0;
  const receivers: WebhookReceiver[] = [];

  const send = (method: string, url: string, body?: unknown) =>
    h.send(method, `/rest/v3${url}`, { key, ...(body === undefined ? {} : { body }) });
  const subscribe = async (body: Record<string, unknown>) => {
    const receiver = await new WebhookReceiver().start();
    receivers.push(receiver);
    const res = await send('POST', '/webhooks', { name: 'hook', url: receiver.url, ...body });
    assert.equal(res.statusCode, 201, res.body);
    const hook = res.json() as { id: string; secret: string };
    receiver.setSecret(hook.secret);
    return { hook, receiver };
  };
  const append = async (events: Array<Partial<NewEvent> & Pick<NewEvent, 'kind'>>) => {
    await h.runtime.store.events.append(
      events.map((e) => ({
        teamId,
        occurredAt: new Date(Date.UTC(2026, 10, 1, 0, (minute += 1))),
        data: { n: minute },
        ...e,
      })),
    );
  };
  const webhookRow = async (publicId: string) => (await h.runtime.store.webhooks.findByPublicId([teamId], publicId))!;

  before(async () => {
    h = await createHarness(retry);
    const v2 = (await h.team('acme')).key;
    key = (await h.key('acme', '--v3')).key;
    teamId = (await h.runtime.store.teams.findByName('acme'))!.id;
    for (const name of ['a.example.com', 'b.example.com']) {
      const res = await h.send('POST', '/rest/v2/assets/', { key: v2, body: { name } });
      assert.equal(res.statusCode, 200, res.body);
      const asset = (await h.runtime.store.assets.findByName(teamId, name))!;
      assetIds.push(asset.id);
      assetTokens.push(asset.token);
    }
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50, concurrency: 8 });
    pump = startWebhookPump({ store: h.runtime.store, jobs: h.jobs, pollMs: 50 }, h.runtime.log);
  });
  after(async () => {
    await pump.stop();
    for (const r of receivers) await r.stop();
    await h.close();
  });

  it('delivers new events signed, in order, as the filters say (kinds, severity, assets); not the past', async () => {
    await append([{ kind: 'vulnerability.new', severity: 'critical', assetId: assetIds[0]! }]);
    const { receiver } = await subscribe({
      events: ['vulnerability.new', 'breach.opened'],
      min_severity: 'medium',
      assets: [assetTokens[0]],
    });
    const [a, b] = assetIds as [number, number];
    await append([
      { kind: 'vulnerability.new', severity: 'high', assetId: a }, // kept
      { kind: 'vulnerability.new', severity: 'low', assetId: a }, // below the severity
      { kind: 'vulnerability.new', severity: 'critical', assetId: b }, // another asset
      { kind: 'port.opened', assetId: a }, // another kind
      { kind: 'breach.opened', severity: 'medium', assetId: a }, // kept
      { kind: 'vulnerability.new', severity: 'critical', assetId: null }, // no asset
      { kind: 'vulnerability.new', severity: 'critical', assetId: a }, // kept
    ]);
    const log = await eventsOf(h.runtime.store, teamId);
    const expected = log.slice(-7).filter((_, i) => [0, 4, 6].includes(i));
    await waitUntil('three deliveries', async () => (receiver.deliveries.length >= 3 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      receiver.deliveries.map((d) => d.id),
      expected.map((e) => e.publicId),
      'only the kept events, in order, and nothing from before the webhook existed',
    );
    for (const [i, d] of receiver.deliveries.entries()) {
      assert.equal(d.isSignatureValid, true);
      assert.equal(d.headers['content-type'], 'application/json');
      assert.deepEqual(d.json, wireEvent(expected[i]!));
    }
    // Sent from the delivery thread of the process (config webhookThreads 1), off the event loop.
    assert.equal(h.runtime.webhookThread?.isRunning, true);
  });

  it('delivers the slack and teams formats signed, with the bodies their formatters make', async () => {
    const slack = await subscribe({ name: 'chat', format: 'slack', events: ['breach.opened'] });
    const teams = await subscribe({ name: 'chat', format: 'teams', events: ['breach.opened'] });
    await append([{ kind: 'breach.opened', severity: 'high', assetId: assetIds[0]!, data: { ...breachExample } }]);
    const [event] = (await eventsOf(h.runtime.store, teamId, 'breach.opened')).slice(-1);
    const context = { teamName: 'acme', webhookName: 'chat', consoleBase: h.runtime.webhooks.consoleBase };
    for (const [receiver, format] of [
      [slack.receiver, slackMessage],
      [teams.receiver, teamsMessage],
    ] as const) {
      const [got] = await waitUntil('the chat message', async () =>
        receiver.deliveries.length > 0 ? receiver.deliveries : undefined,
      );
      assert.equal(got!.isSignatureValid, true);
      assert.equal(got!.id, event!.publicId);
      assert.deepEqual(got!.json, format(wireEvent(event!), context));
    }
    assert.ok(Array.isArray((slack.receiver.deliveries[0]!.json as { blocks: unknown[] }).blocks));
    assert.equal((teams.receiver.deliveries[0]!.json as { type: string }).type, 'message');
  });

  it('keeps events for a receiver that is down, backing off longer each time, then delivers all of them in order', async () => {
    const { hook, receiver } = await subscribe({ events: ['port.opened'] });
    receiver.answerWith(503);
    await append([1, 2, 3, 4, 5].map(() => ({ kind: 'port.opened' as const })));
    const sent = (await eventsOf(h.runtime.store, teamId, 'port.opened')).slice(-5).map((e) => e.publicId);
    await waitUntil('five failed attempts', async () => (receiver.deliveries.length >= 5 ? true : undefined));
    const attempts = receiver.deliveries.slice(0, 5);
    assert.ok(
      attempts.every((d) => d.id === sent[0]),
      'the first event is retried; the others wait behind it',
    );
    const gaps = attempts.slice(1).map((d, i) => d.at - attempts[i]!.at);
    // Each wait is at least the back-off (base doubling, less at most 20 %); the queue's polling adds to it.
    for (const [i, gap] of gaps.entries())
      assert.ok(gap >= 0.8 * retry.webhookRetryBaseMs * 2 ** i - 20, `back-off ${i + 1}: ${gaps.join(', ')} ms`);
    assert.ok(gaps[3]! > gaps[0]!, `the back-off grows: ${gaps.join(', ')} ms`);
    // The receiver counts a request before the server has written its failure: wait for the row.
    const failing = await waitUntil('five failures recorded', async () => {
      const w = await webhookRow(hook.id);
      return w.consecutiveFailures >= 5 ? w : undefined;
    });
    assert.ok(failing.failingSince !== null, JSON.stringify(failing));
    receiver.answerWith(200);
    await waitUntil('every event delivered', async () => (receiver.accepted().length >= 5 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      receiver.accepted().map((d) => d.id),
      sent,
    );
    const healed = await webhookRow(hook.id);
    assert.deepEqual([healed.enabled, healed.failingSince, healed.consecutiveFailures], [true, null, 0]);
    const log = (await send('GET', `/webhooks/${hook.id}/deliveries?limit=100`)).json() as {
      items: Array<{ event_id: string; outcome: string; attempt: number; http_status: number }>;
    };
    const first = log.items.filter((d) => d.event_id === sent[0]).reverse();
    assert.deepEqual(
      first.map((d) => d.attempt),
      first.map((_, i) => i + 1),
      'attempts count up',
    );
    assert.equal(first.at(-1)!.outcome, 'succeeded');
    assert.ok(first.slice(0, -1).every((d) => d.outcome === 'failed' && d.http_status === 503));
  });

  it('disables a webhook failing past the retry window, with a webhook.disabled event', async () => {
    const { hook, receiver } = await subscribe({ name: 'pager', events: ['port.closed'] });
    receiver.answerWith(503);
    await append([{ kind: 'port.closed' }]);
    const disabled = await waitUntil(
      'the webhook disabled',
      async () => {
        const w = await webhookRow(hook.id);
        return w.enabled ? undefined : w;
      },
      20_000,
    );
    assert.match(disabled.disabledReason ?? '', /^Deliveries failed for 4000 ms \(last: HTTP 503\)\.$/);
    const [event] = await eventsOf(h.runtime.store, teamId, 'webhook.disabled');
    assert.deepEqual(event?.data, {
      webhook_id: hook.id,
      name: 'pager',
      reason: disabled.disabledReason,
      failing_since: new Date(Math.floor(disabled.failingSince!.getTime() / 1000) * 1000)
        .toISOString()
        .replace('.000', ''),
    });
    const count = receiver.deliveries.length;
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(receiver.deliveries.length, count, 'nothing is sent to a disabled webhook');
    // Enabled again: the failure state is cleared and the waiting event goes out.
    receiver.answerWith(200);
    const res = await send('PATCH', `/webhooks/${hook.id}`, { enabled: true });
    assert.equal(res.statusCode, 200, res.body);
    await waitUntil('the waiting event delivered', async () => (receiver.accepted().length === 1 ? true : undefined));
    const w = await webhookRow(hook.id);
    assert.deepEqual([w.enabled, w.failingSince, w.consecutiveFailures, w.disabledReason], [true, null, 0, null]);
  });

  it('disables a webhook at once when the receiver answers 410 Gone', async () => {
    const { hook, receiver } = await subscribe({ name: 'gone', events: ['asset.verified'] });
    receiver.answerWith(410);
    await append([{ kind: 'asset.verified' }, { kind: 'asset.verified' }]);
    const w = await waitUntil('disabled', async () => {
      const row = await webhookRow(hook.id);
      return row.enabled ? undefined : row;
    });
    assert.equal(w.disabledReason, 'The receiver answered 410 Gone.');
    assert.equal(receiver.deliveries.length, 1, 'one attempt only');
    const events = await eventsOf(h.runtime.store, teamId, 'webhook.disabled');
    assert.ok(events.some((e) => e.data['webhook_id'] === hook.id));
  });

  it('prunes deliveries older than 30 days, keeping the newer ones', async () => {
    const { hook } = await subscribe({ events: ['zone_lookup.finished'] });
    const row = await webhookRow(hook.id);
    const at = (days: number) => new Date(Date.now() - days * 24 * 3_600_000);
    for (const [days, id] of [
      [31, '0d4c3f4e-7a2b-4a0f-9d0e-2b1f6c9e8a71'],
      [29, '0d4c3f4e-7a2b-4a0f-9d0e-2b1f6c9e8a72'],
    ] as const) {
      await h.runtime.store.webhooks.insertDelivery({
        publicId: id,
        teamId,
        webhookId: row.id,
        eventId: null,
        eventPublicId: id,
        kind: 'webhook.test',
        attempt: 1,
        outcome: 'succeeded',
        httpStatus: 200,
        error: null,
        responseExcerpt: 'ok',
        durationMs: 1,
        created: at(days),
        isTest: true,
        isRedelivery: false,
      });
    }
    assert.ok((await pruneWebhookDeliveries(h.runtime.store)) >= 1);
    const left = await h.runtime.store.webhooks.listDeliveries(teamId, row.id, undefined, 10);
    assert.deepEqual(
      left.map((d) => d.publicId),
      ['0d4c3f4e-7a2b-4a0f-9d0e-2b1f6c9e8a72'],
    );
  });

  it('redelivers an event under the same webhook-id, and the test operation leaves the log and cursor alone', async () => {
    const { hook, receiver } = await subscribe({ events: ['technology.discovered'] });
    await append([{ kind: 'technology.discovered' }]);
    await waitUntil('delivered', async () => (receiver.deliveries.length === 1 ? true : undefined));
    // The delivery row is committed just after the receiver answered: wait for it too.
    const log = await waitUntil('logged', async () => {
      const page = (await send('GET', `/webhooks/${hook.id}/deliveries`)).json() as {
        items: Array<{ id: string; event_id: string }>;
      };
      return page.items.length > 0 ? page : undefined;
    });
    const [delivery] = log.items;
    const res = await send('POST', `/webhooks/${hook.id}/deliveries/${delivery!.id}/redeliver`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(receiver.deliveries.length, 2);
    assert.equal(receiver.deliveries[1]!.id, receiver.deliveries[0]!.id);
    assert.equal(receiver.deliveries[1]!.body, receiver.deliveries[0]!.body);
    assert.equal(receiver.deliveries[1]!.isSignatureValid, true);
    const cursor = (await webhookRow(hook.id)).cursorEventId;
    const latest = await h.runtime.store.events.latestId(teamId);
    const test = await send('POST', `/webhooks/${hook.id}/test`);
    assert.equal((test.json() as { outcome: string }).outcome, 'succeeded');
    assert.equal(receiver.deliveries.at(-1)!.type, 'webhook.test');
    assert.equal(await h.runtime.store.events.latestId(teamId), latest, 'the test event is not written to the log');
    assert.equal((await webhookRow(hook.id)).cursorEventId, cursor);
  });
});
