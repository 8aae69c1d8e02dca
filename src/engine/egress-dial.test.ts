import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { transferZone, ZoneTransferError } from './dns/axfr.ts';
import { connectTcp } from './dns/dns-tcp.ts';
import type { DnsResolver } from './dns/resolver.ts';
import { createGuardedHttpClient } from './http-scan/check-kit/guarded-http-client.ts';
import { createOwnershipChecker } from './verify/ownership-checker.ts';
import { EgressGuard } from './net/egress-guard.ts';

// Every engine caller must dial the very address the guard checked. The servers listen on
// 127.0.0.2 and 127.0.0.3 only and the names exist only in the stub resolver, so a caller that
// dialled another address, or resolved the name again, would not reach them. Nothing here leaves
// 127.0.0.0/8: the denied address of `mixed.dial.test` is never dialled.
const CODE = 'dial-check-code';
const lookups: string[] = [];
const resolver: DnsResolver = {
  resolveTxt: async () => [],
  resolveAddresses: async (name) => {
    lookups.push(name);
    return (
      { 'ns.dial.test': ['127.0.0.2'], 'web.dial.test': ['127.0.0.3'], 'mixed.dial.test': ['127.0.0.2', '10.0.0.7'] }[
        name
      ] ?? []
    );
  },
};
const guard = new EgressGuard(['127.0.0.0/8']);
const never = (): AbortSignal => new AbortController().signal;

/** Local addresses of the connections a server accepted, and the Host headers it saw. */
interface Seen {
  addresses: string[];
  hosts: string[];
}

let tcp: net.Server;
let web: http.Server;
const tcpSeen: Seen = { addresses: [], hosts: [] };
const webSeen: Seen = { addresses: [], hosts: [] };
const portOf = (server: net.Server): number => (server.address() as AddressInfo).port;

before(async () => {
  // Accepts and hangs up at once: enough to see which address the client dialled.
  tcp = net.createServer((socket) => {
    tcpSeen.addresses.push(socket.localAddress ?? '');
    socket.destroy();
  });
  web = http.createServer((req, res) => {
    webSeen.hosts.push(req.headers.host ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(CODE);
  });
  web.on('connection', (socket: net.Socket) => webSeen.addresses.push(socket.localAddress ?? ''));
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.2', resolve));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.3', resolve));
});

after(async () => {
  web.closeAllConnections();
  await Promise.all([new Promise((resolve) => tcp.close(resolve)), new Promise((resolve) => web.close(resolve))]);
});

describe('engine connections dial the address the egress guard checked', () => {
  it('a zone transfer connects to the checked address after one lookup', async () => {
    lookups.length = 0;
    const before = tcpSeen.addresses.length;
    const transfer = transferZone({
      server: { host: 'ns.dial.test', port: portOf(tcp) },
      zone: 'dial.test',
      guard,
      resolver,
      timeoutMs: 2000,
    });
    await assert.rejects(
      transfer.next(),
      (err: unknown) => err instanceof ZoneTransferError && err.reason === 'connection',
    );
    assert.deepEqual(tcpSeen.addresses.slice(before), ['127.0.0.2']);
    assert.deepEqual(lookups, ['ns.dial.test']);
  });

  it('a zone transfer to a name with an allowed and a denied address opens no connection', async () => {
    const before = tcpSeen.addresses.length;
    const transfer = transferZone({
      server: { host: 'mixed.dial.test', port: portOf(tcp) },
      zone: 'dial.test',
      guard,
      resolver,
      timeoutMs: 2000,
    });
    await assert.rejects(
      transfer.next(),
      (err: unknown) =>
        err instanceof ZoneTransferError &&
        err.reason === 'denied' &&
        /10\.0\.0\.7 is in private range/.test(err.message),
    );
    assert.equal(tcpSeen.addresses.length, before);
  });

  it('the ownership check fetches from the checked address and keeps the name in Host', async () => {
    lookups.length = 0;
    const before = webSeen.addresses.length;
    const checker = createOwnershipChecker({ guard, resolver, attemptTimeoutMs: 2000 });
    const result = await checker.check({ name: 'web.dial.test', kind: 'domain', port: portOf(web) }, CODE, never());
    assert.equal(result.isVerified, true, result.observations.join('\n'));
    // https first (the plain server fails the handshake), then http: both on 127.0.0.3.
    assert.deepEqual(webSeen.addresses.slice(before), ['127.0.0.3', '127.0.0.3']);
    assert.equal(webSeen.hosts.at(-1), `web.dial.test:${portOf(web)}`);
    assert.deepEqual(lookups, ['web.dial.test']);
  });

  it("the scanner's HTTP client connects to the checked address and keeps the name in Host", async () => {
    lookups.length = 0;
    const before = webSeen.addresses.length;
    const client = createGuardedHttpClient({ guard, resolver, requestTimeoutMs: 2000, signal: never() });
    try {
      const exchange = await client.send(
        { method: 'GET', url: new URL(`http://web.dial.test:${portOf(web)}/`), headers: [] },
        never(),
      );
      assert.equal(exchange.status, 200);
    } finally {
      await client.close();
    }
    assert.deepEqual(webSeen.addresses.slice(before), ['127.0.0.3']);
    assert.equal(webSeen.hosts.at(-1), `web.dial.test:${portOf(web)}`);
    assert.deepEqual(lookups, ['web.dial.test']);
  });

  it('a DNS TCP socket refuses a host name instead of resolving it', async () => {
    const before = tcpSeen.addresses.length;
    await assert.rejects(
      connectTcp('localhost', portOf(tcp), 2000),
      (err: unknown) => (err as { code?: string }).code === 'EGRESS_UNCHECKED',
    );
    assert.equal(tcpSeen.addresses.length, before);
  });
});
