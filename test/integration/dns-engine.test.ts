import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  transferZone,
  transferZoneBatches,
  ZoneTransferError,
  type TransferZoneOptions,
} from '../../src/engine/dns/axfr.ts';
import type { DnsResolver } from '../../src/engine/dns/resolver.ts';
import { parseZone, type ZoneRecord } from '../../src/engine/dns/zone-parser.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { startBind, type BindServer } from '../support/bind-server.ts';

/** AXFR against BIND 9 on 127.0.0.1 (and small TCP servers for the failures BIND will not produce). */
const ZONE = `$TTL 300
@      SOA  ns1 hostmaster ( 2024010101 3600 600 86400 60 )
       NS   ns1
ns1    A    127.0.0.1
www    A    192.0.2.10
       AAAA 2001:db8::10
alias  CNAME www
txt    TXT  "v=spf1 -all" "second string"
big    TXT  "a" "b"
only-txt TXT "no address here"
${Array.from({ length: 3000 }, (_, i) => `h${i} A 10.1.${i >> 8}.${i & 255}`).join('\n')}
`;

let bind: BindServer;
const localGuard = new EgressGuard(['127.0.0.0/8']);
/** A resolver for the egress guard: knows `ns.engine.test` (loopback) and `internal.test` (private). */
const hosts: DnsResolver = {
  resolveTxt: async () => [],
  resolveAddresses: async (name) => ({ 'ns.engine.test': ['127.0.0.1'], 'internal.test': ['10.0.0.5'] })[name] ?? [],
};

const sorted = (records: ZoneRecord[]): string[] =>
  records.map((r) => `${r.name} ${r.ttl} ${r.class} ${r.type} ${r.data}`).sort();

async function collect(options: Partial<TransferZoneOptions>): Promise<ZoneRecord[]> {
  const records: ZoneRecord[] = [];
  const full = {
    server: { host: '127.0.0.1', port: bind.port },
    zone: 'engine.test',
    guard: localGuard,
    resolver: hosts,
    timeoutMs: 2000,
    ...options,
  };
  for await (const record of transferZone(full)) records.push(record);
  return records;
}

async function assertTransferError(
  options: Partial<TransferZoneOptions>,
  reason: string,
  message: RegExp,
): Promise<void> {
  await assert.rejects(collect(options), (err: unknown) => {
    assert.ok(err instanceof ZoneTransferError, String(err));
    assert.equal(err.reason, reason, err.message);
    assert.match(err.message, message);
    return true;
  });
}

/** A TCP server on 127.0.0.1 running `onConnection`, counting connections. */
async function tcpServer(
  onConnection: (socket: net.Socket) => void,
): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A framed DNS-over-TCP answer to a framed query, carrying the given records (owner pointers to the question). */
function framedAnswer(framedQuery: Buffer, records: Buffer[]): Buffer {
  const query = framedQuery.subarray(2);
  const header = Buffer.from([query[0] ?? 0, query[1] ?? 0, 0x84, 0, 0, 1, 0, records.length, 0, 0, 0, 0]);
  const message = Buffer.concat([header, query.subarray(12), ...records]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  return Buffer.concat([length, message]);
}

before(async () => {
  bind = await startBind([
    { name: 'engine.test', text: ZONE },
    { name: 'closed.test', text: '$TTL 60\n@ SOA ns hm 1 2 3 4 5\n@ NS ns\nns A 127.0.0.1\n', allowTransfer: [] },
  ]);
});

after(async () => {
  await bind?.stop();
});

describe('AXFR against BIND', () => {
  it('transfers the whole zone, SOA first, the same records as parsing the zone file', async () => {
    const records = await collect({});
    assert.equal(records[0]?.type, 'SOA');
    assert.equal(records.filter((r) => r.type === 'SOA').length, 1);
    const parsed: ZoneRecord[] = [];
    for await (const record of parseZone([ZONE], { origin: 'engine.test' })) parsed.push(record);
    assert.equal(records.length, 3009);
    assert.deepEqual(sorted(records), sorted(parsed));
  });

  it('streams a multi-message transfer in batches and resolves the server name through the guard', async () => {
    const sizes: number[] = [];
    const options = {
      server: { host: 'ns.engine.test', port: bind.port },
      zone: 'engine.test.',
      guard: localGuard,
      resolver: hosts,
    };
    for await (const batch of transferZoneBatches(options)) sizes.push(batch.length);
    assert.ok(sizes.length > 1, `messages: ${sizes.length}`);
    assert.equal(
      sizes.reduce((a, b) => a + b, 0),
      3009,
    );
  });

  it('reports a refused transfer', async () => {
    await assertTransferError({ zone: 'closed.test' }, 'refused', /refused the transfer of closed\.test \(REFUSED\)/);
  });

  it('reports a zone the server does not serve', async () => {
    await assertTransferError(
      { zone: 'elsewhere.test' },
      'notauth',
      /is not authoritative for elsewhere\.test \(NOTAUTH\)/,
    );
  });

  it('times out against a server that accepts and never answers', async () => {
    const silent = await tcpServer(() => undefined);
    try {
      const startedAt = Date.now();
      await assertTransferError(
        { server: { host: '127.0.0.1', port: silent.port }, timeoutMs: 300 },
        'timeout',
        /sent nothing for 300 ms/,
      );
      assert.ok(Date.now() - startedAt < 2000);
    } finally {
      await silent.close();
    }
  });

  it('reports a refused connection', async () => {
    const closed = await tcpServer(() => undefined);
    await closed.close();
    await assertTransferError(
      { server: { host: '127.0.0.1', port: closed.port } },
      'connection',
      /refused the connection/,
    );
  });

  it('is denied by the egress guard without opening any connection', async () => {
    const watched = await tcpServer((socket) => socket.destroy());
    try {
      await assertTransferError(
        { server: { host: '127.0.0.1', port: watched.port }, guard: new EgressGuard([]) },
        'denied',
        /127\.0\.0\.1 is in loopback range/,
      );
      await assertTransferError(
        { server: { host: 'internal.test', port: watched.port } },
        'denied',
        /10\.0\.0\.5 is in private range/,
      );
      assert.equal(watched.connections(), 0);
    } finally {
      await watched.close();
    }
  });

  it('reports a server that closes the connection before the closing SOA', async () => {
    // Answers the first SOA only, then hangs up.
    const soa = Buffer.concat([Buffer.from('c00c000600010000003c0016', 'hex'), Buffer.alloc(22)]);
    const cut = await tcpServer((socket) =>
      socket.once('data', (query: Buffer) => socket.end(framedAnswer(query, [soa]))),
    );
    try {
      await assertTransferError(
        { server: { host: '127.0.0.1', port: cut.port } },
        'connection',
        /closed the connection before the transfer of engine\.test ended \(1 records received\)/,
      );
    } finally {
      await cut.close();
    }
  });

  it('reports a transfer that does not start with the SOA as malformed', async () => {
    const a = Buffer.from('c00c000100010000003c0004c0000201', 'hex');
    const wrong = await tcpServer((socket) =>
      socket.once('data', (query: Buffer) => socket.end(framedAnswer(query, [a]))),
    );
    try {
      await assertTransferError(
        { server: { host: '127.0.0.1', port: wrong.port } },
        'malformed',
        /does not start with the SOA of engine\.test/,
      );
    } finally {
      await wrong.close();
    }
  });

  it('stops when aborted', async () => {
    const silent = await tcpServer(() => undefined);
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await assert.rejects(
        collect({ server: { host: '127.0.0.1', port: silent.port }, signal: controller.signal, timeoutMs: 5000 }),
        { name: 'AbortError' },
      );
    } finally {
      await silent.close();
    }
  });
});
