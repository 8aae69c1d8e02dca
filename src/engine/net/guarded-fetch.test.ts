import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EgressDeniedError, EgressGuard } from './egress-guard.ts';
import { createGuardedFetch } from './guarded-fetch.ts';

const resolver = {
  resolveAddresses: async (name: string) => (name === 'idp.test' ? ['127.0.0.1'] : []),
};

describe('guarded fetch', () => {
  let server: http.Server;
  let port = 0;
  before(async () => {
    server = http.createServer((req, res) => res.end(JSON.stringify({ host: req.headers.host })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reaches an address the guard allows, keeping the name in Host', async () => {
    const fetch = createGuardedFetch({ guard: new EgressGuard(['127.0.0.0/8']), resolver, timeoutMs: 2000 });
    const response = await fetch(`http://idp.test:${port}/x`, {});
    assert.deepEqual(await response.json(), { host: `idp.test:${port}` });
  });

  it('refuses a name or an address the guard denies, before any connection', async () => {
    const fetch = createGuardedFetch({ guard: new EgressGuard([]), resolver, timeoutMs: 2000 });
    for (const url of [`http://idp.test:${port}/`, `http://127.0.0.1:${port}/`]) {
      await assert.rejects(fetch(url, {}), (err: unknown) => {
        assert.ok((err as { cause?: unknown }).cause instanceof EgressDeniedError);
        return true;
      });
    }
  });
});
