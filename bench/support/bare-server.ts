import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Scope } from './scope.ts';

/** A running bare server. */
export interface BareServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The floor of an HTTP answer in Node: a plain `node:http` server answering every request with
 * the same bytes and headers, no routing, auth or database. Closed with the scope.
 */
export async function startBareServer(
  scope: Scope,
  body: Buffer,
  headers: Record<string, string>,
): Promise<BareServer> {
  const fixed = { ...headers, 'content-length': String(body.length) };
  const server = createServer((request, response) => {
    // Drain any request body so keep-alive connections stay usable.
    request.resume();
    response.writeHead(200, fixed);
    response.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  scope.defer('close bare server', close);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}
