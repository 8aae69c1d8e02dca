import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DnsResolver } from '../dns/resolver.ts';
import { EgressDeniedError, EgressGuard, resolveGuarded } from './egress-guard.ts';

/** A resolver answering from a fixed map, counting lookups. */
function fakeResolver(addresses: Record<string, string[]>): DnsResolver & { lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    resolveTxt: async () => [],
    resolveAddresses: async (name) => {
      lookups.push(name);
      return addresses[name] ?? [];
    },
  };
}

const signal = new AbortController().signal;

describe('egress guard defaults', () => {
  const guard = new EgressGuard([]);
  const denied: Array<[string, string]> = [
    ['127.0.0.1', 'loopback range 127.0.0.0/8'],
    ['127.255.0.9', 'loopback range 127.0.0.0/8'],
    ['::1', 'loopback range ::1/128'],
    ['10.1.2.3', 'private range 10.0.0.0/8'],
    ['172.16.0.1', 'private range 172.16.0.0/12'],
    ['172.31.255.255', 'private range 172.16.0.0/12'],
    ['192.168.1.1', 'private range 192.168.0.0/16'],
    ['fd12::1', 'private range fc00::/7'],
    ['169.254.1.1', 'link-local range 169.254.0.0/16'],
    ['fe80::1', 'link-local range fe80::/10'],
    ['169.254.169.254', 'metadata range 169.254.169.254/32'],
    ['fd00:ec2::254', 'metadata range fd00:ec2::254/128'],
    ['0.0.0.0', 'unspecified range 0.0.0.0/8'],
    ['::', 'unspecified range ::/128'],
    ['100.64.0.1', 'CGNAT range 100.64.0.0/10'],
    ['224.0.0.1', 'multicast range 224.0.0.0/4'],
    ['ff02::1', 'multicast range ff00::/8'],
    ['240.0.0.1', 'reserved range 240.0.0.0/4'],
    ['255.255.255.255', 'reserved range 240.0.0.0/4'],
  ];
  for (const [address, range] of denied) {
    it(`denies ${address} as ${range}`, () => {
      assert.deepEqual(guard.check(address), { isAllowed: false, reason: `${address} is in ${range}` });
    });
  }

  it('allows public addresses and the edges next to denied ranges', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '172.15.255.255', '100.128.0.1', '2606:4700::1111', '11.0.0.1']) {
      assert.deepEqual(guard.check(address), { isAllowed: true }, address);
    }
  });

  it('treats IPv4-mapped IPv6 as IPv4', () => {
    assert.deepEqual(guard.check('::ffff:127.0.0.1'), { isAllowed: false, reason: '::ffff:127.0.0.1 is in loopback range 127.0.0.0/8' });
    assert.equal(guard.check('::ffff:7f00:1').isAllowed, false);
    assert.equal(guard.check('::ffff:10.0.0.1').isAllowed, false);
    assert.equal(guard.check('::ffff:8.8.8.8').isAllowed, true);
  });

  it('denies NAT64 and 6to4 addresses that embed a denied IPv4 address', () => {
    assert.deepEqual(guard.check('64:ff9b::7f00:1'), {
      isAllowed: false,
      reason: '64:ff9b::7f00:1 embeds 127.0.0.1, which is in loopback range 127.0.0.0/8',
    });
    assert.equal(guard.check('2002:a9fe:a9fe::1').isAllowed, false);
    assert.equal(guard.check('64:ff9b::808:808').isAllowed, true);
  });

  it('denies what is not a canonical IP address', () => {
    assert.equal(guard.check('localhost').isAllowed, false);
    assert.equal(guard.check('127.1').isAllowed, false);
    assert.equal(guard.check('').isAllowed, false);
  });
});

describe('egress guard allow list', () => {
  it('opens the denied addresses inside an allowed range and no others', () => {
    const guard = new EgressGuard(['127.0.0.0/8', '10.1.0.0/16']);
    assert.equal(guard.check('127.0.0.1').isAllowed, true);
    assert.equal(guard.check('::ffff:127.0.0.1').isAllowed, true);
    assert.equal(guard.check('10.1.2.3').isAllowed, true);
    assert.equal(guard.check('10.2.0.1').isAllowed, false);
    assert.equal(guard.check('::1').isAllowed, false);
    assert.equal(guard.check('169.254.169.254').isAllowed, false);
  });

  it('accepts single addresses and IPv6 ranges', () => {
    const guard = new EgressGuard(['::1', 'fd00::/8']);
    assert.equal(guard.check('::1').isAllowed, true);
    assert.equal(guard.check('fd00::5').isAllowed, true);
    assert.equal(guard.check('fd00:ec2::254').isAllowed, true);
    assert.equal(guard.check('fc00::1').isAllowed, false);
  });

  it('rejects an invalid CIDR at construction', () => {
    assert.throws(() => new EgressGuard(['10.0.0.0/33']), /invalid CIDR in allow list: "10.0.0.0\/33"/);
    assert.throws(() => new EgressGuard(['not-a-range']), /invalid CIDR/);
  });
});

describe('resolveGuarded', () => {
  it('returns every address of a public name', async () => {
    const resolver = fakeResolver({ 'example.test': ['93.184.216.34', '2606:2800:220:1::1'] });
    assert.deepEqual(await resolveGuarded('example.test', new EgressGuard([]), resolver, signal), ['93.184.216.34', '2606:2800:220:1::1']);
  });

  it('refuses the whole name when any address is denied, naming the address and range', async () => {
    const resolver = fakeResolver({ 'mixed.test': ['93.184.216.34', '10.0.0.5'] });
    await assert.rejects(resolveGuarded('mixed.test', new EgressGuard([]), resolver, signal), (err: unknown) => {
      assert.ok(err instanceof EgressDeniedError);
      assert.equal(err.message, 'denied by egress guard: 10.0.0.5 is in private range 10.0.0.0/8');
      assert.equal(err.address, '10.0.0.5');
      assert.equal(err.host, 'mixed.test');
      return true;
    });
  });

  it('checks a literal IP without asking the resolver', async () => {
    const resolver = fakeResolver({});
    assert.deepEqual(await resolveGuarded('8.8.8.8', new EgressGuard([]), resolver, signal), ['8.8.8.8']);
    assert.deepEqual(await resolveGuarded('[::ffff:127.0.0.1]', new EgressGuard(['127.0.0.0/8']), resolver, signal), ['::ffff:127.0.0.1']);
    await assert.rejects(resolveGuarded('[::1]', new EgressGuard([]), resolver, signal), /::1 is in loopback range ::1\/128/);
    assert.deepEqual(resolver.lookups, []);
  });

  it('returns [] for a name without addresses', async () => {
    assert.deepEqual(await resolveGuarded('missing.test', new EgressGuard([]), fakeResolver({}), signal), []);
  });

  it('lets resolver failures through unchanged', async () => {
    const resolver: DnsResolver = {
      resolveTxt: async () => [],
      resolveAddresses: async () => {
        throw new Error('dns: A lookup of x failed: timed out');
      },
    };
    await assert.rejects(resolveGuarded('x', new EgressGuard([]), resolver, signal), /timed out/);
  });
});
