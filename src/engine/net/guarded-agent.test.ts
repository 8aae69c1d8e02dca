import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EgressGuard, type AddressResolver } from './egress-guard.ts';
import { guardedAgents } from './guarded-agent.ts';

const resolver: AddressResolver = {
  resolveAddresses: (name) => Promise.resolve(name === 'provider.test' ? ['127.0.0.1'] : []),
};

function get(url: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('guardedAgents', () => {
  let server: http.Server;
  let port = 0;
  before(async () => {
    server = http.createServer((req, res) => res.end(`hello ${req.headers.host}`));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('dials a checked address, by name and by literal, when the guard allows it', async () => {
    const agents = guardedAgents({ guard: new EgressGuard(['127.0.0.0/8']), resolver, timeoutMs: 2000 });
    assert.deepEqual(await get(`http://provider.test:${port}/`, agents.http), {
      status: 200,
      body: `hello provider.test:${port}`,
    });
    assert.equal((await get(`http://127.0.0.1:${port}/`, agents.http)).status, 200);
    agents.http.destroy();
  });

  it('refuses a denied address, an IP literal included (no lookup would run for it)', async () => {
    const agents = guardedAgents({ guard: new EgressGuard([]), resolver, timeoutMs: 2000 });
    await assert.rejects(get(`http://127.0.0.1:${port}/`, agents.http), /denied by egress guard: 127\.0\.0\.1/);
    await assert.rejects(get(`http://provider.test:${port}/`, agents.http), /denied by egress guard/);
    agents.http.destroy();
  });

  it('fails a name without an address', async () => {
    const agents = guardedAgents({ guard: new EgressGuard(['127.0.0.0/8']), resolver, timeoutMs: 2000 });
    await assert.rejects(get(`http://nowhere.test:${port}/`, agents.http), /nowhere\.test has no address/);
    agents.http.destroy();
  });
});
