import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { fireDueConnectorRuns } from '../../src/core/connectors/connector-run.service.ts';
import { ConnectorRunError, type ProviderInventory } from '../../src/core/connectors/connector-run.types.ts';
import type { ConnectorAdapter, AdapterContext } from '../../src/engine/connectors/connector-adapter.ts';
import { createConnectorCollector } from '../../src/engine/connectors/connector-engine.ts';
import { createJobQueue } from '../../src/jobs/create-queue.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import type { JobHandler, JobQueue } from '../../src/jobs/job-queue.ts';
import pino from 'pino';
import { createHarness, type Harness } from '../support/harness.ts';

/**
 * The run pipeline end to end through the API and the job queue, with a scripted adapter in
 * place of a provider (each provider's adapter is tested against its local provider server in
 * connector-<provider>.test.ts): what a run imports, gone-from-provider marking, failures and
 * their credential-free errors, the event, daily runs, one run at a time, resumption, tenancy.
 */

const apiKey = 'ns1-secret-key-0123456789';

function inventory(overrides: Partial<ProviderInventory> = {}): ProviderInventory {
  return {
    zones: [
      {
        name: 'shop.test',
        records: [
          { name: 'shop.test', ttl: 3600, type: 'A', data: '203.0.113.10' },
          { name: 'www.shop.test', ttl: 300, type: 'CNAME', data: 'shop.test.' },
          { name: 'api.shop.test', ttl: 300, type: 'A', data: '203.0.113.11' },
          { name: 'old.shop.test', ttl: 300, type: 'A', data: '203.0.113.12' },
        ],
      },
    ],
    addresses: [{ address: '198.51.100.7', source: 'droplet web-1 (ams3)' }],
    hostnames: [
      { name: 'cdn.shop.test', source: 'cdn hostname' },
      { name: 'lb-1.provider.test', source: 'load balancer lb-1' },
    ],
    ...overrides,
  };
}

/** An adapter that answers what `next` holds, records its calls, and can be made to wait or fail. */
class ScriptedAdapter implements ConnectorAdapter {
  readonly provider = 'DNS_H' as const;
  next: ProviderInventory | Error = inventory();
  calls: AdapterContext[] = [];
  running = 0;
  maxRunning = 0;
  gate: Promise<void> | undefined;

  async collect(context: AdapterContext): Promise<ProviderInventory> {
    this.calls.push(context);
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      if (this.gate !== undefined) {
        const aborted = new Promise<never>((_, reject) =>
          context.signal.addEventListener('abort', () => reject(context.signal.reason as Error), { once: true }),
        );
        await Promise.race([this.gate, aborted]);
      }
      if (this.next instanceof Error) throw this.next;
      return this.next;
    } finally {
      this.running -= 1;
    }
  }
}

/** The connector run jobs' endings as the queue sees them: a job that throws fails (and is retried). */
const runJobEndings: Array<'done' | Error> = [];
function watchedHandlers(h: Harness): JobHandler[] {
  return jobHandlers(h.runtime).map((handler) =>
    handler.kind !== 'connector-run'
      ? handler
      : {
          ...handler,
          async handle(payload, ctx) {
            try {
              await handler.handle(payload, ctx);
              runJobEndings.push('done');
            } catch (err) {
              runJobEndings.push(err instanceof Error ? err : new Error(String(err)));
              throw err;
            }
          },
        },
  );
}

describe('connector runs', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  const adapter = new ScriptedAdapter();

  before(async () => {
    h = await createHarness();
    await h.team('acme', { plan: 'enterprise' });
    key = (await h.key('acme', '--v3')).key;
    await h.team('globex', { plan: 'enterprise' });
    otherKey = (await h.key('globex', '--v3')).key;
    h.runtime.connectorRuns.collector = createConnectorCollector({
      guard: h.runtime.guard,
      resolver: h.runtime.resolver,
      endpoints: {},
      requestTimeoutMs: 5000,
      adapters: { DNS_H: adapter },
    });
  });
  let restarted: JobQueue | undefined;
  after(async () => {
    await restarted?.stop();
    await h.close();
  });

  const get = async (id: string, k = key) => h.send('GET', `/rest/v3/connectors/${id}`, { key: k });
  const lastRun = async (id: string) =>
    ((await get(id)).json() as { last_run: { status: string; error: string; completed_at: string | null } }).last_run;
  async function settled(id: string): Promise<{ status: string; error: string; completed_at: string | null }> {
    for (let i = 0; i < 200; i += 1) {
      const run = await lastRun(id);
      if (run.status === 'SUCCEEDED' || run.status === 'FAILED') return run;
      await delay(25);
    }
    throw new Error('the run did not end');
  }
  const assetNames = async () => {
    const res = await h.send('GET', '/rest/v2/assets/?include_subdomains=true', { key: (await h.key('acme')).key });
    return (res.json() as { assets: Array<{ name: string; added_by: string[] }> }).assets;
  };
  const runEvents = async (id: string) => {
    const res = await h.send('GET', '/rest/v3/events?kind=connector.run_finished', { key });
    return (res.json() as { items: Array<{ data: Record<string, unknown> }> }).items.filter(
      (e) => e.data['connector_id'] === id,
    );
  };

  let id = '';

  it('queues a run on create, and the run imports zones, records, host names and addresses', async () => {
    const res = await h.send('POST', '/rest/v3/connectors', {
      key,
      body: { name: 'Production DNS', provider: 'DNS_H', options: { api_key: apiKey } },
    });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json() as { id: string; last_run: unknown };
    id = created.id;
    assert.deepEqual(created.last_run, { status: 'QUEUED', error: '', completed_at: null });
    await h.jobs.work(watchedHandlers(h), { pollIntervalMs: 20 });
    const run = await settled(id);
    assert.equal(run.status, 'SUCCEEDED', run.error);
    assert.equal(run.error, '');
    assert.ok(run.completed_at !== null && !Number.isNaN(Date.parse(run.completed_at)));
    assert.deepEqual(adapter.calls[0]!.options, { api_key: apiKey });
    assert.match(adapter.calls[0]!.externalId, /^[0-9a-f]{32}$/);

    const assets = await assetNames();
    const byName = new Map(assets.map((a) => [a.name, a]));
    for (const name of ['shop.test', 'cdn.shop.test', 'lb-1.provider.test', '198.51.100.7'])
      assert.deepEqual(byName.get(name)?.added_by, ['connector'], name);
    // Record names under the new root are its discovered subdomains, as a zone upload's are.
    const root = assets.find((a) => a.name === 'shop.test') as unknown as { token: string };
    const subs = await h.send('GET', `/rest/v2/assets/${root.token}/subdomains/`, { key: (await h.key('acme')).key });
    const subNames = (subs.json() as { assets: Array<{ name: string }> }).assets.map((a) => a.name).sort();
    for (const name of ['api.shop.test', 'old.shop.test', 'www.shop.test', 'cdn.shop.test'])
      assert.ok(subNames.includes(name), `${name} in ${subNames.join(', ')}`);

    const listed = await h.send('GET', `/rest/v3/connectors/${id}/assets`, { key });
    assert.equal(listed.statusCode, 200, listed.body);
    const body = listed.json() as {
      items: Array<{ name: string; kind: string; gone_from_provider: boolean }>;
      total: number;
      gone: number;
    };
    assert.equal(body.total, 7);
    assert.equal(body.gone, 0);
    assert.deepEqual(body.items.map((a) => `${a.kind} ${a.name}`).sort(), [
      'address 198.51.100.7',
      'hostname cdn.shop.test',
      'hostname lb-1.provider.test',
      'name api.shop.test',
      'name old.shop.test',
      'name www.shop.test',
      'zone shop.test',
    ]);
    const events = await runEvents(id);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.data['imported'], {
      zones: 1,
      records: 4,
      hostnames: 2,
      addresses: 1,
      assets_added: 4,
      gone: 0,
      skipped: 0,
    });
    assert.equal(events[0]!.data['status'], 'SUCCEEDED');
    assert.equal(events[0]!.data['error'], null);
  });

  it('marks what a later run no longer sees as gone from the provider, and deletes nothing', async () => {
    adapter.next = inventory({
      zones: [{ name: 'shop.test', records: inventory().zones[0]!.records.filter((r) => r.name !== 'old.shop.test') }],
      hostnames: [{ name: 'cdn.shop.test', source: 'cdn hostname' }],
    });
    const res = await h.send('POST', `/rest/v3/connectors/${id}/run`, { key });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal((res.json() as { last_run: { status: string } }).last_run.status, 'QUEUED');
    assert.equal((await settled(id)).status, 'SUCCEEDED');
    const listed = (await h.send('GET', `/rest/v3/connectors/${id}/assets`, { key })).json() as {
      items: Array<{ name: string; gone_from_provider: boolean; gone_at: string | null }>;
      gone: number;
    };
    assert.equal(listed.gone, 2);
    const gone = listed.items
      .filter((a) => a.gone_from_provider)
      .map((a) => a.name)
      .sort();
    assert.deepEqual(gone, ['lb-1.provider.test', 'old.shop.test']);
    // Present ones are listed first.
    assert.equal(listed.items.at(-1)!.gone_from_provider, true);
    const names = (await assetNames()).map((a) => a.name);
    assert.ok(names.includes('lb-1.provider.test'), 'the asset is kept');
    // Seen again: no longer gone.
    adapter.next = inventory();
    await h.send('POST', `/rest/v3/connectors/${id}/run`, { key });
    assert.equal((await settled(id)).status, 'SUCCEEDED');
    const again = (await h.send('GET', `/rest/v3/connectors/${id}/assets`, { key })).json() as { gone: number };
    assert.equal(again.gone, 0);
  });

  it('records a failure with a clear error that never holds a credential', async () => {
    adapter.next = new ConnectorRunError(
      'credentials',
      `The provider refused the API key ${apiKey} (401 Unauthorized)`,
    );
    await h.send('POST', `/rest/v3/connectors/${id}/run`, { key });
    const run = await settled(id);
    assert.equal(run.status, 'FAILED');
    assert.equal(run.error, 'The provider refused the API key [redacted] (401 Unauthorized)');
    assert.ok(!JSON.stringify(await get(id).then((r) => r.json())).includes(apiKey));
    const events = await runEvents(id);
    const last = events.at(-1)!.data;
    assert.equal(last['status'], 'FAILED');
    assert.equal(last['error'], run.error);
    assert.equal(last['imported'], null);

    adapter.next = Object.assign(new Error(`socket hang up at key=${apiKey}`), { code: 'ECONNREFUSED' });
    await h.send('POST', `/rest/v3/connectors/${id}/run`, { key });
    assert.deepEqual(await settled(id).then((r) => [r.status, r.error]), [
      'FAILED',
      'The provider could not be reached (ECONNREFUSED)',
    ]);
    adapter.next = new TypeError(`Cannot read properties of undefined (${apiKey})`);
    await h.send('POST', `/rest/v3/connectors/${id}/run`, { key });
    assert.deepEqual(await settled(id).then((r) => [r.status, r.error]), [
      'FAILED',
      "The provider's answer could not be used (TypeError)",
    ]);
  });

  it('runs one at a time per connector: a request during a run answers that run', async () => {
    adapter.next = inventory();
    let open!: () => void;
    adapter.gate = new Promise((resolve) => (open = resolve));
    const calls = adapter.calls.length;
    await h.send('POST', `/rest/v3/connectors/${id}/run`, { key });
    for (let i = 0; i < 200 && adapter.calls.length === calls; i += 1) await delay(10);
    const during = await h.send('POST', `/rest/v3/connectors/${id}/run`, { key });
    assert.equal((during.json() as { last_run: { status: string } }).last_run.status, 'RUNNING');
    await delay(200);
    open();
    adapter.gate = undefined;
    assert.equal((await settled(id)).status, 'SUCCEEDED');
    assert.equal(adapter.calls.length, calls + 1, 'one run, not two');
    assert.equal(adapter.maxRunning, 1);
  });

  it('keeps nothing of a run whose connector was deleted while it read the provider, and the job ends', async () => {
    const outcomes: Array<ProviderInventory | Error> = [
      inventory({ zones: [{ name: 'doomed.test', records: [] }], addresses: [], hostnames: [] }),
      new ConnectorRunError('credentials', 'The provider refused the API key (401 Unauthorized)'),
    ];
    for (const next of outcomes) {
      adapter.next = next;
      let open!: () => void;
      adapter.gate = new Promise((resolve) => (open = resolve));
      const calls = adapter.calls.length;
      const created = await h.send('POST', '/rest/v3/connectors', {
        key,
        body: { name: 'Short-lived', provider: 'DNS_H', options: { api_key: apiKey } },
      });
      assert.equal(created.statusCode, 201, created.body);
      const doomed = (created.json() as { id: string }).id;
      for (let i = 0; i < 400 && adapter.calls.length === calls; i += 1) await delay(10);
      assert.equal(adapter.calls.length, calls + 1, 'the run reads the provider');
      const deleted = await h.send('DELETE', `/rest/v3/connectors/${doomed}`, { key });
      assert.ok(deleted.statusCode < 300, deleted.body);
      const endings = runJobEndings.length;
      open();
      adapter.gate = undefined;
      for (let i = 0; i < 400 && runJobEndings.length === endings; i += 1) await delay(10);
      assert.deepEqual(runJobEndings.slice(endings), ['done'], 'the job ended without failing');
      assert.ok(!(await assetNames()).some((a) => a.name === 'doomed.test'), 'no asset of the deleted connector');
      assert.deepEqual(await runEvents(doomed), [], 'no run event of the deleted connector');
    }
    adapter.next = inventory();
  });

  it('resumes a run cut off by a stop: the job runs again and the run ends', async () => {
    adapter.gate = new Promise(() => undefined); // never opens: only the stop ends it
    await h.send('POST', `/rest/v3/connectors/${id}/run`, { key });
    const calls = adapter.calls.length;
    for (let i = 0; i < 200 && adapter.calls.length === calls; i += 1) await delay(10);
    await h.jobs.stop({ graceMs: 2000 });
    assert.equal((await lastRun(id)).status, 'RUNNING');
    adapter.gate = undefined;
    // A new worker on the same store, as after a restart: the stopped run's job is handed to it.
    const log = pino({ level: 'silent' });
    restarted = await createJobQueue(h.runtime.database, { log });
    await restarted.work(watchedHandlers(h), { pollIntervalMs: 20 });
    assert.equal((await settled(id)).status, 'SUCCEEDED');
  });

  it('queues daily runs once each when they are due', async () => {
    const store = h.runtime.store;
    const deps = { store, enqueueRun: async () => undefined };
    assert.equal(await fireDueConnectorRuns(deps, new Date()), 0, 'not due: a run was just requested');
    const tomorrow = new Date(Date.now() + 25 * 3600 * 1000);
    const queued: number[] = [];
    const counting = { store, enqueueRun: async (_t: number, c: number, r: number) => void queued.push(c * 1000 + r) };
    assert.equal(await fireDueConnectorRuns(counting, tomorrow), 1);
    assert.equal(await fireDueConnectorRuns(counting, tomorrow), 0, 'claimed once');
    // The second round claims nothing; it only enqueues the QUEUED run again, which a pending job ignores.
    assert.deepEqual([...new Set(queued)].length, 1);
    assert.equal((await lastRun(id)).status, 'QUEUED');
    await h.send('POST', `/rest/v3/connectors/${id}/run`, { key });
    assert.equal((await settled(id)).status, 'SUCCEEDED');
  });

  it("answers another team's connector as one that does not exist", async () => {
    for (const [method, path] of [
      ['POST', `/rest/v3/connectors/${id}/run`],
      ['GET', `/rest/v3/connectors/${id}/assets`],
      ['POST', '/rest/v3/connectors/00000000-0000-4000-8000-000000000000/run'],
      ['GET', '/rest/v3/connectors/not-a-uuid/assets'],
    ] as const) {
      const res = await h.send(method, path, { key: otherKey });
      assert.equal(res.statusCode, 404, `${method} ${path}`);
      assert.equal((res.json() as { detail: string }).detail, 'No connector with this id');
    }
    const bad = await h.send('GET', `/rest/v3/connectors/${id}/assets?limit=0`, { key });
    assert.equal(bad.statusCode, 400);
  });
});
