import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suiteOf, weakSuites } from './cipher-suites.ts';
import { buildClientHello, protocolVersions } from './client-hello.ts';
import { readServerReply } from './server-reply.ts';

/** Reads back what a ClientHello offers: record version, client_version, suites and extension types. */
function readHello(record: Buffer): {
  recordVersion: number;
  version: number;
  suites: number[];
  extensions: Map<number, Buffer>;
} {
  assert.equal(record[0], 22);
  assert.equal(record.readUInt16BE(3), record.length - 5);
  const body = record.subarray(9);
  assert.equal(record[5], 1);
  let at = 2 + 32;
  at += 1 + (body[at] as number);
  const suitesLength = body.readUInt16BE(at);
  const suites: number[] = [];
  for (let i = 0; i < suitesLength; i += 2) suites.push(body.readUInt16BE(at + 2 + i));
  at += 2 + suitesLength;
  at += 1 + (body[at] as number);
  const extensions = new Map<number, Buffer>();
  if (at < body.length) {
    const end = at + 2 + body.readUInt16BE(at);
    at += 2;
    while (at < end) {
      const length = body.readUInt16BE(at + 2);
      extensions.set(body.readUInt16BE(at), body.subarray(at + 4, at + 4 + length));
      at += 4 + length;
    }
  }
  return { recordVersion: record.readUInt16BE(1), version: body.readUInt16BE(0), suites, extensions };
}

function serverHello(
  version: number,
  suite: number,
  options: { supportedVersion?: number; random?: Buffer } = {},
): Buffer {
  const extensions =
    options.supportedVersion === undefined
      ? Buffer.alloc(0)
      : Buffer.from([0x00, 0x2b, 0x00, 0x02, options.supportedVersion >> 8, options.supportedVersion & 0xff]);
  const body = Buffer.concat([
    Buffer.from([version >> 8, version & 0xff]),
    options.random ?? Buffer.alloc(32, 7),
    Buffer.from([0, suite >> 8, suite & 0xff, 0]),
    Buffer.from([extensions.length >> 8, extensions.length & 0xff]),
    extensions,
  ]);
  const handshake = Buffer.concat([Buffer.from([2, 0, body.length >> 8, body.length & 0xff]), body]);
  return Buffer.concat([Buffer.from([22, 3, 3, handshake.length >> 8, handshake.length & 0xff]), handshake]);
}

describe('buildClientHello', () => {
  it('writes an SSLv3 hello without extensions, with the renegotiation SCSV', () => {
    const hello = readHello(
      buildClientHello({ version: protocolVersions.SSLv3, suites: [0x0005], serverName: 'a.test' }),
    );
    assert.equal(hello.recordVersion, 0x0300);
    assert.equal(hello.version, 0x0300);
    assert.deepEqual(hello.suites, [0x0005, 0x00ff]);
    assert.equal(hello.extensions.size, 0);
  });
  it('writes a TLS 1.3 hello as TLS 1.2 with supported_versions, a key share and SNI (not for IP literals)', () => {
    const hello = readHello(
      buildClientHello({
        version: protocolVersions['TLSv1.3'],
        alsoVersions: [0x0303],
        suites: [0x1301],
        serverName: 'www.a.test',
      }),
    );
    assert.equal(hello.recordVersion, 0x0301);
    assert.equal(hello.version, 0x0303);
    assert.deepEqual([...(hello.extensions.get(0x002b) ?? [])], [4, 0x03, 0x04, 0x03, 0x03]);
    assert.equal(hello.extensions.get(0x0033)?.length, 2 + 4 + 32);
    assert.match(hello.extensions.get(0x0000)?.toString('latin1') ?? '', /www\.a\.test$/);
    assert.equal(
      readHello(buildClientHello({ version: 0x0303, suites: [0x002f], serverName: '127.0.0.1' })).extensions.has(
        0x0000,
      ),
      false,
    );
  });
  it('offers signature_algorithms from TLS 1.2 only', () => {
    assert.equal(readHello(buildClientHello({ version: 0x0301, suites: [0x002f] })).extensions.has(0x000d), false);
    assert.equal(readHello(buildClientHello({ version: 0x0303, suites: [0x002f] })).extensions.has(0x000d), true);
  });
});

describe('readServerReply', () => {
  it('reads a ServerHello, and the TLS 1.3 version from supported_versions', () => {
    assert.deepEqual(readServerReply(serverHello(0x0301, 0x0002)), {
      kind: 'server-hello',
      version: 0x0301,
      suite: 0x0002,
      isHelloRetry: false,
    });
    assert.deepEqual(readServerReply(serverHello(0x0303, 0x1301, { supportedVersion: 0x0304 })), {
      kind: 'server-hello',
      version: 0x0304,
      suite: 0x1301,
      isHelloRetry: false,
    });
  });
  it('recognises a HelloRetryRequest by its random', () => {
    const random = Buffer.from('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c', 'hex');
    assert.equal(
      (readServerReply(serverHello(0x0303, 0x1301, { supportedVersion: 0x0304, random })) as { isHelloRetry: boolean })
        .isHelloRetry,
      true,
    );
  });
  it('waits for more bytes, and joins a ServerHello split over two records', () => {
    const whole = serverHello(0x0303, 0xc02f);
    assert.equal(readServerReply(whole.subarray(0, 20)), undefined);
    const handshake = whole.subarray(5);
    const split = Buffer.concat([
      Buffer.from([22, 3, 3, 0, 10]),
      handshake.subarray(0, 10),
      Buffer.from([22, 3, 3, 0, handshake.length - 10]),
      handshake.subarray(10),
    ]);
    assert.deepEqual(readServerReply(split), {
      kind: 'server-hello',
      version: 0x0303,
      suite: 0xc02f,
      isHelloRetry: false,
    });
  });
  it('reads an alert, and tells other protocols apart at once', () => {
    assert.deepEqual(readServerReply(Buffer.from([21, 3, 1, 0, 2, 2, 40])), {
      kind: 'alert',
      level: 2,
      description: 40,
    });
    assert.equal(readServerReply(Buffer.from('SSH-2.0-OpenSSH_9.2\r\n'))?.kind, 'not-tls');
    assert.equal(readServerReply(Buffer.from('H'))?.kind, 'not-tls');
  });
});

describe('cipher suites', () => {
  it('classifies weakness and forward secrecy from the IANA name', () => {
    assert.equal(suiteOf(0x0005).weakness, 'RC4');
    assert.equal(suiteOf(0x000a).weakness, '3DES (64-bit block)');
    assert.equal(suiteOf(0x0034).weakness, 'anonymous key exchange');
    assert.equal(suiteOf(0x0034).isForwardSecret, false);
    assert.equal(suiteOf(0xc02f).isForwardSecret, true);
    assert.equal(suiteOf(0xc02f).weakness, undefined);
    assert.equal(suiteOf(0x002f).isForwardSecret, false);
    assert.equal(suiteOf(0x1302).isForwardSecret, true);
    assert.equal(suiteOf(0xbeef).name, '0xBEEF');
    assert.ok(weakSuites.every((s) => !s.isTls13));
  });
});
