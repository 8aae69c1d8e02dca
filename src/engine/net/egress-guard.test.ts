import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../config/config.ts';
import { EgressDeniedError, EgressGuard, resolveGuarded, type AddressResolver } from './egress-guard.ts';

/** A resolver answering from a fixed map, counting lookups. */
function fakeResolver(addresses: Record<string, string[]>): AddressResolver & { lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    resolveAddresses: async (name) => {
      lookups.push(name);
      return addresses[name] ?? [];
    },
  };
}

const signal = new AbortController().signal;
const defaults = new EgressGuard([]);

/** Asserts that each address is denied as being in the given `label range cidr`. */
function assertDeniedIn(guard: EgressGuard, cases: Array<[address: string, range: string]>): void {
  for (const [address, range] of cases) {
    assert.deepEqual(guard.check(address), { isAllowed: false, reason: `${address} is in ${range}` }, address);
  }
}

function assertAllowed(guard: EgressGuard, addresses: string[]): void {
  for (const address of addresses) assert.deepEqual(guard.check(address), { isAllowed: true }, address);
}

describe('egress guard defaults', () => {
  it('denies the IPv4 special-purpose ranges that are not globally reachable', () => {
    assertDeniedIn(defaults, [
      ['0.0.0.0', 'unspecified range 0.0.0.0/32'],
      ['0.1.2.3', 'this-network range 0.0.0.0/8'],
      ['10.1.2.3', 'private range 10.0.0.0/8'],
      ['100.64.0.1', 'CGNAT range 100.64.0.0/10'],
      ['100.127.255.255', 'CGNAT range 100.64.0.0/10'],
      ['127.0.0.1', 'loopback range 127.0.0.0/8'],
      ['127.255.0.9', 'loopback range 127.0.0.0/8'],
      ['169.254.1.1', 'link-local range 169.254.0.0/16'],
      ['169.254.169.254', 'metadata range 169.254.169.254/32'],
      ['172.16.0.1', 'private range 172.16.0.0/12'],
      ['172.31.255.255', 'private range 172.16.0.0/12'],
      ['192.168.1.1', 'private range 192.168.0.0/16'],
      ['192.0.0.1', 'IPv4 service continuity range 192.0.0.0/29'],
      ['192.0.0.8', 'dummy range 192.0.0.8/32'],
      ['192.0.0.170', 'NAT64 discovery range 192.0.0.170/32'],
      ['192.0.0.171', 'NAT64 discovery range 192.0.0.171/32'],
      ['192.0.0.200', 'IETF protocol assignments range 192.0.0.0/24'],
      ['192.88.99.1', '6to4 relay anycast (deprecated) range 192.88.99.0/24'],
      ['192.88.99.2', '6a44 relay anycast range 192.88.99.2/32'],
    ]);
  });

  it('denies the documentation and benchmarking ranges', () => {
    assertDeniedIn(defaults, [
      ['192.0.2.1', 'documentation range 192.0.2.0/24'],
      ['198.18.0.1', 'benchmarking range 198.18.0.0/15'],
      ['198.19.255.254', 'benchmarking range 198.18.0.0/15'],
      ['198.51.100.7', 'documentation range 198.51.100.0/24'],
      ['203.0.113.99', 'documentation range 203.0.113.0/24'],
      ['2001:db8::1', 'documentation range 2001:db8::/32'],
      ['2001:db8:ffff::1', 'documentation range 2001:db8::/32'],
      ['3fff::1', 'documentation range 3fff::/20'],
      ['2001:2::1', 'benchmarking range 2001:2::/48'],
    ]);
  });

  it('denies multicast and reserved space', () => {
    assertDeniedIn(defaults, [
      ['224.0.0.1', 'multicast range 224.0.0.0/4'],
      ['239.255.255.250', 'multicast range 224.0.0.0/4'],
      ['240.0.0.1', 'reserved range 240.0.0.0/4'],
      ['255.255.255.254', 'reserved range 240.0.0.0/4'],
      ['255.255.255.255', 'limited broadcast range 255.255.255.255/32'],
      ['ff02::1', 'multicast range ff00::/8'],
      ['ff0e::1', 'multicast range ff00::/8'],
      ['1::1', 'reserved range ::/8'],
      ['100:1::1', 'reserved range 100::/8'],
      ['200::1', 'reserved range 200::/7'],
      ['1fff:ffff::1', 'reserved range 1000::/4'],
      ['4000::1', 'reserved range 4000::/3'],
      ['e000::1', 'reserved range e000::/4'],
      ['fe00::1', 'reserved range fe00::/9'],
      ['fec0::1', 'site-local (deprecated) range fec0::/10'],
    ]);
  });

  it('denies the IPv6 special-purpose ranges that are not globally reachable', () => {
    assertDeniedIn(defaults, [
      ['::1', 'loopback range ::1/128'],
      ['::', 'unspecified range ::/128'],
      ['fc00::1', 'private range fc00::/7'],
      ['fd12::1', 'private range fc00::/7'],
      ['fd00:ec2::254', 'metadata range fd00:ec2::254/128'],
      ['fe80::1', 'link-local range fe80::/10'],
      ['fe80::1%eth0', 'link-local range fe80::/10'],
      ['100::1', 'discard-only range 100::/64'],
      ['100:0:0:1::1', 'dummy range 100:0:0:1::/64'],
      ['2001:5::1', 'IETF protocol assignments range 2001::/23'],
      ['2001:1ff:ffff::1', 'IETF protocol assignments range 2001::/23'],
      ['2001:10::1', 'ORCHID (deprecated) range 2001:10::/28'],
      ['5f00::1', 'SRv6 SIDs range 5f00::/16'],
    ]);
  });

  it('keeps the globally reachable entries inside denied blocks reachable: the most specific entry wins', () => {
    assertAllowed(defaults, [
      '192.0.0.9',
      '192.0.0.10',
      '2001:1::1',
      '2001:1::2',
      '2001:1::3',
      '2001:3::1',
      '2001:3:ffff::1',
      '2001:4:112::1',
      '2001:20::1',
      '2001:2f:ffff::1',
      '2001:30::1',
      '2001:3f::1',
    ]);
    // Their neighbours fall back to the enclosing entry.
    assertDeniedIn(defaults, [
      ['192.0.0.11', 'IETF protocol assignments range 192.0.0.0/24'],
      ['2001:1::4', 'IETF protocol assignments range 2001::/23'],
      ['2001:4:113::1', 'IETF protocol assignments range 2001::/23'],
      ['2001:40::1', 'IETF protocol assignments range 2001::/23'],
    ]);
    // Globally reachable entries outside any denied block.
    assertAllowed(defaults, ['192.31.196.1', '192.52.193.1', '192.175.48.1', '2620:4f:8000::1']);
  });

  it('allows public addresses and the edges next to denied ranges', () => {
    assertAllowed(defaults, [
      '8.8.8.8',
      '1.1.1.1',
      '11.0.0.1',
      '100.63.255.255',
      '100.128.0.1',
      '172.15.255.255',
      '172.32.0.1',
      '192.0.1.255',
      '192.0.3.0',
      '198.17.255.255',
      '198.20.0.0',
    ]);
    assertAllowed(defaults, [
      '198.51.99.255',
      '198.51.101.0',
      '203.0.112.255',
      '203.0.114.0',
      '223.255.255.255',
      '2606:4700::1111',
      '2001:4860:4860::8888',
      '2001:200::1',
      '2001:db7:ffff::1',
      '2001:db9::1',
      '3fff:1000::1',
      '2000::1',
    ]);
  });

  it('judges IPv4-mapped addresses by the IPv4 address they stand for', () => {
    assert.deepEqual(defaults.check('::ffff:127.0.0.1'), {
      isAllowed: false,
      reason: '::ffff:127.0.0.1 embeds 127.0.0.1 (IPv4-mapped), which is in loopback range 127.0.0.0/8',
    });
    assert.equal(defaults.check('::ffff:7f00:1').isAllowed, false);
    assert.equal(defaults.check('::FFFF:10.0.0.1').isAllowed, false);
    assert.equal(defaults.check('::ffff:192.0.2.1').isAllowed, false);
    assert.equal(defaults.check('::ffff:8.8.8.8').isAllowed, true);
    assert.equal(defaults.check('::ffff:192.0.0.9').isAllowed, true);
  });

  it('judges IPv4-compatible addresses (deprecated ::/96) by the embedded address once ::/96 is allowed', () => {
    // Read as IPv6 ::808:808, as a socket dials it, not as the IPv4-mapped ::ffff:8.8.8.8.
    assertDeniedIn(defaults, [['::8.8.8.8', 'IPv4-compatible (deprecated) range ::/96']]);
    const guard = new EgressGuard(['::/96']);
    assert.deepEqual(guard.check('::127.0.0.1'), {
      isAllowed: false,
      reason: '::127.0.0.1 embeds 127.0.0.1 (IPv4-compatible), which is in loopback range 127.0.0.0/8',
    });
    assert.equal(guard.check('::a00:1').isAllowed, false);
    assertAllowed(guard, ['::8.8.8.8', '::808:808', '::1']);
  });

  it('judges NAT64 addresses by the embedded address and denies the local-use prefix', () => {
    assert.deepEqual(defaults.check('64:ff9b::7f00:1'), {
      isAllowed: false,
      reason: '64:ff9b::7f00:1 embeds 127.0.0.1 (NAT64), which is in loopback range 127.0.0.0/8',
    });
    assert.equal(defaults.check('64:ff9b::192.168.1.1').isAllowed, false);
    assert.equal(defaults.check('64:ff9b::a9fe:a9fe').isAllowed, false);
    assertAllowed(defaults, ['64:ff9b::808:808', '64:ff9b::192.0.0.9']);
    assertDeniedIn(defaults, [
      ['64:ff9b:1::808:808', 'NAT64 local-use range 64:ff9b:1::/48'],
      ['64:ff9b:0:0:1::808:808', 'reserved range ::/8'],
    ]);
  });

  it('denies 6to4 (globally reachable: N/A) and, where allowed, judges the address in bits 16-47', () => {
    assertDeniedIn(defaults, [['2002:808:808::1', '6to4 range 2002::/16']]);
    const guard = new EgressGuard(['2002::/16']);
    assert.deepEqual(guard.check('2002:7f00:1::1'), {
      isAllowed: false,
      reason: '2002:7f00:1::1 embeds 127.0.0.1 (6to4), which is in loopback range 127.0.0.0/8',
    });
    assert.equal(guard.check('2002:a9fe:a9fe::1').isAllowed, false);
    assert.equal(guard.check('2002:c000:201:1::1').isAllowed, false);
    assertAllowed(guard, ['2002:808:808::1', '2002:808:808:ffff::1']);
  });

  it('denies Teredo (globally reachable: N/A) and, where allowed, judges both the server and the client address', () => {
    // RFC 4380 §4: 2001:0:SERVER:flags:port:~CLIENT. Server 65.54.227.120 = 4136:e378.
    const publicClient = '2001:0:4136:e378:8000:63bf:f7f7:f7f7'; // client 8.8.8.8 (XOR ffffffff)
    assertDeniedIn(defaults, [[publicClient, 'Teredo range 2001::/32']]);
    const guard = new EgressGuard(['2001::/32']);
    assertAllowed(guard, [publicClient]);
    assert.deepEqual(guard.check('2001:0:4136:e378:8000:63bf:3fff:fdd2'), {
      isAllowed: false,
      reason:
        '2001:0:4136:e378:8000:63bf:3fff:fdd2 embeds 192.0.2.45 (Teredo client), which is in documentation range 192.0.2.0/24',
    });
    assert.deepEqual(guard.check('2001:0:a00:1:8000:63bf:f7f7:f7f7'), {
      isAllowed: false,
      reason: '2001:0:a00:1:8000:63bf:f7f7:f7f7 embeds 10.0.0.1 (Teredo server), which is in private range 10.0.0.0/8',
    });
    assert.equal(guard.check('2001:0:4136:e378:8000:63bf:80ff:fffe').isAllowed, false, 'client 127.0.0.1');
  });

  it('denies what is not a canonical IP address', () => {
    for (const text of ['localhost', '127.1', '0x7f.0.0.1', '010.0.0.1', '', '[::1]', '1:2:3:4::5:6:7:8']) {
      assert.deepEqual(defaults.check(text), { isAllowed: false, reason: `${text} is not an IP address` }, text);
    }
  });
});

describe('egress guard allow list', () => {
  it('opens the denied addresses inside an allowed range and no others', () => {
    const guard = new EgressGuard(['127.0.0.0/8', '10.1.0.0/16']);
    assertAllowed(guard, ['127.0.0.1', '127.0.0.2', '::ffff:127.0.0.1', '64:ff9b::7f00:1', '10.1.2.3']);
    assert.equal(guard.check('10.2.0.1').isAllowed, false);
    assert.equal(guard.check('::1').isAllowed, false);
    assert.equal(guard.check('169.254.169.254').isAllowed, false);
    assert.equal(guard.check('192.0.2.1').isAllowed, false);
  });

  it('lets an allowed range win over the more specific denied entries inside it', () => {
    const guard = new EgressGuard(['192.0.0.0/24', '198.18.0.0/15', '2001:db8::/32']);
    assertAllowed(guard, ['192.0.0.8', '192.0.0.170', '198.19.0.1', '2001:db8::1']);
    assert.equal(guard.check('192.0.2.1').isAllowed, false);
  });

  it('accepts single addresses, IPv6 ranges, and IPv4-mapped ranges as the IPv4 range they spell', () => {
    const guard = new EgressGuard(['::1', 'fd00::/8', '::ffff:192.168.0.0/112']);
    assertAllowed(guard, ['::1', 'fd00::5', 'fd00:ec2::254', '192.168.7.7', '::ffff:192.168.7.7']);
    assert.equal(guard.check('fc00::1').isAllowed, false);
    assert.equal(guard.check('192.169.0.1').isAllowed, true, 'public');
    assert.equal(guard.check('192.167.255.255').isAllowed, true, 'public');
    assert.equal(new EgressGuard(['::ffff:192.168.0.0/112']).check('10.0.0.1').isAllowed, false);
  });

  it('takes its ranges from the configuration: PERIMETER_EGRESS_ALLOW or --egress-allow', () => {
    const fromEnv = new EgressGuard(
      loadConfig({ env: { PERIMETER_EGRESS_ALLOW: '127.0.0.0/8, 2001:db8::/32' } }).egressAllow,
    );
    assertAllowed(fromEnv, ['127.0.0.1', '::ffff:127.0.0.1', '2001:db8::1']);
    assert.equal(fromEnv.check('10.0.0.1').isAllowed, false);
    const fromFlag = new EgressGuard(loadConfig({ env: {}, flags: { 'egress-allow': '198.18.0.0/15' } }).egressAllow);
    assertAllowed(fromFlag, ['198.18.0.1']);
    assert.equal(fromFlag.check('127.0.0.1').isAllowed, false);
    assert.throws(
      () => loadConfig({ env: { PERIMETER_EGRESS_ALLOW: '127.1/8' } }),
      /PERIMETER_EGRESS_ALLOW "127.1\/8" is not a CIDR range/,
    );
  });

  it('rejects an invalid CIDR at construction', () => {
    assert.throws(() => new EgressGuard(['10.0.0.0/33']), /invalid CIDR in allow list: "10.0.0.0\/33"/);
    assert.throws(() => new EgressGuard(['::/129']), /invalid CIDR/);
    assert.throws(() => new EgressGuard(['127.1/8']), /invalid CIDR/);
    assert.throws(() => new EgressGuard(['10.0.0.0/8x']), /invalid CIDR/);
    assert.throws(() => new EgressGuard(['not-a-range']), /invalid CIDR/);
  });
});

describe('resolveGuarded', () => {
  it('returns every address of a public name', async () => {
    const resolver = fakeResolver({ 'example.test': ['93.184.216.34', '2606:2800:220:1::1'] });
    assert.deepEqual(await resolveGuarded('example.test', defaults, resolver, signal), [
      '93.184.216.34',
      '2606:2800:220:1::1',
    ]);
  });

  it('refuses a name with an allowed and a denied address, whichever comes first', async () => {
    const guard = new EgressGuard(['127.0.0.0/8']);
    const resolver = fakeResolver({
      'mixed.test': ['127.0.0.2', '192.0.2.10'],
      'mixed-reversed.test': ['2001:db8::10', '127.0.0.2'],
    });
    await assert.rejects(resolveGuarded('mixed.test', guard, resolver, signal), (err: unknown) => {
      assert.ok(err instanceof EgressDeniedError);
      assert.equal(err.message, 'denied by egress guard: 192.0.2.10 is in documentation range 192.0.2.0/24');
      assert.equal(err.address, '192.0.2.10');
      assert.equal(err.host, 'mixed.test');
      return true;
    });
    await assert.rejects(
      resolveGuarded('mixed-reversed.test', guard, resolver, signal),
      /2001:db8::10 is in documentation range 2001:db8::\/32/,
    );
    assert.deepEqual(resolver.lookups, ['mixed.test', 'mixed-reversed.test']);
  });

  it('returns exactly the checked addresses when all are allowed, after one lookup', async () => {
    const resolver = fakeResolver({ 'local.test': ['127.0.0.2', '127.0.0.3'] });
    assert.deepEqual(await resolveGuarded('local.test', new EgressGuard(['127.0.0.0/8']), resolver, signal), [
      '127.0.0.2',
      '127.0.0.3',
    ]);
    assert.deepEqual(resolver.lookups, ['local.test']);
  });

  it('checks a literal IP without asking the resolver', async () => {
    const resolver = fakeResolver({});
    assert.deepEqual(await resolveGuarded('8.8.8.8', defaults, resolver, signal), ['8.8.8.8']);
    assert.deepEqual(await resolveGuarded('[::ffff:127.0.0.1]', new EgressGuard(['127.0.0.0/8']), resolver, signal), [
      '::ffff:127.0.0.1',
    ]);
    await assert.rejects(resolveGuarded('[::1]', defaults, resolver, signal), /::1 is in loopback range ::1\/128/);
    await assert.rejects(
      resolveGuarded('198.51.100.1', defaults, resolver, signal),
      /198\.51\.100\.1 is in documentation range/,
    );
    assert.deepEqual(resolver.lookups, []);
  });

  it('returns [] for a name without addresses', async () => {
    assert.deepEqual(await resolveGuarded('missing.test', defaults, fakeResolver({}), signal), []);
  });

  it('lets resolver failures through unchanged', async () => {
    const resolver: AddressResolver = {
      resolveAddresses: async () => {
        throw new Error('dns: A lookup of x failed: timed out');
      },
    };
    await assert.rejects(resolveGuarded('x', defaults, resolver, signal), /timed out/);
  });
});
