import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { createHarness, type Harness } from '../support/harness.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Shutting down answers the requests in flight, then closes their connections: a keep-alive
 * client must not hold the process open for the keep-alive time-out (72 s) after its answer.
 */
describe('closing the server with a keep-alive client mid-request', () => {
  let h: Harness | undefined;
  after(async () => h?.close());

  it('answers the request in flight with Connection: close, and close() ends at once after it', async () => {
    h = await createHarness();
    const { key } = await h.team('closing');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true });
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/rest/v2/zone/file/?origin=closing.example',
      agent,
      headers: { 'x-service-key': key, 'content-type': 'text/plain' },
    });
    const answered = new Promise<{ status: number; connection: string | undefined; body: string }>(
      (resolve, reject) => {
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
        });
        req.on('error', reject);
      },
    );
    req.write('; a zone sent slowly\n');
    await sleep(200);
    const closing = h.app.close(); // what SIGTERM does first
    await sleep(200);
    req.end('www 300 IN A 192.0.2.1\n');
    const res = await answered;
    assert.deepEqual([res.status, JSON.parse(res.body)], [200, { indexed: 1 }]);
    assert.equal(res.connection, 'close');
    const started = Date.now();
    await closing;
    assert.ok(Date.now() - started < 3000, `close() ended ${Date.now() - started} ms after the answer`);
    agent.destroy();
  });
});
