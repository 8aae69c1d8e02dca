import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { DnsResolver } from '../../dns/resolver.ts';
import { EgressGuard } from '../../net/egress-guard.ts';
import { createGuardedHttpClient, HttpRequestError } from './guarded-http-client.ts';

// A name that only this fake resolver knows, mapped to loopback: proves the socket goes to the
// checked address while Host keeps the name (and that no real DNS is asked).
const resolver: DnsResolver = {
  resolveTxt: async () => [],
  resolveAddresses: async (name) =>
    name === 'app.example.test' ? ['127.0.0.1'] : name === 'mixed.example.test' ? ['93.184.216.34', '10.0.0.1'] : [],
};

describe('createGuardedHttpClient', () => {
  let server: http.Server;
  let port: number;
  const hosts: string[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      if (req.url === '/huge') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let sent = 0;
        const pump = (): void => {
          while (sent < 5 * 1024 * 1024 && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      } else if (req.url === '/drip') {
        // A byte every 100 ms: each chunk resets undici's idle body timer, only a deadline ends it.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('.')), 100);
        res.on('close', () => clearInterval(timer));
      } else if (req.url === '/silent') {
        res.on('close', () => undefined);
      } else {
        res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] }).end('ok');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const client = (
    allow: string[],
    bodyLimit?: number,
    options: { requestTimeoutMs?: number; signal?: AbortSignal } = {},
  ) =>
    createGuardedHttpClient({
      guard: new EgressGuard(allow),
      resolver,
      requestTimeoutMs: options.requestTimeoutMs ?? 2000,
      signal: options.signal ?? new AbortController().signal,
      ...(bodyLimit === undefined ? {} : { bodyLimit }),
    });
  const isKind = (kind: string) => (err: unknown) => err instanceof HttpRequestError && err.kind === kind;

  it('connects to the checked address and keeps the name in Host', async () => {
    const c = client(['127.0.0.0/8']);
    try {
      const exchange = await c.send(
        { method: 'GET', url: new URL(`http://app.example.test:${port}/`), headers: [] },
        new AbortController().signal,
      );
      assert.equal(exchange.status, 200);
      assert.equal(exchange.body, 'ok');
      assert.deepEqual(
        exchange.headers.filter((h) => h.name === 'set-cookie').map((h) => h.value),
        ['a=1', 'b=2'],
      );
      assert.equal(hosts.at(-1), `app.example.test:${port}`);
    } finally {
      await c.close();
    }
  });

  it('caps the body it reads', async () => {
    const c = client(['127.0.0.0/8'], 100_000);
    try {
      const exchange = await c.send(
        { method: 'GET', url: new URL(`http://127.0.0.1:${port}/huge`), headers: [] },
        new AbortController().signal,
      );
      assert.equal(exchange.body.length, 100_000);
      assert.equal(exchange.isTruncated, true);
    } finally {
      await c.close();
    }
  });

  it('turns denied and unknown names into HttpRequestError kinds', async () => {
    const c = client([]);
    try {
      const signal = new AbortController().signal;
      await assert.rejects(
        c.send({ method: 'GET', url: new URL(`http://127.0.0.1:${port}/`), headers: [] }, signal),
        (err: unknown) => err instanceof HttpRequestError && err.kind === 'denied',
      );
      await assert.rejects(
        c.send({ method: 'GET', url: new URL('http://mixed.example.test/'), headers: [] }, signal),
        (err: unknown) => err instanceof HttpRequestError && err.kind === 'denied',
      );
      await assert.rejects(
        c.send({ method: 'GET', url: new URL('http://nothing.example.test/'), headers: [] }, signal),
        (err: unknown) => err instanceof HttpRequestError && err.kind === 'no_address',
      );
    } finally {
      await c.close();
    }
  });

  it('ends a body that trickles past the time limit, though every chunk arrives in time', async () => {
    const c = client(['127.0.0.0/8'], undefined, { requestTimeoutMs: 500 });
    try {
      const startedAt = performance.now();
      await assert.rejects(
        c.send(
          { method: 'GET', url: new URL(`http://127.0.0.1:${port}/drip`), headers: [] },
          new AbortController().signal,
        ),
        isKind('timeout'),
      );
      const elapsed = performance.now() - startedAt;
      assert.ok(elapsed >= 450 && elapsed < 1500, `timed out after ${elapsed} ms`);
    } finally {
      await c.close();
    }
  });

  it("aborts a request in flight with the caller's signal, and with the client's", async () => {
    const own = new AbortController();
    const c = client(['127.0.0.0/8'], undefined, { requestTimeoutMs: 10_000, signal: own.signal });
    try {
      const caller = new AbortController();
      const first = c.send(
        { method: 'GET', url: new URL(`http://127.0.0.1:${port}/silent`), headers: [] },
        caller.signal,
      );
      setTimeout(() => caller.abort(new Error('caller gave up')), 100);
      await assert.rejects(first, isKind('aborted'));
      const second = c.send(
        { method: 'GET', url: new URL(`http://127.0.0.1:${port}/silent`), headers: [] },
        own.signal,
      );
      setTimeout(() => own.abort(new Error('scan stopped')), 100);
      await assert.rejects(second, isKind('aborted'));
      // Already aborted: nothing is sent.
      await assert.rejects(
        c.send({ method: 'GET', url: new URL(`http://127.0.0.1:${port}/`), headers: [] }, own.signal),
        isKind('aborted'),
      );
    } finally {
      await c.close();
    }
  });
});
