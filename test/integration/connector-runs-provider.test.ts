import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { startFakeNs1, type FakeNs1 } from '../support/fake-providers/ns1.ts';
import { createHarness, type Harness } from '../support/harness.ts';

/**
 * A connector run through the whole server with a real adapter: the NS1 adapter (DNS_H) reaches
 * the local NS1 server named by the operator setting PERIMETER_CONNECTOR_ENDPOINTS (config
 * `connectorEndpoints`), through the egress guard; the zones it reads become the team's assets.
 */

const apiKey = 'NS1-E2E-KEY-4hT8wQ2nV6';

describe('connector runs against a provider server', () => {
  let h: Harness;
  let ns1: FakeNs1;
  let key: string;

  before(async () => {
    ns1 = await startFakeNs1(apiKey, {
      'corp.test': [
        { domain: 'corp.test', type: 'A', ttl: 300, short_answers: ['203.0.113.20'] },
        { domain: 'vpn.corp.test', type: 'A', ttl: 300, short_answers: ['203.0.113.21'] },
        { domain: 'mail.corp.test', type: 'MX', ttl: 300, short_answers: ['10 mx.corp.test'] },
      ],
    });
    h = await createHarness({ connectorEndpoints: { DNS_H: ns1.url } });
    await h.team('acme', { plan: 'enterprise' });
    key = (await h.key('acme', '--v3')).key;
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 20 });
  });
  after(async () => {
    await h.close();
    await ns1.close();
  });

  async function settled(id: string): Promise<{ status: string; error: string }> {
    for (let i = 0; i < 400; i += 1) {
      const res = await h.send('GET', `/rest/v3/connectors/${id}`, { key });
      const run = (res.json() as { last_run: { status: string; error: string } }).last_run;
      if (run.status === 'SUCCEEDED' || run.status === 'FAILED') return run;
      await delay(25);
    }
    throw new Error('the run did not end');
  }

  it('imports the zones of the account as the team assets, with the key sent to the provider only', async () => {
    const res = await h.send('POST', '/rest/v3/connectors', {
      key,
      body: { name: 'NS1', provider: 'DNS_H', options: { api_key: apiKey } },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = (res.json() as { id: string }).id;
    const run = await settled(id);
    assert.deepEqual([run.status, run.error], ['SUCCEEDED', '']);
    assert.ok(ns1.requests.length >= 2);
    assert.ok(ns1.requests.every((r) => r.headers['x-nsone-key'] === apiKey));
    const listed = (await h.send('GET', `/rest/v3/connectors/${id}/assets`, { key })).json() as {
      items: Array<{ name: string; kind: string }>;
    };
    assert.deepEqual(listed.items.map((a) => `${a.kind} ${a.name}`).sort(), [
      'name mail.corp.test',
      'name vpn.corp.test',
      'zone corp.test',
    ]);
    const v2 = (await h.key('acme')).key;
    const assets = (await h.send('GET', '/rest/v2/assets/', { key: v2 })).json() as {
      assets: Array<{ name: string; token: string; added_by: string[] }>;
    };
    const root = assets.assets.find((a) => a.name === 'corp.test');
    assert.deepEqual(root?.added_by, ['connector']);
    const subs = (await h.send('GET', `/rest/v2/assets/${root!.token}/subdomains/`, { key: v2 })).json() as {
      assets: Array<{ name: string }>;
    };
    assert.deepEqual(subs.assets.map((a) => a.name).sort(), ['mail.corp.test', 'vpn.corp.test']);
  });

  it('fails a run whose key the provider refuses, saying so without the key', async () => {
    const wrong = 'NS1-WRONG-KEY-9zX1cV5b';
    const res = await h.send('POST', '/rest/v3/connectors', {
      key,
      body: { name: 'NS1 old key', provider: 'DNS_H', options: { api_key: wrong } },
    });
    const id = (res.json() as { id: string }).id;
    const run = await settled(id);
    assert.equal(run.status, 'FAILED');
    assert.match(run.error, /refused|credentials|key/i);
    assert.ok(!run.error.includes(wrong));
  });
});
