import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EgressDeniedError, EgressGuard } from './egress-guard.ts';
import { createGuardedRequest } from './guarded-request.ts';

const resolver = {
  resolveAddresses: async (name: string) => (name === 'hooks.test' ? ['127.0.0.1'] : []),
};

describe('guarded request', () => {
  let server: http.Server;
  let port = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/long') return void res.end('x'.repeat(5000));
      if (req.url === '/moved') {
        res.writeHead(302, { location: '/elsewhere' });
        return void res.end('moved');
      }
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => res.end(JSON.stringify({ host: req.headers.host, sig: req.headers['x-sig'], body })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const allowed = () =>
    createGuardedRequest({ guard: new EgressGuard(['127.0.0.0/8']), resolver, timeoutMs: 2000 }, 1024);
  const post = { method: 'POST', headers: { 'x-sig': 'v1,abc' }, body: '{"a":1}' } as const;

  it('posts to an address the guard allows, keeping the name in Host, and answers status and body', async () => {
    const answer = await allowed()(`http://hooks.test:${port}/x`, { ...post, signal: AbortSignal.timeout(2000) });
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.excerpt), { host: `hooks.test:${port}`, sig: 'v1,abc', body: '{"a":1}' });
  });

  it('keeps only the first KiB of a long answer and follows no redirect', async () => {
    const send = allowed();
    const long = await send(`http://hooks.test:${port}/long`, { ...post, signal: AbortSignal.timeout(2000) });
    assert.equal(long.excerpt, 'x'.repeat(1024));
    const moved = await send(`http://hooks.test:${port}/moved`, { ...post, signal: AbortSignal.timeout(2000) });
    assert.deepEqual(moved, { status: 302, excerpt: 'moved' });
  });

  it('refuses a name or an address the guard denies, before any connection', async () => {
    const send = createGuardedRequest({ guard: new EgressGuard([]), resolver, timeoutMs: 2000 });
    for (const url of [`http://hooks.test:${port}/`, `http://127.0.0.1:${port}/`]) {
      await assert.rejects(send(url, { ...post, signal: AbortSignal.timeout(2000) }), (err: unknown) => {
        const cause = (err as { cause?: unknown }).cause;
        assert.ok(err instanceof EgressDeniedError || cause instanceof EgressDeniedError, String(err));
        return true;
      });
    }
  });
});
