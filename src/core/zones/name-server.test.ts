import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatNameServer, parseNameServer } from './name-server.ts';

describe("name servers (the API's nameServer and the configured resolvers)", () => {
  it('reads host names, IPv4 and IPv6, with or without a port, port 53 by default', () => {
    assert.deepEqual(parseNameServer('NS1.Example.COM.'), { host: 'ns1.example.com', port: 53 });
    assert.deepEqual(parseNameServer(' 192.0.2.1:5353 '), { host: '192.0.2.1', port: 5353 });
    assert.deepEqual(parseNameServer('2001:db8::1'), { host: '2001:db8::1', port: 53 });
    assert.deepEqual(parseNameServer('[2001:db8::1]:53'), { host: '2001:db8::1', port: 53 });
    assert.deepEqual(parseNameServer('localhost:1053'), { host: 'localhost', port: 1053 });
  });

  it('refuses a single-label host from the API, accepts it from the configuration', () => {
    assert.equal(parseNameServer('resolver'), undefined);
    assert.deepEqual(parseNameServer('resolver', { singleLabel: true }), { host: 'resolver', port: 53 });
  });

  it('refuses what is not a server', () => {
    for (const bad of [
      undefined,
      42,
      '',
      'a b',
      'host.test:0',
      'host.test:70000',
      '[nothost]:53',
      '[192.0.2.1]',
      'bad_label-.com',
      'x.test:y',
      'a.test:1:2',
    ]) {
      assert.equal(parseNameServer(bad), undefined, String(bad));
    }
  });

  it('formats IPv6 in brackets', () => {
    assert.equal(formatNameServer({ host: '2001:db8::1', port: 53 }), '[2001:db8::1]:53');
    assert.equal(formatNameServer({ host: 'ns.example.com', port: 5353 }), 'ns.example.com:5353');
  });
});
