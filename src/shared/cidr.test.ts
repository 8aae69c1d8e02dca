import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIpv4, isInRange, parseCidr, parseIp } from './cidr.ts';

const hex = (text: string): string | undefined => parseIp(text)?.value.toString(16);

describe('parseIp', () => {
  it('reads IPv6 literals as a socket dials them, a trailing dotted quad included', () => {
    assert.equal(hex('::'), '0');
    assert.equal(hex('::1'), '1');
    assert.equal(hex('1::'), '10000000000000000000000000000');
    assert.equal(hex('2001:DB8::A'), '20010db800000000000000000000000a');
    assert.equal(hex('1:2:3:4:5:6:1.2.3.4'), '10002000300040005000601020304');
    assert.equal(hex('::ffff:1.2.3.4'), 'ffff01020304');
    // IPv4-compatible stays IPv4-compatible (ipaddr.js would read ::ffff:1.2.3.4 here).
    assert.equal(hex('::1.2.3.4'), '1020304');
    assert.equal(hex('fe80::1%eth0'), 'fe800000000000000000000000000001');
  });

  it('reads IPv4 literals and refuses what node does not take for an address', () => {
    assert.deepEqual(parseIp('10.0.0.1'), { family: 4, value: 0x0a000001n });
    assert.equal(formatIpv4(0xc000022dn), '192.0.2.45');
    for (const text of [
      '127.1',
      '0x7f.0.0.1',
      '010.0.0.1',
      '1.2.3.4.5',
      '::1::',
      '1:2:3:4::5:6:7:8',
      'example.test',
      '',
    ]) {
      assert.equal(parseIp(text), undefined, text);
    }
  });
});

describe('parseCidr', () => {
  it('parses ranges and bare addresses, ignoring bits below the prefix', () => {
    const range = parseCidr('10.1.2.3/8');
    assert.ok(range !== undefined);
    assert.equal(range.prefix, 8);
    assert.equal(isInRange(parseIp('10.255.0.1')!, range), true);
    assert.equal(isInRange(parseIp('11.0.0.1')!, range), false);
    assert.equal(parseCidr('::1')?.prefix, 128);
    assert.equal(parseCidr('0.0.0.0/0')?.prefix, 0);
    assert.equal(isInRange(parseIp('255.1.2.3')!, parseCidr('0.0.0.0/0')!), true);
  });

  it('keeps the families apart: an IPv4-mapped address is not in an IPv4 range', () => {
    assert.equal(isInRange(parseIp('::ffff:10.0.0.1')!, parseCidr('10.0.0.0/8')!), false);
    assert.equal(isInRange(parseIp('10.0.0.1')!, parseCidr('::/0')!), false);
  });

  it('refuses bad prefixes and bad addresses', () => {
    for (const text of [
      '1.2.3.4/33',
      '::/129',
      '1.2.3.4/',
      '/8',
      '1.2.3.4/8x',
      '1.2.3.4/-1',
      ' 10.0.0.0/8',
      '127.1/8',
      'nope',
    ]) {
      assert.equal(parseCidr(text), undefined, text);
    }
  });
});
