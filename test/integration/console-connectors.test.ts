import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Connector } from '../../src/core/connectors/connector.types.ts';
import { signedInMember, type ConsoleClient } from '../support/console-client.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';

/**
 * The console's connector pages over inject (no provider: run states and assets are set through
 * the store, as a run would leave them): the list's last run (queued on create, failed with its
 * error escaped), the create form's option fields, Run now and the job it queues, the Viewer's
 * read-only view and its forged run refused, another team's connector not found, and the detail
 * page's assets with one gone from the provider.
 */
describe(`console: connectors (${testStore})`, () => {
  let h: Harness;
  let admin: ConsoleClient;
  let viewer: ConsoleClient;
  let rival: ConsoleClient;
  let acmeId: number;
  /** Every job the queue was asked for while the spy was on: kind, payload and the id answered. */
  const enqueued: Array<{ kind: string; payload: unknown; id: string }> = [];
  let restore: () => void = () => undefined;

  before(async () => {
    h = await createHarness();
    await h.team('acme', { plan: 'enterprise' });
    await h.team('rivals', { plan: 'enterprise' });
    acmeId = (await h.runtime.store.teams.findByName('acme'))!.id;
    admin = await signedInMember(h, 'acme', 'admin@acme.test', 'Admin');
    viewer = await signedInMember(h, 'acme', 'viewer@acme.test', 'Viewer');
    rival = await signedInMember(h, 'rivals', 'admin@rivals.test', 'Admin');
    // The queue the runtime's connector runs enqueue on (not worked here: runs stay QUEUED).
    const jobs = h.jobs;
    const enqueue = jobs.enqueue.bind(jobs);
    jobs.enqueue = async (kind, payload, options) => {
      const id = await enqueue(kind, payload, options);
      enqueued.push({ kind, payload, id });
      return id;
    };
    restore = () => {
      jobs.enqueue = enqueue;
    };
  });
  after(async () => {
    restore();
    await h.close();
  });

  /** The connector of the page's row named `name`. */
  async function connectorNamed(name: string): Promise<Connector> {
    const page = await admin.get('/team/connectors');
    const row = new RegExp(`<tr data-connector="([0-9a-f-]{36})">\\s*<td[^>]*><a href="[^"]+">${name}</a>`).exec(
      page.body,
    );
    assert.ok(row, `a row for ${name}`);
    return (await h.runtime.store.connectors.findByPublicId([acmeId], row[1]!))!;
  }

  /** The list's row of a connector (its HTML). */
  const rowOf = (body: string, connector: Connector): string =>
    new RegExp(`<tr data-connector="${connector.publicId}">[\\s\\S]*?</tr>`).exec(body)![0];

  it("creates a connector whose first run is queued; the form lists each provider's option fields", async () => {
    const form = await admin.get('/team/connectors');
    assert.match(form.body, /runs when it is created, then daily, and on demand/);
    assert.doesNotMatch(form.body, /no connector has run/);
    // Every provider's fields, required or optional, from connectorOptionFields.
    assert.equal((form.body.match(/<details data-provider="/g) ?? []).length, 9);
    assert.match(form.body, /<li><code>tenancy_ocid<\/code> <strong>required<\/strong>: The tenancy OCID/);
    assert.match(form.body, /<li><code>passphrase<\/code> <span class="muted">optional<\/span>/);
    assert.match(form.body, /data-provider="CLOUD_B"><summary>[^]*?requires tenant_id, client_id, client_secret/);

    enqueued.length = 0;
    const res = await admin.post('/team/connectors', {
      name: 'DNS <edge>',
      provider: 'DNS_H',
      options: 'api_key=s3cret-value-123',
    });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/team/connectors?notice=connector-created');
    const page = await admin.get('/team/connectors?notice=connector-created');
    assert.match(page.body, /Connector created\. Its first run is queued\./);
    assert.doesNotMatch(page.body, /s3cret-value-123/);
    const connector = await connectorNamed('DNS &lt;edge&gt;');
    assert.equal(connector.lastRun?.status, 'QUEUED');
    assert.match(
      rowOf(page.body, connector),
      /<span class="status job-queued" data-run-status="QUEUED">queued<\/span>/,
    );
    // One job, of the connector's run (its payload also numbers the request).
    assert.deepEqual(
      enqueued.map((j) => [
        j.kind,
        (j.payload as { teamId: number }).teamId,
        (j.payload as { connectorId: number }).connectorId,
      ]),
      [['connector-run', acmeId, connector.id]],
    );
    assert.equal(await h.jobs.isPending(enqueued[0]!.id), true, 'the run job is waiting for a worker');
  });

  it('shows a failed run with its error, escaped, to every role; "never run" before the first', async () => {
    const connector = await connectorNamed('DNS &lt;edge&gt;');
    const completedAt = new Date('2026-03-04T05:06:07Z');
    await h.runtime.store.connectors.setRun(acmeId, connector.id, {
      status: 'FAILED',
      error: 'The provider refused the credentials (401) <script>alert(1)</script>',
      completedAt,
    });
    for (const client of [admin, viewer]) {
      const row = rowOf((await client.get('/team/connectors')).body, connector);
      assert.match(row, /data-run-status="FAILED">failed<\/span>/);
      assert.match(row, /<time datetime="2026-03-04T05:06:07\.000Z">2026-03-04 05:06 UTC<\/time>/);
      assert.match(
        row,
        /<p class="problem-text run-error">The provider refused the credentials \(401\) &lt;script&gt;alert\(1\)&lt;\/script&gt;<\/p>/,
      );
      assert.doesNotMatch(row, /<script>/);
    }
    await h.runtime.store.connectors.setRun(acmeId, connector.id, { status: 'SUCCEEDED', error: '', completedAt });
    const row = rowOf((await admin.get('/team/connectors')).body, connector);
    assert.match(row, /data-run-status="SUCCEEDED">succeeded<\/span>/);
    assert.doesNotMatch(row, /run-error/);
    // A connector stored without a run request (as before runs existed) reads "never run".
    const bare = await h.runtime.store.connectors.insert({
      publicId: '0b6f1a9e-4c1d-4c36-9a77-0d6f3a1e2b10',
      teamId: acmeId,
      name: 'Old one',
      provider: 'CLOUD_E',
      optionsSealed: h.runtime.box.encrypt('{"token":"t0ken-value"}'),
      created: new Date(),
      updated: new Date(),
    });
    assert.match(rowOf((await viewer.get('/team/connectors')).body, bare), /<span class="muted">never run<\/span>/);
  });

  it('queues a run now, back to the page it came from; a second one while queued adds no job', async () => {
    const connector = await connectorNamed('DNS &lt;edge&gt;');
    assert.equal(connector.lastRun?.status, 'SUCCEEDED');
    enqueued.length = 0;
    await admin.get('/team/connectors');
    let res = await admin.post(`/team/connectors/${connector.publicId}/run`, { back: 'list' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/team/connectors?notice=connector-run-queued');
    assert.match((await admin.get(res.headers.location)).body, /Run queued\./);
    const queued = (await h.runtime.store.connectors.findForRun(acmeId, connector.id))!;
    assert.deepEqual(queued.lastRun, { status: 'QUEUED', error: '', completedAt: null });
    assert.equal(enqueued.length, 1);
    assert.equal(enqueued[0]!.kind, 'connector-run');
    assert.equal(await h.jobs.isPending(enqueued[0]!.id), true);

    await admin.get(`/team/connectors/${connector.publicId}`);
    res = await admin.post(`/team/connectors/${connector.publicId}/run`, { back: 'detail' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/team/connectors/${connector.publicId}?notice=connector-run-live`);
    assert.match((await admin.get(res.headers.location)).body, /already queued or running: no second one/);
    // The queue answers the waiting job: still one job for the connector.
    assert.equal(new Set(enqueued.map((j) => j.id)).size, 1);
    // Only two places to go back to: anything else is the list.
    res = await admin.post(`/team/connectors/${connector.publicId}/run`, { back: 'https://evil.test/' });
    assert.equal(res.headers.location, '/team/connectors?notice=connector-run-live');
  });

  it('shows a Viewer no Run button and refuses its forged run (403); the CSRF token is needed', async () => {
    const connector = await connectorNamed('DNS &lt;edge&gt;');
    await h.runtime.store.connectors.setRun(acmeId, connector.id, {
      status: 'FAILED',
      error: 'x',
      completedAt: new Date(),
    });
    for (const path of ['/team/connectors', `/team/connectors/${connector.publicId}`]) {
      const page = await viewer.get(path);
      assert.equal(page.statusCode, 200, path);
      assert.doesNotMatch(page.body, /\/run"/, path);
      assert.doesNotMatch(page.body, /<button[^>]*>Run now/, path);
      assert.match(page.body, /Your role \(Viewer\) reads the connector/, path);
    }
    enqueued.length = 0;
    const res = await viewer.post(`/team/connectors/${connector.publicId}/run`);
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Your role \(Viewer\) does not allow this/);
    const forged = await admin.post(`/team/connectors/${connector.publicId}/run`, { _csrf: 'forged' });
    assert.equal(forged.statusCode, 403);
    assert.equal((await h.runtime.store.connectors.findForRun(acmeId, connector.id))!.lastRun?.status, 'FAILED');
    assert.deepEqual(enqueued, [], 'no job was queued');
    const admins = (await admin.get('/team/connectors')).body;
    assert.match(rowOf(admins, connector), /action="\/team\/connectors\/[0-9a-f-]{36}\/run"[^]*>Run now/);
  });

  it("answers not found for another team's connector, an unknown id and a malformed one", async () => {
    const connector = await connectorNamed('DNS &lt;edge&gt;');
    const before = (await h.runtime.store.connectors.findForRun(acmeId, connector.id))!.lastRun;
    enqueued.length = 0;
    await rival.get('/team/connectors');
    for (const id of [connector.publicId, '7d1e0c55-8a0b-4f7e-9a51-3c2b1d0e9f88', 'not-a-uuid']) {
      assert.equal((await rival.get(`/team/connectors/${id}`)).statusCode, 404, id);
      const res = await rival.post(`/team/connectors/${id}/run`);
      assert.equal(res.statusCode, 404, id);
      assert.match(res.body, /<h1>Not found<\/h1>/);
    }
    assert.equal((await admin.get('/team/connectors/7d1e0c55-8a0b-4f7e-9a51-3c2b1d0e9f88')).statusCode, 404);
    assert.deepEqual((await h.runtime.store.connectors.findForRun(acmeId, connector.id))!.lastRun, before);
    assert.deepEqual(enqueued, []);
  });

  it('lists the assets runs recorded on the detail page, one gone from the provider since the second run', async () => {
    const connector = await connectorNamed('DNS &lt;edge&gt;');
    const empty = await viewer.get(`/team/connectors/${connector.publicId}`);
    assert.match(empty.body, /id="assets-empty"/);
    const first = new Date('2026-05-01T10:00:00Z');
    const second = new Date('2026-05-02T10:00:00Z');
    const seen = [
      { name: 'example.test', kind: 'zone' as const, source: 'NS1 zone example.test' },
      { name: 'www.example.test', kind: 'name' as const, source: 'NS1 record www.example.test A' },
      { name: '203.0.113.7', kind: 'address' as const, source: 'NS1 record <www> A' },
    ];
    await h.runtime.store.connectors.recordAssets(acmeId, connector.id, seen, first);
    const gone = await h.runtime.store.connectors.recordAssets(acmeId, connector.id, seen.slice(0, 2), second);
    assert.equal(gone.gone, 1);

    const page = await viewer.get(`/team/connectors/${connector.publicId}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1>DNS &lt;edge&gt;<\/h1>/);
    assert.match(page.body, /<dd class="mono">DNS_H<\/dd>/);
    assert.match(page.body, /<dd id="last-run"><span class="status job-failed" data-run-status="FAILED">failed/);
    assert.match(
      page.body,
      /<p id="asset-totals">3 names and addresses: <strong>2<\/strong> at the provider, <strong>1<\/strong> gone from it\.<\/p>/,
    );
    const rows = [...page.body.matchAll(/<tr data-asset="([^"]+)" data-kind="([a-z]+)"( data-gone class="gone")?>/g)];
    assert.deepEqual(
      rows.map((r) => [r[1], r[2], r[3] !== undefined]),
      [
        ['www.example.test', 'name', false],
        ['example.test', 'zone', false],
        ['203.0.113.7', 'address', true],
      ],
    );
    const goneRow = /<tr data-asset="203\.0\.113\.7"[^]*?<\/tr>/.exec(page.body)![0];
    assert.match(goneRow, /<span class="status job-failed">gone from provider<\/span>/);
    assert.match(goneRow, /since <time datetime="2026-05-02T10:00:00\.000Z">/);
    assert.match(goneRow, /NS1 record &lt;www&gt; A/);
    assert.match(goneRow, /<td class="nowrap" data-label="First seen"><time datetime="2026-05-01T10:00:00\.000Z">/);
    assert.match(goneRow, /<td class="nowrap" data-label="Last seen"><time datetime="2026-05-01T10:00:00\.000Z">/);
    const www = /<tr data-asset="www\.example\.test"[^]*?<\/tr>/.exec(page.body)![0];
    assert.match(www, /<span class="status job-done">present<\/span>/);
    assert.match(www, /data-label="Last seen"><time datetime="2026-05-02T10:00:00\.000Z">/);
    assert.match(www, /DNS name/);
    // The list links each name to this page.
    assert.match(
      (await viewer.get('/team/connectors')).body,
      new RegExp(`<a href="/team/connectors/${connector.publicId}">`),
    );
  });
});
