import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRdata } from './rdata-text.ts';
import { decodeRdata } from './rdata-wire.ts';
import { IANA_RR_TYPES, IANA_RR_TYPES_UPDATED, isMetaType } from './rr-type-registry.ts';
import { isRegisteredType, typeName, typeNumber } from './rr-types.ts';
import { TokenCursor } from './token-cursor.ts';
import { WireReader } from './wire-reader.ts';
import { ZoneTokenizer, type ZoneEntry } from './zone-tokenizer.ts';

/** Canonical text of `data` read as zone-file record data of `type`, names relative to example.com. */
function text(type: string, data: string): string {
  const entries: ZoneEntry[] = [];
  new ZoneTokenizer().push(`x ${data}\n`, entries);
  const { tokens, lines } = entries[0] as ZoneEntry;
  return parseRdata(new TokenCursor(tokens, lines, 1, 'example.com.'), typeNumber(type) as number);
}

/** Canonical text of record data given as hex wire bytes. */
function wire(type: string, hex: string): string {
  const bytes = Buffer.from(hex.replace(/\s+/g, ''), 'hex');
  return decodeRdata(new WireReader(bytes, 0, false), typeNumber(type) as number, bytes.length);
}

describe('record data: LOC (RFC 1876)', () => {
  it('fills in minutes, seconds, size and precisions, and prints them as BIND does', () => {
    assert.equal(
      text('LOC', '52 22 23.000 N 4 53 32.000 E -2.00m'),
      '52 22 23.000 N 4 53 32.000 E -2.00m 1m 10000m 10m',
    );
    assert.equal(text('LOC', '52 N 4 W 10'), '52 0 0.000 N 4 0 0.000 W 10.00m 1m 10000m 10m');
    assert.equal(
      text('LOC', '90 S 180 W 42849672.95m 90000000m 0.5m 0.07m'),
      '90 0 0.000 S 180 0 0.000 W 42849672.95m 90000000m 0.50m 0.07m',
    );
    assert.equal(
      text('LOC', '52 59 59. N 4 30 .5 E .5m 15m 1234m 0'),
      '52 59 59.000 N 4 30 0.500 E 0.50m 10m 1000m 0.00m',
    );
    assert.equal(text('LOC', '0 N 0 E -100000 +5m'), '0 0 0.000 N 0 0 0.000 E -100000.00m 5m 10000m 10m');
  });

  it('decodes version 0 to the same text, keeps other versions in RFC 3597 form', () => {
    assert.equal(wire('LOC', '00 12 16 13 8b3cf018 810cbce0 00989680'), text('LOC', '52 22 23.000 N 4 53 32.000 E 0m'));
    assert.equal(wire('LOC', '01 12 16 13 899b0e4c 6ce2fcde 00989680'), '\\# 16 01121613899B0E4C6CE2FCDE00989680');
    assert.throws(
      () => wire('LOC', '00 a2 16 13 899b0e4c 6ce2fcde 00989680'),
      /size is not a digit and a power of ten/,
    );
    assert.throws(() => wire('LOC', '00 12 16 13 ffffffff 6ce2fcde 00989680'), /latitude is beyond 90 degrees/);
    assert.throws(() => wire('LOC', '00 12 16 13 899b0e4c'), /truncated/);
  });

  it('refuses values out of range and forms BIND refuses', () => {
    const refusals: Array<[string, RegExp]> = [
      ['91 N 4 E 0', /latitude degrees 91 is out of range/],
      ['90 1 N 180 E 0', /latitude is beyond 90 degrees/],
      ['52 60 N 4 E 0', /latitude minutes 60 is out of range/],
      ['52 59 60 N 4 E 0', /latitude seconds "60" are out of range/],
      ['52 22 23.1234 N 4 E 0', /bad latitude seconds/],
      ['52 59 . N 4 E 0', /bad latitude seconds "."/],
      ['52 22 23 n 4 E 0', /latitude must end with N or S, got "n"/],
      ['52 n 4 E 0', /latitude minutes must be a number, got "n"/],
      ['52 N 181 E 0', /longitude degrees 181 is out of range/],
      ['52 N 4 E 42849672.96m', /altitude "42849672.96m" is out of range/],
      ['52 N 4 E -100000.01m', /altitude "-100000.01m" is out of range/],
      ['52 N 4 E 1.234m', /bad altitude "1.234m"/],
      ['52 N 4 E 1M', /bad altitude "1M"/],
      ['52 N 4 E m', /bad altitude "m"/],
      ['52 N 4 E 1 90000001m', /size "90000001m" is out of range/],
      ['52 N 4 E 1 1 1 1 1', /unexpected "1" after the record data/],
      ['52 N 4 E', /missing altitude/],
    ];
    for (const [data, message] of refusals) assert.throws(() => text('LOC', data), message, data);
  });
});

describe('record data: other registered types with a codec', () => {
  const cases: Array<[string, string, string, string]> = [
    // type, text, canonical, wire hex of the same data
    [
      'URI',
      '10 1 "ftp://ftp1.example.com/public"',
      '10 1 "ftp://ftp1.example.com/public"',
      `000a 0001 ${Buffer.from('ftp://ftp1.example.com/public').toString('hex')}`,
    ],
    ['URI', '1 1 ""', '1 1 ""', '0001 0001'],
    ['OPENPGPKEY', 'mQINBF it2jsB', 'mQINBFit2jsB', '99020d0458adda3b01'],
    ['DHCID', 'AAIBY2/A', 'AAIBY2/A', '000201636fc0'],
    ['SMIMEA', '3 1 1 00ff', '3 1 1 00FF', '030101 00ff'],
    ['CERT', 'pkix 0 RSASHA256 MIIB', '1 0 8 MIIB', '0001 0000 08 308201'],
    ['CERT', 'URI 65535 0 aGVsbG8=', '253 65535 0 aGVsbG8=', '00fd ffff 00 68656c6c6f'],
    ['AFSDB', '1 afs', '1 afs.example.com.', '0001 03616673 076578616d706c6503636f6d00'],
    ['KX', '10 kx.example.net.', '10 kx.example.net.', '000a 026b78 076578616d706c65036e657400'],
    ['RT', '10 relay.', '10 relay.', '000a 0572656c617900'],
    ['LP', '10 l64.', '10 l64.', '000a 036c363400'],
    ['PX', '10 a b.', '10 a.example.com. b.', '000a 0161076578616d706c6503636f6d00 016200'],
    ['MB', 'box.', 'box.', '03626f7800'],
    ['MG', 'g.', 'g.', '016700'],
    ['MR', 'r.', 'r.', '017200'],
    ['NSAP-PTR', 'n.', 'n.', '016e00'],
    ['MINFO', 'owner. errors.', 'owner. errors.', '056f776e657200 066572726f727300'],
    ['TALINK', 'prev. next.', 'prev. next.', '047072657600 046e65787400'],
    ['X25', '311061700956', '"311061700956"', '0c 333131303631373030393536'],
    ['ISDN', '"150862028003217" 004', '"150862028003217" "004"', '0f 313530383632303238303033323137 03 303034'],
    ['ISDN', '1234', '"1234"', '04 31323334'],
    ['L32', '10 10.1.2.0', '10 10.1.2.0', '000a 0a010200'],
    ['L64', '10 2001:0DB8:1140:1000', '10 2001:db8:1140:1000', '000a 20010db811401000'],
    ['NID', '10 0014:4fff:ff20:ee64', '10 14:4fff:ff20:ee64', '000a 00144fffff20ee64'],
    ['EUI48', '0-0-5e-0-53-2A', '00-00-5e-00-53-2a', '00005e00532a'],
    ['EUI64', '00-00-5e-ef-10-00-00-2a', '00-00-5e-ef-10-00-00-2a', '00005eef1000002a'],
    ['AVC', 'app-name:WOLFGANG', '"app-name:WOLFGANG"', '11 6170702d6e616d653a574f4c4647414e47'],
    [
      'RESINFO',
      'qnamemin exterr=15-17',
      '"qnamemin" "exterr=15-17"',
      '08 716e616d656d696e 0c 6578746572723d31352d3137',
    ],
    ['WALLET', '"BTC" x', '"BTC" "x"', '03 425443 01 78'],
    ['NINFO', '"up"', '"up"', '02 7570'],
  ];
  for (const [type, data, canonical, hex] of cases) {
    it(`${type}: ${data} reads as ${canonical}, from text and from the wire`, () => {
      assert.equal(text(type, data), canonical);
      assert.equal(wire(type, hex), canonical);
    });
  }

  it('refuses what BIND refuses', () => {
    const refusals: Array<[string, string, RegExp]> = [
      ['URI', '10 1 ftp://x', /the URI target must be quoted/],
      ['URI', '10', /missing weight/],
      ['EUI48', '00:00:5e:00:53:2a', /bad EUI-48 address/],
      ['EUI48', '00-00-5e-00-53', /bad EUI-48 address/],
      ['EUI64', '00-00-5e-ef-10-00-00-2a-01', /bad EUI-64 address/],
      ['L64', '10 2001:0DB8:1140', /bad 64-bit locator/],
      ['L64', '10 12345:0DB8:1140:1000', /bad 64-bit locator/],
      ['L32', '10 10.1.2', /bad IPv4 address/],
      ['CERT', 'BOGUS 0 8 MIIB', /certificate type must be a number/],
      ['CERT', '1 0 8', /missing certificate/],
      ['X25', '123', /bad X25 address "123"/],
      ['X25', '12a4', /bad X25 address/],
      ['ISDN', '"1" "2" "3"', /unexpected ""3" after the record data/],
      ['OPENPGPKEY', 'mQINB', /bad base64 in public key/],
      ['SMIMEA', '3 1 1', /missing certificate data/],
    ];
    for (const [type, data, message] of refusals) assert.throws(() => text(type, data), message, `${type} ${data}`);
    assert.throws(() => wire('X25', '02 3132'), /X25 address/);
    assert.throws(() => wire('OPENPGPKEY', ''), /empty record data/);
  });
});

describe('record types: the IANA registry', () => {
  it(`knows every mnemonic of the registry (as of ${IANA_RR_TYPES_UPDATED}), in any case, once each`, () => {
    assert.equal(new Set(IANA_RR_TYPES.map(([name]) => name)).size, IANA_RR_TYPES.length);
    assert.equal(new Set(IANA_RR_TYPES.map(([, value]) => value)).size, IANA_RR_TYPES.length);
    for (const [name, value] of IANA_RR_TYPES) {
      assert.equal(typeNumber(name), value);
      assert.equal(typeNumber(name.toLowerCase()), value);
      assert.equal(typeName(value), name);
      assert.equal(isRegisteredType(value), true);
    }
    assert.equal(typeNumber('NSEC4'), undefined);
    assert.equal(typeNumber('TYPE65280'), 65280);
    assert.equal(typeName(65280), 'TYPE65280');
    assert.equal(isRegisteredType(54), false);
  });

  it('keeps the data of a registered type without a codec as written, and refuses it for an unassigned number', () => {
    assert.equal(text('WKS', '192.0.2.1 tcp ( smtp "a b" )'), '192.0.2.1 tcp smtp "a b"');
    assert.equal(text('APL', ''), '');
    assert.equal(text('DSYNC', '\\# 2 abcd'), '\\# 2 ABCD');
    assert.throws(() => text('TYPE65280', '0a000001'), /only accepted in the RFC 3597 form/);
  });

  it('calls 0, OPT and 128-255 meta types, which no zone may hold', () => {
    for (const type of [0, 41, 128, 200, 249, 250, 251, 252, 255]) assert.equal(isMetaType(type), true, String(type));
    for (const type of [1, 46, 127, 256, 65280, 65535]) assert.equal(isMetaType(type), false, String(type));
  });
});
