import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { deliverPending } from '../../src/core/webhooks/webhook-delivery.service.ts';
import { escapeHtml } from '../../src/http/console/html.ts';
import type { ConsoleClient } from '../support/console-client.ts';
import { signedInMember } from '../support/console-client.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * The console's Webhooks and Events tabs against a receiver on loopback: roles (Viewers read,
 * Admins manage), CSRF, the API's words for a bad field, the secret shown once (after create and
 * after rotate), "Send test event" and its outcome, the delivery log with paging and redelivery,
 * enable/disable, edit, delete, another team's webhook answered as not found; the event log with
 * its kind and time filters, paging and links.
 */
describe(`console: webhooks and events (${testStore})`, () => {
  let h: Harness;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  let rival: ConsoleClient;
  let v2key: string;
  let v3key: string;
  let teamId: number;
  let assetToken: string;
  let webhookId = '';
  let secret = '';
  const receiver = new WebhookReceiver();

  const goodForm = (): Record<string, string | string[]> => ({
    name: 'SOC hook',
    format: 'json',
    url: receiver.url,
    events: ['asset.added', 'asset.removed', 'vulnerability.new'],
    min_severity: '',
    enabled: 'true',
  });
  /** The API's problem detail for the same create body. */
  const apiDetail = async (body: Record<string, unknown>): Promise<string> => {
    const res = await h.send('POST', '/rest/v3/webhooks', { key: v3key, body });
    assert.equal(res.statusCode, 400, res.body);
    const p = res.json() as { type: string; detail: string };
    assert.equal(p.type, '/problems/1051');
    return p.detail;
  };
  const shows = (res: LightMyRequestResponse, message: string) =>
    assert.ok(res.body.includes(escapeHtml(message)), `the page shows "${message}"`);
  const secretOf = (body: string) => /<code class="secret" data-secret="webhook">([^<]+)<\/code>/.exec(body)?.[1];
  /** Delivers what is pending for the webhook now, as its job would. */
  const deliver = async () => {
    const row = (await h.runtime.store.webhooks.findByPublicId([teamId], webhookId))!;
    await deliverPending(h.runtime.webhooks, row.id, new AbortController().signal);
  };
  const addAsset = async (name: string) => {
    const res = await h.send('POST', '/rest/v2/assets/', { key: v2key, body: { name } });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { token: string }).token;
  };
  const rowsOf = (body: string) => [...body.matchAll(/<tr data-delivery="([0-9a-f-]{36})">/g)].map((m) => m[1]!);

  before(async () => {
    h = await createHarness();
    await receiver.start();
    v2key = (await h.team('acme')).key;
    v3key = (await h.key('acme', '--v3')).key;
    await h.team('rivals');
    teamId = (await h.runtime.store.teams.findByName('acme'))!.id;
    assetToken = await addAsset('example.com');
    admin = await signedInMember(h, 'acme', 'admin@acme.test', 'Admin');
    viewer = await signedInMember(h, 'acme', 'viewer@acme.test', 'Viewer');
    rival = await signedInMember(h, 'rivals', 'admin@rivals.test', 'Admin');
  });
  after(async () => {
    await receiver.stop();
    await h.close();
  });

  it('refuses a form without the session token, and a Viewer (403)', async () => {
    await admin.get('/team/webhooks');
    let res = await admin.post('/team/webhooks', { ...goodForm(), _csrf: 'forged' });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /This form is no longer valid/);
    const page = await viewer.get('/team/webhooks');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /The team has no webhooks/);
    assert.doesNotMatch(page.body, /<form method="post" action="\/team\/webhooks/);
    res = await viewer.post('/team/webhooks', goodForm());
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Your role \(Viewer\) does not allow this/);
    const listed = (await h.send('GET', '/rest/v3/webhooks', { key: v3key })).json() as { items: unknown[] };
    assert.equal(listed.items.length, 0);
  });

  it("refuses a bad URL, a denied host and no kinds with the API's code and message, keeping what was typed", async () => {
    const cases: Array<[Record<string, string | string[]>, Record<string, unknown>, string]> = [
      [{ url: 'not a url' }, { url: 'not a url' }, 'url'],
      [{ url: 'http://10.0.0.1/hook' }, { url: 'http://10.0.0.1/hook' }, 'url'],
      [{ events: [] }, { events: [] }, 'events'],
      [{ name: '   ' }, { name: '   ' }, 'name'],
    ];
    for (const [form, api, field] of cases) {
      const detail = await apiDetail({ name: 'SOC hook', url: receiver.url, events: ['asset.added'], ...api });
      assert.match(detail, new RegExp(`^Request body malformed: ${field} `));
      await admin.get('/team/webhooks');
      const res = await admin.post('/team/webhooks', { ...goodForm(), ...form });
      assert.equal(res.statusCode, 400, `${field}: ${res.statusCode}`);
      shows(res, detail);
      assert.match(res.body, /\(error 1051\)/);
      if (field !== 'events')
        assert.match(res.body, new RegExp(`id="webhook-${field}"[^>]*aria-invalid="true"`), `${field} is marked`);
      if (field !== 'events') assert.match(res.body, /value="asset\.added" checked/, 'the ticked kinds stay ticked');
    }
    const listed = (await h.send('GET', '/rest/v3/webhooks', { key: v3key })).json() as { items: unknown[] };
    assert.equal(listed.items.length, 0);
  });

  it('creates a webhook and shows its secret once, with how to verify it', async () => {
    await admin.get('/team/webhooks');
    const res = await admin.post('/team/webhooks', { ...goodForm(), assets: [assetToken] });
    assert.equal(res.statusCode, 200);
    secret = secretOf(res.body)!;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.match(res.body, /shown only this once/);
    assert.match(res.body, /webhook-signature/);
    assert.match(res.body, /href="https:\/\/www\.standardwebhooks\.com\/"/);
    receiver.setSecret(secret);
    webhookId = /<form method="post" action="\/team\/webhooks\/([0-9a-f-]{36})\/test"/.exec(res.body)![1]!;
    const api = (await h.send('GET', `/rest/v3/webhooks/${webhookId}`, { key: v3key })).json() as Record<
      string,
      unknown
    >;
    assert.equal(api['name'], 'SOC hook');
    assert.deepEqual(api['events'], ['asset.added', 'asset.removed', 'vulnerability.new']);
    assert.deepEqual(api['assets'], [assetToken]);
    assert.equal(api['min_severity'], null);
    for (const [client, path] of [
      [admin, `/team/webhooks/${webhookId}`],
      [admin, '/team/webhooks'],
      [viewer, `/team/webhooks/${webhookId}`],
    ] as const) {
      const page = await client.get(path);
      assert.equal(page.statusCode, 200, path);
      assert.ok(!page.body.includes(secret), `${path} does not show the secret again`);
    }
    const list = await viewer.get('/team/webhooks');
    const host = new URL(receiver.url).host;
    assert.match(list.body, new RegExp(`<tr data-webhook="${webhookId}">`));
    assert.ok(list.body.includes(`<span class="mono">${host}</span>`), 'the target is the host');
    assert.ok(!list.body.includes(receiver.url), 'not the whole URL');
    assert.match(list.body, /data-state="enabled"/);
    assert.match(list.body, /none yet/);
  });

  it('sends a test event and shows its outcome; the receiver checks the signature', async () => {
    await admin.get(`/team/webhooks/${webhookId}`);
    const res = await admin.post(`/team/webhooks/${webhookId}/test`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Test event delivered/);
    assert.match(res.body, /data-outcome="succeeded">succeeded 200</);
    assert.match(res.body, /<pre class="excerpt">ok<\/pre>/);
    const got = receiver.deliveries.at(-1)!;
    assert.equal(got.type, 'webhook.test');
    assert.equal(got.isSignatureValid, true);
    receiver.answerWith(503);
    const failed = await admin.post(`/team/webhooks/${webhookId}/test`);
    assert.match(failed.body, /Test event not delivered/);
    assert.match(failed.body, /data-outcome="failed">failed 503</);
    receiver.answerWith(200);
  });

  it('lists deliveries newest first with paging, and redelivers one under the same webhook-id', async () => {
    // Another root asset's event is left out (the webhook is for example.com only); its removal is sent.
    const before = receiver.deliveries.length;
    await addAsset('shop.example.org');
    await deliver();
    assert.equal(receiver.deliveries.length, before, 'filtered out by the asset');
    const removed = await h.send('DELETE', `/rest/v2/assets/${assetToken}/`, { key: v2key });
    assert.ok(removed.statusCode < 300, removed.body);
    await deliver();
    const delivered = receiver.deliveries.at(-1)!;
    assert.equal(delivered.type, 'asset.removed');
    assert.equal(delivered.isSignatureValid, true);
    const page = await viewer.get(`/team/webhooks/${webhookId}/deliveries`);
    assert.equal(page.statusCode, 200);
    const rows = rowsOf(page.body);
    assert.equal(rows.length, 3, 'the asset event and two tests');
    assert.match(
      page.body,
      new RegExp(`<tr data-delivery="${rows[0]}">[\\s\\S]*?asset\\.removed[\\s\\S]*?${delivered.id}`),
    );
    assert.match(
      page.body,
      /<details><summary>Answer \(2 characters\)<\/summary><pre class="excerpt">ok<\/pre><\/details>/,
    );
    assert.doesNotMatch(page.body, /Redeliver/, 'a Viewer has no button');
    const first = await admin.get(`/team/webhooks/${webhookId}/deliveries?limit=1`);
    assert.deepEqual(rowsOf(first.body), [rows[0]]);
    const next = /<a class="button primary" href="([^"]+)" rel="next">/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    const second = await admin.get(next);
    assert.deepEqual(rowsOf(second.body), [rows[1]]);
    assert.match(second.body, /rel="prev">Previous page/);
    const bad = await admin.get(`/team/webhooks/${webhookId}/deliveries?cursor=forged`);
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /cursor is malformed/);
    await admin.get(`/team/webhooks/${webhookId}/deliveries`);
    const res = await admin.post(`/team/webhooks/${webhookId}/deliveries/${rows[0]}/redeliver`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/team/webhooks/${webhookId}/deliveries?notice=webhook-redelivered`);
    const again = receiver.deliveries.at(-1)!;
    assert.equal(again.id, delivered.id, 'the same webhook-id');
    assert.equal(again.isSignatureValid, true);
    const after = await admin.get(res.headers.location as string);
    assert.match(after.body, /The event was sent again/);
    assert.equal(rowsOf(after.body).length, 4);
    assert.match(after.body, /asset\.removed<\/span> <span class="status">redelivery<\/span>/);
    const forged = await viewer.post(`/team/webhooks/${webhookId}/deliveries/${rows[0]}/redeliver`);
    assert.equal(forged.statusCode, 403);
    const unknown = await admin.post(`/team/webhooks/${webhookId}/deliveries/${crypto.randomUUID()}/redeliver`);
    assert.equal(unknown.statusCode, 404);
  });

  it('rotates the secret (shown once), disables with the reason, enables, and edits', async () => {
    await admin.get(`/team/webhooks/${webhookId}`);
    const rotated = await admin.post(`/team/webhooks/${webhookId}/rotate`);
    assert.equal(rotated.statusCode, 200);
    const fresh = secretOf(rotated.body)!;
    assert.ok(fresh !== undefined && fresh !== secret);
    assert.match(rotated.body, /The old secret no longer signs deliveries/);
    receiver.setSecret(fresh);
    await admin.post(`/team/webhooks/${webhookId}/test`);
    assert.equal(receiver.deliveries.at(-1)!.isSignatureValid, true, 'signed with the new secret');
    assert.ok(!(await admin.get(`/team/webhooks/${webhookId}`)).body.includes(fresh));
    let res = await admin.post(`/team/webhooks/${webhookId}/disable`);
    assert.equal(res.statusCode, 303);
    let page = await admin.get(res.headers.location as string);
    assert.match(page.body, /Webhook disabled/);
    assert.match(
      page.body,
      /data-state="disabled">disabled<\/span> <span class="reason">Disabled through the API\.<\/span>/,
    );
    assert.match(page.body, /action="\/team\/webhooks\/[0-9a-f-]{36}\/enable"/);
    res = await admin.post(`/team/webhooks/${webhookId}/enable`);
    page = await admin.get(res.headers.location as string);
    assert.match(page.body, /data-state="enabled"/);
    res = await admin.post(`/team/webhooks/${webhookId}`, {
      ...goodForm(),
      name: 'Pager',
      events: ['vulnerability.new'],
      min_severity: 'high',
    });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/team/webhooks/${webhookId}?notice=webhook-saved`);
    const api = (await h.send('GET', `/rest/v3/webhooks/${webhookId}`, { key: v3key })).json() as Record<
      string,
      unknown
    >;
    assert.equal(api['name'], 'Pager');
    assert.deepEqual(api['events'], ['vulnerability.new']);
    assert.equal(api['min_severity'], 'high');
    assert.deepEqual(api['assets'], [], 'no asset chosen: every asset');
    await admin.get(`/team/webhooks/${webhookId}`);
    res = await admin.post(`/team/webhooks/${webhookId}`, { ...goodForm(), url: 'ftp://example.com/x' });
    assert.equal(res.statusCode, 400);
    const detail = await apiDetail({ name: 'x', url: 'ftp://example.com/x', events: ['asset.added'] });
    shows(res, detail);
    assert.match(res.body, /id="edit-url"[^>]*value="ftp:\/\/example\.com\/x"/);
  });

  it("answers another team's webhook, an unknown and a malformed id with not found", async () => {
    await rival.get('/team/webhooks');
    for (const id of [webhookId, crypto.randomUUID(), 'not-a-uuid']) {
      for (const path of [`/team/webhooks/${id}`, `/team/webhooks/${id}/deliveries`]) {
        const res = await rival.get(path);
        assert.equal(res.statusCode, 404, path);
        assert.ok(!res.body.includes('Pager'));
      }
      for (const action of ['test', 'disable', 'rotate', 'delete']) {
        const res = await rival.post(`/team/webhooks/${id}/${action}`);
        assert.equal(res.statusCode, 404, `${action} ${id}`);
      }
    }
    const list = await rival.get('/team/webhooks');
    assert.match(list.body, /The team has no webhooks/);
    assert.ok((await h.runtime.store.webhooks.findByPublicId([teamId], webhookId))?.enabled);
  });

  it('lists the event log with links, kind and time filters, paging and the API refusal', async () => {
    const page = await viewer.get('/team/events');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<a href="\/team\/events" aria-current="page">Events<\/a>/);
    assert.match(page.body, /data-kind="asset\.added"/);
    assert.match(page.body, new RegExp(`<a href="/assets/${assetToken}" class="mono">${assetToken}</a>`));
    const api = (await h.send('GET', '/rest/v3/events?kind=asset.added', { key: v3key })).json() as {
      items: Array<{ id: string }>;
    };
    const filtered = await viewer.get('/team/events?kind=asset.added');
    const ids = [...filtered.body.matchAll(/<li class="event panel" id="event-([0-9a-f-]{36})"/g)].map((m) => m[1]);
    assert.deepEqual(
      ids,
      api.items.map((e) => e.id),
    );
    assert.equal(ids.length, 2);
    const one = await viewer.get('/team/events?kind=asset.added&limit=1');
    assert.match(one.body, /1 event on this page; more follow/);
    const next = /<a class="button primary" href="([^"]+)" rel="next">/.exec(one.body)![1]!.replace(/&amp;/g, '&');
    const two = await viewer.get(next);
    assert.ok(two.body.includes(`id="event-${api.items[1]!.id}"`));
    const future = await viewer.get('/team/events?occurred_after=2999-01-01');
    assert.match(future.body, /No event matches these filters/);
    const refused = (await h.send('GET', '/rest/v3/events?kind=nope', { key: v3key })).json() as { detail: string };
    const bad = await viewer.get('/team/events?kind=nope');
    assert.equal(bad.statusCode, 400);
    shows(bad, refused.detail);
    const rivals = await rival.get('/team/events');
    assert.doesNotMatch(rivals.body, /example\.com/);
  });

  it('deletes the webhook after a confirmation; it is gone', async () => {
    const page = await admin.get(`/team/webhooks/${webhookId}`);
    assert.match(page.body, /data-confirm="Delete the webhook Pager and its delivery log\?"/);
    const res = await admin.post(`/team/webhooks/${webhookId}/delete`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/team/webhooks?notice=webhook-deleted');
    assert.equal((await admin.get(`/team/webhooks/${webhookId}`)).statusCode, 404);
    assert.match((await admin.get('/team/webhooks')).body, /The team has no webhooks/);
  });
});
