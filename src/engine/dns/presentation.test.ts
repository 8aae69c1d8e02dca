import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalName, escapeLabel, isInZone, nameToWire, ownerForm, wireLength } from './dns-name.ts';
import { canonicalIpv4, canonicalIpv6, formatIpv6, ipv6Bytes } from './ip-text.ts';
import { parseNameServer } from './name-server.ts';
import { decodeText, parseSeconds, parseTtl, quoteText } from './text-values.ts';

describe('presentation: names', () => {
  it('canonicalises names from any spelling to one string', () => {
    const origin = 'example.com.';
    assert.equal(canonicalName('WWW', origin), 'www.example.com.');
    assert.equal(canonicalName('www.Example.COM.', origin), 'www.example.com.');
    assert.equal(canonicalName('\\119ww', origin), 'www.example.com.');
    assert.equal(canonicalName('@', origin), origin);
    assert.equal(canonicalName('.', origin), '.');
    assert.equal(canonicalName('a', '.'), 'a.');
    assert.equal(canonicalName('a\\.b', origin), 'a\\.b.example.com.');
    assert.equal(canonicalName('a\\046b', origin), 'a\\.b.example.com.');
    assert.equal(canonicalName('sp\\ ace', origin), 'sp\\032ace.example.com.');
    assert.equal(canonicalName('\\$x\\;', origin), '\\$x\\;.example.com.');
  });

  it('escapes label bytes the way BIND prints them', () => {
    assert.equal(escapeLabel('Plain-Label_1*'), 'plain-label_1*');
    assert.equal(escapeLabel('a.b"c(d)e;f@g$h\\i'), 'a\\.b\\"c\\(d\\)e\\;f\\@g\\$h\\\\i');
    assert.equal(escapeLabel('\x00\x7f\xe9 '), '\\000\\127\\233\\032');
  });

  it('counts wire lengths and converts to wire form', () => {
    assert.equal(wireLength('.'), 1);
    assert.equal(wireLength('www.example.com.'), 17);
    assert.equal(wireLength('a\\.b\\032c.'), 7);
    assert.equal(nameToWire('a\\.b.c'), '\x03a.b\x01c\x00');
    assert.equal(ownerForm('www.example.com.'), 'www.example.com');
    assert.equal(ownerForm('.'), '.');
  });

  it('tells whether a name lies in a zone, escaped dots included', () => {
    assert.equal(isInZone('www.example.com.', 'example.com.'), true);
    assert.equal(isInZone('example.com.', 'example.com.'), true);
    assert.equal(isInZone('badexample.com.', 'example.com.'), false);
    assert.equal(isInZone('a\\.example.com.', 'example.com.'), false);
    assert.equal(isInZone('a\\\\.example.com.', 'example.com.'), true);
    assert.equal(isInZone('anything.', '.'), true);
  });
});

describe('presentation: addresses', () => {
  it('accepts dotted quads only in inet_pton form', () => {
    assert.equal(canonicalIpv4('192.0.2.255'), '192.0.2.255');
    assert.equal(canonicalIpv4('0.0.0.0'), '0.0.0.0');
    for (const bad of ['192.0.2', '192.0.2.1.5', '192.0.2.256', '01.2.3.4', '1..2.3', '1.2.3.4 ', 'a.b.c.d', '']) {
      assert.throws(() => canonicalIpv4(bad), /bad IPv4 address/, bad);
    }
  });

  it('reads every IPv6 text form and prints RFC 5952', () => {
    const cases: Array<[string, string]> = [
      ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
      ['::', '::'],
      ['::1', '::1'],
      ['1::', '1::'],
      ['0:0:0:0:0:0:0:0', '::'],
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
      ['2001:0db8:0000:0001:0001:0001:0001:0001', '2001:db8:0:1:1:1:1:1'],
      ['::ffff:192.0.2.1', '::ffff:c000:201'],
      ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
      ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ];
    for (const [text, canonical] of cases) assert.equal(canonicalIpv6(text), canonical, text);
    for (const bad of [
      ':1::2',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      '1:2:3:4:5:6:7',
      'g::1',
      '1:',
      '::1.2.3',
      '1:2:3:4:5:6:7:1.2.3.4',
      '',
    ]) {
      assert.throws(() => canonicalIpv6(bad), /bad IPv6 address/, bad);
    }
    assert.equal(formatIpv6(ipv6Bytes('2001:db8::8:800:200c:417a')), '2001:db8::8:800:200c:417a');
  });
});

describe('presentation: strings, TTLs and servers', () => {
  it('decodes and quotes character strings losslessly', () => {
    assert.equal(decodeText('"a\\"b\\\\c\\065'), 'a"b\\cA');
    assert.equal(quoteText('a"b\\c\x00\xff'), '"a\\"b\\\\c\\000\\255"');
    assert.throws(() => decodeText('\\25x'), /needs three digits/);
  });

  it('reads TTLs with units and clamps to RFC 2181', () => {
    assert.equal(parseTtl('1w2d3h4m5s'), 788645);
    assert.equal(parseTtl('2147483647'), 2147483647);
    assert.equal(parseTtl('2147483648'), 0);
    assert.equal(parseSeconds('4294967295', 'expire'), 4294967295);
    assert.throws(() => parseTtl('1h30'), /bad TTL/);
  });

  it('parses name server addresses with optional ports', () => {
    assert.deepEqual(parseNameServer('ns1.example.com'), { host: 'ns1.example.com', port: 53 });
    assert.deepEqual(parseNameServer('ns1.example.com.:5353'), { host: 'ns1.example.com', port: 5353 });
    assert.deepEqual(parseNameServer('192.0.2.1:53'), { host: '192.0.2.1', port: 53 });
    assert.deepEqual(parseNameServer('2001:db8::1'), { host: '2001:db8::1', port: 53 });
    assert.deepEqual(parseNameServer('[2001:db8::1]:5353'), { host: '2001:db8::1', port: 5353 });
    for (const bad of ['', 'a b', 'host:0', 'host:70000', '[nothost]:53', 'bad_label-.com', 'x:y'])
      assert.equal(parseNameServer(bad), undefined, bad);
  });
});
