import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { hashKey, newKeyId } from '../../src/core/teams/api-key.service.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

// The webhook resource through /rest/v3/webhooks: every operation, the answers naming the field
// at fault, the secret shown once, tenancy (another team's key sees nothing and gets 404 alike)
// and the egress guard on URLs (loopback is allowed only because the harness allows 127.0.0.0/8).

interface WireWebhook {
  id: string;
  team_id: string;
  name: string;
  format: string;
  url: string | null;
  events: string[];
  min_severity: string | null;
  assets: string[];
  enabled: boolean;
  disabled_reason: string | null;
  secret?: string;
  [key: string]: unknown;
}

describe(`v3 webhooks API (${testStore})`, () => {
  let h: Harness;
  let key = '';
  let otherKey = '';
  let assetToken = '';
  const receiver = new WebhookReceiver();
  const send = (method: string, url: string, body?: unknown, k = key) =>
    h.send(method, `/rest/v3${url}`, { key: k, ...(body === undefined ? {} : { body }) });
  const create = async (body: Record<string, unknown>): Promise<WireWebhook> => {
    const res = await send('POST', '/webhooks', body);
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as WireWebhook;
  };
  const problem = (res: { statusCode: number; json(): unknown }) => {
    const p = res.json() as { type: string; detail: string; status: number };
    return { status: res.statusCode, type: p.type, detail: p.detail };
  };

  before(async () => {
    h = await createHarness();
    await receiver.start();
    const v2 = (await h.team('acme')).key;
    key = (await h.key('acme', '--v3')).key;
    await h.team('other');
    otherKey = (await h.key('other', '--v3')).key;
    const res = await h.send('POST', '/rest/v2/assets/', { key: v2, body: { name: 'example.com' } });
    assert.equal(res.statusCode, 200, res.body);
    assetToken = (res.json() as { token: string }).token;
  });
  after(async () => {
    await receiver.stop();
    await h.close();
  });

  it('creates a webhook and shows its secret only in that answer', async () => {
    const hook = await create({
      name: ' SOC pager ',
      url: receiver.url,
      events: ['vulnerability.new', 'scan.completed'],
      min_severity: 'high',
      assets: [assetToken],
    });
    assert.match(hook.id, /^[0-9a-f-]{36}$/);
    assert.equal(hook.name, 'SOC pager');
    assert.equal(hook.format, 'json');
    assert.deepEqual(hook.events, ['vulnerability.new', 'scan.completed']);
    assert.equal(hook.min_severity, 'high');
    assert.deepEqual(hook.assets, [assetToken]);
    assert.equal(hook.enabled, true);
    assert.match(hook.secret ?? '', /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(hook.secret!.slice(6), 'base64').length, 32);
    const got = (await send('GET', `/webhooks/${hook.id}`)).json() as WireWebhook;
    assert.equal(got.secret, undefined, 'never shown again');
    const { secret: _shown, ...rest } = hook;
    assert.deepEqual(got, rest);
    const listed = (await send('GET', '/webhooks')).json() as { items: WireWebhook[] };
    assert.ok(listed.items.every((w) => w.secret === undefined));
  });

  it('answers 1051 naming the field at fault', async () => {
    const base = { name: 'x', url: receiver.url, events: ['scan.completed'] };
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ ...base, name: '' }, 'name', /name must not be empty/],
      [{ ...base, events: ['scan.exploded'] }, 'events', /events has an unknown event kind "scan.exploded"/],
      [{ ...base, events: [] }, 'events', /events must name at least one event kind/],
      [{ ...base, events: undefined }, 'events', /events/],
      [{ ...base, url: 'ftp://127.0.0.1/x' }, 'url', /url must use http or https/],
      [{ ...base, url: 'http://user:pw@127.0.0.1/x' }, 'url', /url must not carry credentials/],
      [{ ...base, url: undefined }, 'url', /url is required for format json/],
      [{ ...base, format: 'pager' }, 'format', /format must be one of json, slack, teams, email/],
      [{ ...base, min_severity: 'urgent' }, 'min_severity', /min_severity must be one of/],
      [{ ...base, assets: ['nope'] }, 'assets', /assets names an unknown asset "nope"/],
      [{ ...base, digest_minutes: 5 }, 'digest_minutes', /digest_minutes is only for format email/],
      [{ ...base, recipients: ['a@example.com'] }, 'recipients', /recipients is only for format email/],
      [{ ...base, enabled: 'yes' }, 'enabled', /enabled must be true or false/],
    ];
    for (const [body, field, detail] of cases) {
      const res = await send('POST', '/webhooks', body);
      const p = problem(res);
      assert.equal(p.status, 400, `${field}: ${res.body}`);
      assert.equal(p.type, '/problems/1051', field);
      assert.match(p.detail, detail, field);
      assert.match(p.detail, new RegExp(`\\b${field}\\b`), `${field} is named`);
    }
    const missing = await h.send('POST', '/rest/v3/webhooks', { key });
    assert.equal(problem(missing).type, '/problems/1050');
  });

  it("refuses another team's asset token as unknown", async () => {
    const otherV2 = (await h.key('other')).key;
    const res = await h.send('POST', '/rest/v2/assets/', { key: otherV2, body: { name: 'other.example' } });
    const token = (res.json() as { token: string }).token;
    const refused = await send('POST', '/webhooks', {
      name: 'x',
      url: receiver.url,
      events: ['asset.added'],
      assets: [token],
    });
    assert.match(problem(refused).detail, /assets names an unknown asset/);
  });

  it('refuses a URL whose host the egress guard denies, saying PERIMETER_EGRESS_ALLOW allows it', async () => {
    for (const url of ['http://10.0.0.1/hook', 'http://[fe80::1]/hook', 'http://169.254.169.254/latest']) {
      const res = await send('POST', '/webhooks', { name: 'x', url, events: ['scan.completed'] });
      const p = problem(res);
      assert.equal(p.status, 400, url);
      assert.equal(p.type, '/problems/1051');
      assert.match(
        p.detail,
        /^Request body malformed: url names a host whose address is not allowed \(.+ is in .+ range .+\)/,
      );
      assert.match(p.detail, /PERIMETER_EGRESS_ALLOW/);
    }
    // Loopback passes here only because the harness allows 127.0.0.0/8.
    const strict = await createHarness({ egressAllow: [] });
    try {
      await strict.team('solo');
      const solo = (await strict.key('solo', '--v3')).key;
      const res = await strict.send('POST', '/rest/v3/webhooks', {
        key: solo,
        body: { name: 'x', url: receiver.url, events: ['scan.completed'] },
      });
      assert.match(problem(res).detail, /127\.0\.0\.1 is in loopback range 127\.0\.0\.0\/8/);
    } finally {
      await strict.close();
    }
  });

  it('updates any field, rotates the secret once, and deletes', async () => {
    const hook = await create({ name: 'a', url: receiver.url, events: ['scan.completed'] });
    const res = await send('PATCH', `/webhooks/${hook.id}`, {
      name: 'b',
      events: ['port.opened'],
      min_severity: null,
      assets: [assetToken],
      format: 'slack',
    });
    assert.equal(res.statusCode, 200, res.body);
    const updated = res.json() as WireWebhook;
    assert.deepEqual(
      [updated.name, updated.events, updated.format, updated.assets],
      ['b', ['port.opened'], 'slack', [assetToken]],
    );
    assert.equal(updated.secret, undefined);
    const rotated = (await send('PATCH', `/webhooks/${hook.id}`, { rotate_secret: true })).json() as WireWebhook;
    assert.match(rotated.secret ?? '', /^whsec_/);
    assert.notEqual(rotated.secret, hook.secret);
    const bad = await send('PATCH', `/webhooks/${hook.id}`, { url: 'http://10.1.2.3/' });
    assert.equal(problem(bad).type, '/problems/1051');
    const off = (await send('PATCH', `/webhooks/${hook.id}`, { enabled: false })).json() as WireWebhook;
    assert.equal(off.enabled, false);
    const on = (await send('PATCH', `/webhooks/${hook.id}`, { enabled: true })).json() as WireWebhook;
    assert.deepEqual([on.enabled, on.disabled_reason], [true, null]);
    const del = await send('DELETE', `/webhooks/${hook.id}`);
    assert.equal(del.statusCode, 204);
    assert.equal(del.body, '');
    assert.equal((await send('GET', `/webhooks/${hook.id}`)).statusCode, 404);
    assert.equal((await send('DELETE', `/webhooks/${hook.id}`)).statusCode, 404);
  });

  it('sends a test event now, lists deliveries newest first and redelivers under the same webhook-id', async () => {
    const hook = await create({ name: 't', url: receiver.url, events: ['scan.completed'] });
    receiver.setSecret(hook.secret!);
    const before = receiver.deliveries.length;
    const res = await send('POST', `/webhooks/${hook.id}/test`);
    assert.equal(res.statusCode, 200, res.body);
    const delivery = res.json() as Record<string, unknown>;
    assert.deepEqual(
      [
        delivery['type'],
        delivery['outcome'],
        delivery['http_status'],
        delivery['is_test'],
        delivery['response_excerpt'],
      ],
      ['webhook.test', 'succeeded', 200, true, 'ok'],
    );
    const got = receiver.deliveries.slice(before);
    assert.equal(got.length, 1);
    assert.equal(got[0]!.isSignatureValid, true);
    assert.equal(got[0]!.id, delivery['event_id']);
    assert.equal(got[0]!.type, 'webhook.test');
    receiver.answerWith(500);
    const failed = (await send('POST', `/webhooks/${hook.id}/test`)).json() as Record<string, unknown>;
    receiver.answerWith(200);
    assert.deepEqual([failed['outcome'], failed['http_status'], failed['error']], ['failed', 500, 'HTTP 500']);
    assert.equal(failed['response_excerpt'], 'refused with 500');
    const again = await send('POST', `/webhooks/${hook.id}/deliveries/${String(failed['id'])}/redeliver`);
    assert.equal(again.statusCode, 200, again.body);
    const redelivered = again.json() as Record<string, unknown>;
    assert.equal(redelivered['event_id'], failed['event_id']);
    assert.equal(redelivered['is_redelivery'], true);
    assert.equal(receiver.deliveries.at(-1)!.id, failed['event_id'], 'same webhook-id');
    const list = (await send('GET', `/webhooks/${hook.id}/deliveries?limit=2`)).json() as {
      items: Array<Record<string, unknown>>;
      pagination: { next?: string };
    };
    assert.deepEqual(
      list.items.map((d) => d['id']),
      [redelivered['id'], failed['id']],
    );
    assert.ok(list.pagination.next !== undefined);
    const next = new URL(list.pagination.next);
    assert.equal(next.pathname, `/rest/v3/webhooks/${hook.id}/deliveries`);
    const older = (await h.send('GET', next.pathname + next.search, { key })).json() as {
      items: Array<Record<string, unknown>>;
    };
    assert.deepEqual(
      older.items.map((d) => d['id']),
      [delivery['id']],
    );
    const unknown = await send(
      'POST',
      `/webhooks/${hook.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
    );
    assert.equal(unknown.statusCode, 404);
  });

  it("answers 404 alike for another team's webhook on every path, and lists none of them", async () => {
    const hook = await create({ name: 'mine', url: receiver.url, events: ['scan.completed'] });
    const test = (await send('POST', `/webhooks/${hook.id}/test`)).json() as { id: string };
    const paths: Array<[string, string, unknown?]> = [
      ['GET', `/webhooks/${hook.id}`],
      ['PATCH', `/webhooks/${hook.id}`, { name: 'stolen' }],
      ['DELETE', `/webhooks/${hook.id}`],
      ['POST', `/webhooks/${hook.id}/test`],
      ['GET', `/webhooks/${hook.id}/deliveries`],
      ['POST', `/webhooks/${hook.id}/deliveries/${test.id}/redeliver`],
    ];
    const unknownId = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
    for (const [method, path, body] of paths) {
      const theirs = await send(method, path, body, otherKey);
      const none = await send(method, path.replace(hook.id, unknownId), body);
      const malformed = await send(method, path.replace(hook.id, 'not-a-uuid'), body);
      for (const res of [theirs, none, malformed]) {
        assert.equal(res.statusCode, 404, `${method} ${path}: ${res.body}`);
        assert.equal(problem(res).type, '/problems/not-found');
      }
      assert.equal(problem(theirs).detail, problem(none).detail);
    }
    const list = (await send('GET', '/webhooks', undefined, otherKey)).json() as { items: unknown[] };
    assert.deepEqual(list.items, []);
    assert.equal(((await send('GET', `/webhooks/${hook.id}`)).json() as WireWebhook).name, 'mine', 'unchanged');
  });

  it('takes team_id as connectors do: required for a key tied to several teams, one of its teams', async () => {
    const acme = (await h.runtime.store.teams.findByName('acme'))!;
    const other = (await h.runtime.store.teams.findByName('other'))!;
    const multi = randomBytes(16).toString('hex');
    await h.runtime.store.keys.insert({
      publicId: newKeyId(),
      keyHash: hashKey(multi),
      kind: 'v3',
      hint: multi.slice(0, 6),
      permissions: null,
      secretSealed: null,
      teamIds: [acme.id, other.id],
      created: new Date(),
      revoked: null,
    });
    const body = { name: 'multi', url: receiver.url, events: ['scan.completed'] };
    const missing = await send('POST', '/webhooks', body, multi);
    assert.match(problem(missing).detail, /team_id is required: this API key is tied to several teams/);
    const foreign = await send('POST', '/webhooks', { ...body, team_id: 'f'.repeat(32) }, multi);
    assert.match(problem(foreign).detail, /team_id is not a team of this API key/);
    const made = await send('POST', '/webhooks', { ...body, team_id: other.token }, multi);
    assert.equal(made.statusCode, 201, made.body);
    assert.equal((made.json() as WireWebhook).team_id, other.token);
    const listed = (await send('GET', '/webhooks', undefined, multi)).json() as { items: WireWebhook[] };
    assert.ok(
      listed.items.some((w) => w.team_id === acme.token) && listed.items.some((w) => w.team_id === other.token),
    );
    const theirs = (await send('GET', '/webhooks', undefined, otherKey)).json() as { items: WireWebhook[] };
    assert.deepEqual(
      theirs.items.map((w) => w.name),
      ['multi'],
      "the other team's key sees only its team's webhook",
    );
  });

  it('refuses format email when no SMTP server is configured, naming format', async () => {
    if (h.runtime.emailSender !== undefined) return;
    const res = await send('POST', '/webhooks', {
      name: 'm',
      format: 'email',
      recipients: ['a@example.com'],
      events: ['scan.completed'],
    });
    assert.match(problem(res).detail, /format email needs an SMTP server/);
  });
});
