import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventCatalogue } from '../../src/core/events/event-catalogue.ts';
import type { EventKind, NewEvent } from '../../src/core/events/event.types.ts';
import type { Scheduler } from '../../src/jobs/scheduler.ts';
import { startSchedulerRole, startWorker } from '../../src/runtime.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from '../support/smtp-receiver.ts';

// E-mail webhooks end to end: created through /rest/v3/webhooks, fed by the team's event log,
// delivered by the worker's delivery job (the scheduler's pump enqueues it) through the SMTP
// sender to a real SMTP server on loopback. One e-mail per event with digest_minutes 0; one
// digest, grouped by kind and most severe first, once the oldest event is digest_minutes old.

const CONSOLE = 'https://perimeter.example.net';

function example(kind: EventKind): Record<string, unknown> {
  const doc = eventCatalogue.find((d) => d.kind === kind);
  assert.ok(doc !== undefined, kind);
  return doc.example;
}

describe(`e-mail webhooks (${testStore})`, () => {
  let h: Harness;
  let smtp: SmtpReceiver;
  let scheduler: Scheduler;
  let key = '';
  let teamId = 0;

  const send = (method: string, url: string, body?: unknown) =>
    h.send(method, `/rest/v3${url}`, { key, ...(body === undefined ? {} : { body }) });

  async function createEmailWebhook(body: Record<string, unknown>): Promise<string> {
    const res = await send('POST', '/webhooks', { format: 'email', ...body });
    assert.equal(res.statusCode, 201, res.body);
    return (res.json() as { id: string }).id;
  }

  function event(kind: EventKind, data: Record<string, unknown>, occurredAt = new Date()): NewEvent {
    const severity = typeof data['severity'] === 'string' ? (data['severity'] as NewEvent['severity']) : null;
    return { teamId, kind, occurredAt, severity, data };
  }

  /** The messages to one recipient, once `count` of them arrived. */
  async function mailTo(address: string, count: number, timeoutMs = 15_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mails = smtp.messages.filter((m) => m.to.includes(address));
      if (mails.length >= count) return mails;
      if (Date.now() > deadline) throw new Error(`${address} got ${mails.length} of ${count} e-mails`);
      await smtp.waitFor(smtp.messages.length + 1, Math.max(1, deadline - Date.now())).catch(() => undefined);
    }
  }

  before(async () => {
    smtp = await startSmtpReceiver();
    h = await createHarness({
      smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
      smtpFrom: 'Perimeter <perimeter@example.com>',
      publicUrl: CONSOLE,
      webhookPollMs: 50,
      schedulerIntervalMs: 200,
    });
    await h.team('acme');
    key = (await h.key('acme', '--v3')).key;
    teamId = (await h.runtime.store.teams.findByName('acme'))!.id;
    await startWorker(h.runtime);
    scheduler = await startSchedulerRole(h.runtime);
  });
  after(async () => {
    await scheduler?.stop();
    await h?.close();
    await smtp?.stop();
  });

  it('sends one e-mail per event, in order, with digest_minutes 0', async () => {
    await createEmailWebhook({
      name: 'Ports by mail',
      recipients: ['ports@example.com'],
      events: ['port.opened', 'vulnerability.new'],
      digest_minutes: 0,
    });
    const port = example('port.opened');
    await h.runtime.store.events.append([
      event('port.opened', port),
      event('vulnerability.new', example('vulnerability.new')),
      event('port.opened', { ...port, port: 22, service: 'ssh' }),
    ]);
    const mails = await mailTo('ports@example.com', 3);
    assert.deepEqual(
      mails.map((m) => m.parsed.subject),
      [
        '[perimeter] Port 5432/TCP opened on example.com (192.0.2.10)',
        '[perimeter] New high vulnerability: SQL injection on shop.example.com',
        '[perimeter] Port 22/TCP opened on example.com (192.0.2.10)',
      ],
    );
    const [first] = mails;
    assert.equal(first?.from, 'perimeter@example.com');
    assert.deepEqual(first?.to, ['ports@example.com']);
    assert.match(first?.parsed.text ?? '', /^Service: postgresql$/m);
    assert.match(first?.parsed.text ?? '', /through the webhook Ports by mail/);
    const html = first?.parsed.html;
    assert.ok(typeof html === 'string' && html.includes(`${CONSOLE}/assets/`));
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(smtp.messages.filter((m) => m.to.includes('ports@example.com')).length, 3, 'each event once');
  });

  it('sends a digest once the oldest event is digest_minutes old, grouped and most severe first', async () => {
    const id = await createEmailWebhook({
      name: 'Findings digest',
      recipients: ['digest@example.com', 'lead@example.com'],
      events: ['vulnerability.new', 'breach.opened'],
      digest_minutes: 5,
    });
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    const vulnerability = example('vulnerability.new');
    await h.runtime.store.events.append([
      event('vulnerability.new', { ...vulnerability, severity: 'medium', title: 'Reflected XSS' }, tenMinutesAgo),
      event('breach.opened', example('breach.opened'), tenMinutesAgo),
      event(
        'vulnerability.new',
        { ...vulnerability, severity: 'critical', title: 'Remote code execution' },
        tenMinutesAgo,
      ),
    ]);
    const [digest] = await mailTo('digest@example.com', 1);
    assert.deepEqual(digest?.to, ['digest@example.com', 'lead@example.com']);
    assert.equal(digest?.parsed.subject, '[perimeter] 3 events for acme: 2 new vulnerabilities, 1 policy breach');
    const text = digest?.parsed.text ?? '';
    const order = [
      '== 2 new vulnerabilities ==',
      'New critical vulnerability: Remote code execution',
      'New medium vulnerability: Reflected XSS',
      '== 1 policy breach ==',
      'Policy breached: Database exposed on db.example.com',
    ].map((s) => text.indexOf(s));
    assert.ok(
      order.every((p) => p >= 0),
      JSON.stringify(order),
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
    );

    // A new event waits for its period: no e-mail now, the webhook deferred until then.
    await h.runtime.store.events.append([event('vulnerability.new', vulnerability)]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(smtp.messages.filter((m) => m.to.includes('digest@example.com')).length, 1);
    const deliveries = (await send('GET', `/webhooks/${id}/deliveries`)).json() as {
      items: Array<Record<string, unknown>>;
    };
    // The digest is logged as one delivery per event it carried, none for the waiting one.
    assert.equal(deliveries.items.length, 3, JSON.stringify(deliveries.items));
    assert.ok(
      deliveries.items.every((d) => d['outcome'] === 'succeeded' && /^250 /.test(String(d['response_excerpt']))),
    );
  });
});
