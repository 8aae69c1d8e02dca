import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PresentationError } from './dns-name.ts';
import { parseRdata } from './rdata-text.ts';
import { decodeRdata } from './rdata-wire.ts';
import { typeNumber } from './rr-types.ts';
import { base32HexBytes, formatDnssecTime, parseDnssecTime, toBase32Hex } from './text-values.ts';
import { TokenCursor } from './token-cursor.ts';
import { DnsWireError, WireReader } from './wire-reader.ts';
import { ZoneTokenizer, type ZoneEntry } from './zone-tokenizer.ts';

/** Canonical text of `data` read as zone-file record data of `type`, names relative to example.com. */
function fromText(type: string, data: string): string {
  const entries: ZoneEntry[] = [];
  const tokenizer = new ZoneTokenizer();
  tokenizer.push(`x ${data}\n`, entries);
  const entry = entries[0] as ZoneEntry;
  return parseRdata(new TokenCursor(entry.tokens, entry.lines, 1, 'example.com.'), typeNumber(type) as number);
}

/** Canonical text of record data given as hex wire bytes. */
function fromWire(type: string, hex: string): string {
  const bytes = Buffer.from(hex.replace(/\s+/g, ''), 'hex');
  return decodeRdata(new WireReader(bytes, 0, false), typeNumber(type) as number, bytes.length);
}

const SIGNATURE = 'oJMRESz5E4gYzS/q6XDrvU1qMPYIjCWzJaOau8XNEZeqCYKD5ar0IRd8KqXXFJkqmVfRvMGPmM1x8fGAa2XhSA==';
const HASH = '2T7B4G4VSA5SMI47K61MV5BV1A22BOJR';

describe('DNSSEC record data: RRSIG (RFC 4034 §3)', () => {
  it('reads mnemonics or numbers, dates or seconds, and a signature split in parts', () => {
    const canonical = `A 13 3 300 20300101000000 20200101000000 12345 example.com. ${SIGNATURE}`;
    assert.equal(
      fromText('RRSIG', `A 13 3 300 20300101000000 20200101000000 12345 example.com. ${SIGNATURE}`),
      canonical,
    );
    assert.equal(
      fromText(
        'RRSIG',
        `type1 ECDSAP256SHA256 3 300 1893456000 1577836800 12345 @ ${SIGNATURE.slice(0, 20)} ${SIGNATURE.slice(20)}`,
      ),
      canonical,
    );
    assert.equal(
      fromText('RRSIG', 'TYPE65280 0 0 0 0 4294967295 0 . AAAA'),
      'TYPE65280 0 0 0 19700101000000 21060207062815 0 . AAAA',
    );
  });

  it('decodes the wire form to the same text', () => {
    const wire =
      '0001 0d 03 0000012c 70dbd880 5e0be100 3039 076578616d706c6503636f6d00' +
      Buffer.from(SIGNATURE, 'base64').toString('hex');
    assert.equal(fromWire('RRSIG', wire), `A 13 3 300 20300101000000 20200101000000 12345 example.com. ${SIGNATURE}`);
    assert.throws(
      () => fromWire('RRSIG', '0001 0d 03 0000012c 7861f9b0 5e0bfc80 3039 00'),
      /RRSIG without a signature/,
    );
  });

  it('refuses what BIND refuses', () => {
    const refusals: Array<[string, RegExp]> = [
      ['BOGUS 13 3 300 20300101000000 20200101000000 1 . AAAA', /unknown type covered "BOGUS"/],
      ['A FOO 3 300 20300101000000 20200101000000 1 . AAAA', /unknown algorithm "FOO"/],
      ['A 13 256 300 20300101000000 20200101000000 1 . AAAA', /labels 256 is out of range/],
      ['A 13 3 1h 20300101000000 20200101000000 1 . AAAA', /original TTL must be a number/],
      ['A 13 3 300 20300230000000 20200101000000 1 . AAAA', /not a valid date and time/],
      ['A 13 3 300 2030010100000 20200101000000 1 . AAAA', /use YYYYMMDDHHmmSS or seconds/],
      ['A 13 3 300 4294967296 20200101000000 1 . AAAA', /out of range/],
      ['A 13 3 300 20300101000000 20200101000000 1 .', /missing signature/],
      ['A 13 3 300 20300101000000 20200101000000 1 . A', /bad base64 in signature/],
    ];
    for (const [data, message] of refusals) assert.throws(() => fromText('RRSIG', data), message, data);
  });
});

describe('DNSSEC record data: times and base32hex', () => {
  it('reads times modulo 2^32 as BIND does, years 0-9999 and a leap second included', () => {
    assert.equal(parseDnssecTime('19700101000000', 't'), 0);
    assert.equal(parseDnssecTime('21060207062816', 't'), 0);
    assert.equal(parseDnssecTime('19691231235959', 't'), 4294967295);
    assert.equal(parseDnssecTime('20300101000060', 't'), parseDnssecTime('20300101000100', 't'));
    assert.equal(parseDnssecTime('20240229000000', 't'), 1709164800);
    assert.throws(() => parseDnssecTime('21000229000000', 't'), PresentationError);
    assert.throws(() => parseDnssecTime('20300101000061', 't'), PresentationError);
    assert.equal(formatDnssecTime(4294967295), '21060207062815');
  });

  it('decodes base32hex without padding, refusing impossible lengths and stray bits', () => {
    assert.equal(toBase32Hex(base32HexBytes(HASH.toLowerCase(), 'h')), HASH);
    assert.equal(base32HexBytes('', 'h'), '');
    assert.equal(toBase32Hex('\x00'), '00');
    for (const bad of ['2t', '2v', '200', `${HASH}=`, '2w000000'])
      assert.throws(() => base32HexBytes(bad, 'h'), /bad base32hex/, bad);
  });
});

describe('DNSSEC record data: NSEC, NSEC3, NSEC3PARAM, CSYNC (RFC 4034, 5155, 7477)', () => {
  it('lists the bitmap types once each, in number order', () => {
    assert.equal(fromText('NSEC', 'b NSEC A TYPE65535 TYPE0 a'), 'b.example.com. TYPE0 A NSEC TYPE65535');
    assert.equal(
      fromWire('NSEC', `0162076578616d706c6503636f6d00 0006 400100000003 041b ${'00'.repeat(26)}20`),
      'b.example.com. A MX RRSIG NSEC TYPE1234',
    );
  });

  it('refuses an empty NSEC bitmap, unknown types and malformed windows', () => {
    assert.throws(() => fromText('NSEC', 'b'), /missing type bitmap/);
    assert.throws(() => fromText('NSEC', 'b A BOGUS'), /unknown type "BOGUS" in the type bitmap/);
    assert.throws(() => fromWire('NSEC', '00'), /empty type bitmap/);
    for (const [bitmap, message] of [
      ['000100', /ends with a zero byte/],
      ['0001400001 40', /out of order/],
      ['0000', /window of 0 bytes/],
      ['0021' + '01'.repeat(33), /window of 33 bytes/],
      ['000240', /runs past/],
    ] as const) {
      assert.throws(
        () => fromWire('NSEC', `00${bitmap}`),
        (err: unknown) => err instanceof DnsWireError && message.test(err.message),
        bitmap,
      );
    }
  });

  it('reads NSEC3 with salt or none, any case of base32hex, an empty bitmap and SHA-1 by name', () => {
    assert.equal(fromText('NSEC3', `1 1 10 aabbccdd ${HASH.toLowerCase()} A RRSIG`), `1 1 10 AABBCCDD ${HASH} A RRSIG`);
    assert.equal(fromText('NSEC3', `SHA-1 0 0 - ${HASH}`), `1 0 0 - ${HASH}`);
    assert.equal(fromText('NSEC3', '2 0 0 - 20'), '2 0 0 - 20');
    assert.equal(
      fromWire(
        'NSEC3',
        `01 01 000a 04 aabbccdd 14 ${Buffer.from(base32HexBytes(HASH, 'h'), 'latin1').toString('hex')} 0001 40`,
      ),
      `1 1 10 AABBCCDD ${HASH} A`,
    );
  });

  it('refuses a SHA-1 hash that is not 20 bytes, bad salt and bad base32hex, on both paths', () => {
    assert.throws(
      () => fromText('NSEC3', '1 1 10 - 2t7b4g4vsa5smi47k61mv5bv'),
      /SHA-1 next hashed owner name has 20 bytes, got 15/,
    );
    assert.throws(() => fromText('NSEC3', `1 1 10 abc ${HASH}`), /bad hex in salt/);
    assert.throws(() => fromText('NSEC3', `1 1 10 "aabb" ${HASH}`), /salt must not be quoted/);
    assert.throws(() => fromText('NSEC3', '1 1 10 - 2t7b4g4vsa5smi47k61mv5bv1a22bojr='), /bad base32hex/);
    assert.throws(() => fromText('NSEC3', `1 256 10 - ${HASH}`), /flags 256 is out of range/);
    assert.throws(() => fromWire('NSEC3', '01 00 000a 00 01 ff'), /SHA-1 next hashed owner name has 20 bytes, got 1/);
    assert.throws(() => fromWire('NSEC3', '02 00 000a 00 00'), /next hashed owner name of 0 bytes/);
  });

  it('reads NSEC3PARAM and CSYNC', () => {
    assert.equal(fromText('NSEC3PARAM', '1 0 10 -'), '1 0 10 -');
    assert.equal(fromText('NSEC3PARAM', `1 255 65535 ${'ab'.repeat(255)}`), `1 255 65535 ${'AB'.repeat(255)}`);
    assert.throws(() => fromText('NSEC3PARAM', `1 0 10 ${'ab'.repeat(256)}`), /salt longer than 255 bytes/);
    assert.throws(() => fromText('NSEC3PARAM', '1 0 10'), /missing salt/);
    assert.equal(fromWire('NSEC3PARAM', '01 00 000a 02 aabb'), '1 0 10 AABB');
    assert.equal(fromText('CSYNC', '66 3 NS AAAA A'), '66 3 A NS AAAA');
    assert.equal(fromText('CSYNC', '4294967295 0'), '4294967295 0');
    assert.equal(fromWire('CSYNC', '00000042 0003 0004 60000008'), '66 3 A NS AAAA');
  });
});

describe('DNSSEC record data: digests, keys and ZONEMD', () => {
  it('checks DS, CDS, TA and DLV digest sizes on both paths', () => {
    const digest = '49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE49FD46E6C4B45C55D4AC69CB';
    for (const type of ['DS', 'CDS', 'TA', 'DLV']) {
      assert.equal(fromText(type, `12345 RSASHA256 2 ${digest.toLowerCase()}`), `12345 8 2 ${digest}`);
      assert.equal(fromWire(type, `3039 08 02 ${digest}`), `12345 8 2 ${digest}`);
      assert.throws(() => fromWire(type, '3039 08 02 abcd'), /digest type 2 needs 32 bytes, got 2/);
    }
    assert.equal(fromText('CDS', '0 0 0 00'), '0 0 0 00');
  });

  it('reads DNSKEY and CDNSKEY, the RFC 8078 delete form included', () => {
    assert.equal(fromText('CDNSKEY', '0 3 0 AA=='), '0 3 0 AA==');
    assert.equal(fromWire('DNSKEY', '0101 03 0d 00ff'), '257 3 13 AP8=');
  });

  it('checks ZONEMD digest sizes (RFC 8976 §5.3)', () => {
    const sha384 = 'FEBE3D4CE2EC2FFA4BA99D46CD69D6D29711E55217057BEE7EB1A7B641A47BA7FED2DD5B97AE499FAFA4F22C6BD647DE';
    assert.equal(
      fromText('ZONEMD', `2018031900 1 1 ${sha384.slice(0, 40)} ${sha384.slice(40)}`),
      `2018031900 1 1 ${sha384}`,
    );
    assert.equal(fromWire('ZONEMD', `7848b91c 01 01 ${sha384}`), `2018031900 1 1 ${sha384}`);
    assert.equal(fromText('ZONEMD', '1 0 240 FEBE3D4CE2EC2FFA4BA9AABB'), '1 0 240 FEBE3D4CE2EC2FFA4BA9AABB');
    assert.throws(
      () => fromText('ZONEMD', '1 1 1 FEBE3D4CE2EC2FFA4BA9AABB'),
      /hash algorithm 1 needs 48 bytes, got 12/,
    );
    assert.throws(() => fromText('ZONEMD', '1 1 2 FEBE3D4CE2EC2FFA4BA9AABB'), /hash algorithm 2 needs 64 bytes/);
    assert.throws(() => fromText('ZONEMD', '1 1 240 FEBE3D4CE2EC2FFA4BA9'), /shorter than 12 bytes/);
    assert.throws(() => fromWire('ZONEMD', '00000001 01 f0 aabb'), /shorter than 12 bytes/);
  });
});
