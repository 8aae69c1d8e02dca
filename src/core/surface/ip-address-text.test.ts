import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalIpAddress } from './ip-inventory.service.ts';

describe('canonicalIpAddress', () => {
  it('writes IPv4 as a dotted quad and IPv6 in RFC 5952 form', () => {
    assert.equal(canonicalIpAddress('8.8.8.8'), '8.8.8.8');
    assert.equal(canonicalIpAddress(' 192.0.2.1 '), '192.0.2.1');
    assert.equal(canonicalIpAddress('2001:DB8:0:0:0:0:0:1'), '2001:db8::1');
    assert.equal(canonicalIpAddress('2001:db8:0:0:1:0:0:1'), '2001:db8::1:0:0:1');
    assert.equal(canonicalIpAddress('::FFFF:8.8.8.8'), '::ffff:8.8.8.8');
  });

  it('refuses what a socket would not take for an address', () => {
    for (const text of ['127.1', '0x7f.0.0.1', '256.0.0.1', 'example.com', '', 'fe80::1%eth0', '1.2.3.4/24'])
      assert.equal(canonicalIpAddress(text), undefined, text);
  });
});
