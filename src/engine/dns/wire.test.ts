import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TcpMessageReader, frameMessage } from './dns-tcp.ts';
import { RR_TYPE } from './rr-types.ts';
import { decodeMessage, DnsWireError, encodeQuery, queryNameWire, readHeader } from './wire.ts';

/** Wire bytes of an uncompressed name. */
function name(text: string): Buffer {
  return queryNameWire(text);
}

function u16(value: number): Buffer {
  const buf = Buffer.alloc(2);
  buf.writeUInt16BE(value);
  return buf;
}

/** A resource record: owner bytes (a name or a pointer), type, TTL 300, data. */
function rr(owner: Buffer, type: number, data: Buffer, ttl = 300): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(1, 2);
  fixed.writeUInt32BE(ttl, 4);
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([owner, fixed, data]);
}

const pointer = (offset: number): Buffer => u16(0xc000 | offset);

/** A response to `question` (type A) with the given answer records. */
function response(question: string, answers: Buffer[], flags = 0x8400): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(0x1234, 0);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, name(question), u16(1), u16(1), ...answers]);
}

describe('DNS wire: queries', () => {
  it('encodes a query with RD and an EDNS0 OPT record', () => {
    const query = encodeQuery(0xbeef, 'WWW.Example.com.', RR_TYPE.AAAA, { ednsUdpSize: 1232 });
    assert.equal(
      query.toString('hex'),
      'beef01000001000000000001' +
        '03777777076578616d706c6503636f6d00' +
        '001c0001' +
        '00' +
        '0029' +
        '04d0' +
        '00000000' +
        '0000',
    );
  });

  it('encodes a query without RD or EDNS, and the root name', () => {
    assert.equal(
      encodeQuery(1, '.', RR_TYPE.NS, { isRecursionDesired: false }).toString('hex'),
      '000100000001000000000000' + '00' + '00020001',
    );
  });

  it('encodes names with escapes and refuses bad labels', () => {
    assert.equal(queryNameWire('a\\.b.c').toString('hex'), '03612e620163' + '00');
    assert.equal(queryNameWire('x\\065').toString('latin1'), '\x02xa\x00');
    assert.throws(() => queryNameWire('a..b'), /bad label length|empty label/);
    assert.throws(() => queryNameWire(`${'a'.repeat(64)}.com`), /bad label length|longer than 63/);
  });
});

describe('DNS wire: answers', () => {
  it('decodes records whose names point back at the question and at each other', () => {
    const owner = pointer(12);
    const cname = rr(owner, RR_TYPE.CNAME, Buffer.concat([Buffer.from([3]), Buffer.from('www'), pointer(12)]));
    // The CNAME target starts at 12 + 17 (question) + 4 + 12 (record header): a pointer to it.
    const target = 12 + name('example.com').length + 4 + 2 + 10;
    const a = rr(pointer(target), RR_TYPE.A, Buffer.from([192, 0, 2, 7]));
    const message = decodeMessage(response('Example.COM', [cname, a]));
    assert.deepEqual(message.questions, [{ name: 'example.com.', type: 1, class: 1 }]);
    assert.deepEqual(message.answers, [
      { name: 'example.com', ttl: 300, class: 'IN', type: 'CNAME', data: 'www.example.com.' },
      { name: 'www.example.com', ttl: 300, class: 'IN', type: 'A', data: '192.0.2.7' },
    ]);
    assert.equal(message.isAuthoritative, true);
  });

  it('decodes the record types to the same canonical text as the zone parser', () => {
    const o = pointer(12);
    const records = [
      rr(o, RR_TYPE.AAAA, Buffer.from('20010db8000000000000000000000001', 'hex')),
      rr(o, RR_TYPE.MX, Buffer.concat([u16(10), Buffer.from([4]), Buffer.from('mail'), pointer(12)])),
      rr(o, RR_TYPE.TXT, Buffer.from('\x05hello\x03a"\\\x02\xc3\xa9', 'latin1')),
      rr(
        o,
        RR_TYPE.SOA,
        Buffer.concat([
          name('ns.example.com'),
          name('hm.example.com'),
          Buffer.from('0000000100000e1000000384001275000000012c', 'hex'),
        ]),
      ),
      rr(o, RR_TYPE.SRV, Buffer.concat([u16(1), u16(2), u16(443), name('svc.example.com')])),
      rr(o, RR_TYPE.CAA, Buffer.from('\x00\x05issueca.test', 'latin1')),
      rr(o, RR_TYPE.DS, Buffer.from('303908030102', 'hex')),
      rr(o, RR_TYPE.DNSKEY, Buffer.from('0101030d00ff', 'hex')),
      rr(o, RR_TYPE.HTTPS, Buffer.from('0001' + '00' + '0001000302683200030002' + '01bb', 'hex')),
      rr(o, 65280, Buffer.from('0a000001', 'hex')),
      rr(o, RR_TYPE.NSEC, Buffer.concat([name('b.example.com'), Buffer.from('00076201800800' + '0380', 'hex')])),
      rr(o, 262 + 0x100, Buffer.alloc(0)),
    ];
    const data = decodeMessage(response('example.com', records)).answers.map((r) => `${r.type} ${r.data}`);
    assert.deepEqual(data, [
      'AAAA 2001:db8::1',
      'MX 10 mail.example.com.',
      'TXT "hello" "a\\"\\\\" "\\195\\169"',
      'SOA ns.example.com. hm.example.com. 1 3600 900 1209600 300',
      'SRV 1 2 443 svc.example.com.',
      'CAA 0 issue "ca.test"',
      'DS 12345 8 3 0102',
      'DNSKEY 257 3 13 AP8=',
      'HTTPS 1 . alpn="h2" port=443',
      'TYPE65280 \\# 4 0A000001',
      'NSEC b.example.com. A NS SOA MX TXT AAAA RRSIG NSEC DNSKEY',
      'TYPE518 \\# 0',
    ]);
  });

  it('escapes special and binary label bytes and lower-cases names', () => {
    const owner = Buffer.from('\x04A.b\x00\x03x y\x00', 'latin1');
    const message = decodeMessage(response('e', [rr(owner, RR_TYPE.A, Buffer.from([1, 2, 3, 4]))]));
    assert.equal(message.answers[0]?.name, 'a\\.b\\000.x\\032y');
  });

  it('reads the OPT record as the EDNS payload size and the extended rcode', () => {
    const opt = Buffer.concat([Buffer.from([0]), u16(RR_TYPE.OPT), u16(1232), Buffer.from([1, 0, 0, 0]), u16(0)]);
    const header = Buffer.alloc(12);
    header.writeUInt16BE(0x8000, 2);
    header.writeUInt16BE(1, 10);
    const message = decodeMessage(Buffer.concat([header, opt]));
    assert.equal(message.ednsUdpSize, 1232);
    assert.equal(message.rcode, 16);
    assert.deepEqual(message.additionals, []);
  });

  it('refuses pointer loops, forward pointers and truncated messages', () => {
    const loop = response('example.com', [rr(pointer(40), RR_TYPE.A, Buffer.from([1, 2, 3, 4]))]);
    assert.throws(
      () => decodeMessage(loop),
      (err: unknown) => err instanceof DnsWireError && /backwards/.test(err.message),
    );
    const selfLoop = Buffer.concat([response('example.com', []).subarray(0, 12), pointer(12), u16(1), u16(1)]);
    selfLoop.writeUInt16BE(1, 4);
    assert.throws(() => decodeMessage(selfLoop), /does not point backwards/);
    const whole = response('example.com', [rr(pointer(12), RR_TYPE.A, Buffer.from([1, 2, 3, 4]))]);
    for (const cut of [5, 20, whole.length - 2])
      assert.throws(() => decodeMessage(whole.subarray(0, cut)), DnsWireError, `cut at ${cut}`);
    const shortA = response('example.com', [rr(pointer(12), RR_TYPE.A, Buffer.from([1, 2, 3]))]);
    assert.throws(() => decodeMessage(shortA), /truncated|missing bytes/);
  });

  it('reads the header flags', () => {
    const header = readHeader(response('a', [], 0x8203));
    assert.deepEqual(
      [header.isResponse, header.isTruncated, header.rcode, header.isAuthoritative],
      [true, true, 3, false],
    );
  });
});

describe('DNS over TCP framing', () => {
  it('cuts messages out of a stream whatever the read sizes', () => {
    const messages = [Buffer.from('first'), Buffer.alloc(0), Buffer.alloc(300, 7), Buffer.from('last')];
    const stream = Buffer.concat(messages.map(frameMessage));
    for (const size of [1, 2, 3, 50, stream.length]) {
      const reader = new TcpMessageReader();
      const got: Buffer[] = [];
      for (let i = 0; i < stream.length; i += size)
        for (const message of reader.push(stream.subarray(i, i + size))) got.push(Buffer.from(message));
      assert.deepEqual(got, messages, `read size ${size}`);
      assert.equal(reader.pendingBytes, 0);
    }
  });
});
