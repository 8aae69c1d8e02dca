import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBulkResolver } from '../../src/engine/dns/bulk-resolver.ts';
import { discoverSurface, type DiscoveredName } from '../../src/engine/discovery/surface-discovery.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { counting, named, request, useDiscoveryServers } from '../support/surface-discovery-fixture.ts';

/**
 * Subdomain discovery, how a run resolves and delivers names: which record types it asks of which
 * names, streaming live names to the core in batches (with back-pressure and errors), and stopping
 * promptly on abort. The servers (BIND 9 with the 5,000-name bulk.test zone, HTTP(S) by Host header)
 * are in test/support/surface-discovery-fixture.ts.
 */

const servers = useDiscoveryServers();
const { deps } = servers;

describe('subdomain discovery: resolution', () => {
  it('asks AAAA only for names whose A query was not NXDOMAIN, and keeps AAAA-only names', async () => {
    const bulkCounting = counting(servers.bulk);
    const report = await discoverSurface(
      deps({ bulk: bulkCounting, wordList: ['www', 'nothere', 'v6only', 'alias'] }),
      request({ bruteForce: true }),
    );
    const a = bulkCounting.asked.get('A') ?? [];
    const aaaa = bulkCounting.asked.get('AAAA') ?? [];
    assert.ok(a.includes('nothere.disc.test') && a.includes('www.disc.test'), JSON.stringify(a));
    assert.ok(!aaaa.includes('nothere.disc.test'), 'an NXDOMAIN name is not asked AAAA');
    assert.ok(aaaa.includes('www.disc.test') && aaaa.includes('v6only.disc.test') && aaaa.includes('alias.disc.test'));
    // Names expected to exist (the root, DNS answers' targets) ask both types at once; guessed ones never do.
    const both = bulkCounting.asked.get('A+AAAA') ?? [];
    assert.ok(both.includes('disc.test') && both.includes('mx.disc.test'), JSON.stringify(both));
    assert.ok(!both.includes('nothere.disc.test') && !both.includes('v6only.disc.test'));
    assert.deepEqual(named(report, 'v6only.disc.test')?.addresses, ['::1'], 'a name with only AAAA is live');
    assert.deepEqual(
      named(report, 'alias.disc.test')?.cnames,
      ['via-cname.disc.test'],
      'the CNAME both answers carry is kept once',
    );
    assert.equal(named(report, 'nothere.disc.test'), undefined);
    // Each candidate once; the AAAA stream asks a subset of the guessed names.
    assert.equal(new Set([...a, ...both]).size, a.length + both.length);
    assert.ok(aaaa.every((name) => a.includes(name)));
    assert.equal(report.stats.candidates, a.length + both.length);
    assert.ok(
      report.stats.queries >= 2 * both.length + a.length + aaaa.length,
      `${report.stats.queries} queries counted`,
    );
  });
});

describe('subdomain discovery: streaming names to the core', () => {
  it('hands live names to onNames in batches and returns the same names, not in the report', async () => {
    const known = Array.from({ length: 2500 }, (_, i) => `h${i + 1}.bulk.test`);
    const batches: DiscoveredName[][] = [];
    // The guard refuses loopback here: 2,500 live hosts are not read, only resolved.
    const quiet = { guard: new EgressGuard([]), wordList: ['ns1', 'h1', 'h9999'] };
    const streamed = await discoverSurface(
      deps(quiet),
      request({
        root: 'bulk.test',
        knownNames: [...known, 'h9999.bulk.test'],
        scrape: true,
        bruteForce: true,
        onNames: async (batch) => void batches.push(batch),
      }),
    );
    const whole = await discoverSurface(
      deps(quiet),
      request({ root: 'bulk.test', knownNames: [...known, 'h9999.bulk.test'], scrape: true, bruteForce: true }),
    );
    assert.deepEqual(streamed.names, []);
    assert.ok(
      batches.length >= 3 && batches.every((batch) => batch.length > 0 && batch.length <= 1000),
      batches.map((b) => b.length).join(','),
    );
    const flat = batches.flat();
    assert.equal(new Set(flat.map((n) => n.name)).size, flat.length, 'each name is delivered once');
    const byName = (a: DiscoveredName, b: DiscoveredName): number => a.name.localeCompare(b.name);
    // Same names, addresses and depths as the report; a source found after delivery is not re-sent (h1 is known and a word).
    const strip = (n: DiscoveredName) => ({
      name: n.name,
      addresses: n.addresses,
      depth: n.depth,
      first: n.sources[0],
    });
    assert.deepEqual(flat.sort(byName).map(strip), [...whole.names].sort(byName).map(strip));
    assert.ok(whole.names.some((n) => n.name === 'h1.bulk.test' && n.sources.includes('brute-force')));
    assert.deepEqual(streamed.gone, [{ name: 'h9999.bulk.test', outcome: 'nxdomain' }]);
    assert.deepEqual(streamed.gone, whole.gone);
    assert.equal(streamed.stats.candidates, whole.stats.candidates);
  });

  it('stops taking candidates while onNames has not finished a batch', async () => {
    const names = Array.from({ length: 5000 }, (_, i) => `h${i + 1}.bulk.test`);
    const bulkCounting = counting(servers.bulk);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let delivered = 0;
    const run = discoverSurface(
      deps({ bulk: bulkCounting }),
      request({
        root: 'bulk.test',
        knownNames: names,
        scrape: false,
        onNames: async (batch) => {
          delivered += batch.length;
          await held;
        },
      }),
    );
    // Wait until the lookups stop advancing while the first batch is held.
    let last = -1;
    for (let stable = 0; stable < 3;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      stable = bulkCounting.results.count === last ? stable + 1 : 0;
      last = bulkCounting.results.count;
    }
    assert.equal(delivered, 1000, 'one batch handed over, not yet consumed');
    const taken = [...bulkCounting.asked.values()].reduce((sum, list) => sum + list.length, 0);
    assert.ok(
      taken > 1000 && taken < names.length,
      `the run kept reading candidates (${taken} of ${names.length}) while the consumer was busy`,
    );
    release();
    const report = await run;
    assert.equal(delivered, 5000, 'every name once the consumer caught up (the root has no address)');
    assert.deepEqual(report.names, []);
  });

  it('ends the run with the error onNames rejects with', async () => {
    const names = Array.from({ length: 1500 }, (_, i) => `h${i + 1}.bulk.test`);
    let calls = 0;
    await assert.rejects(
      discoverSurface(
        deps(),
        request({
          root: 'bulk.test',
          knownNames: names,
          scrape: false,
          onNames: () => {
            calls += 1;
            return Promise.reject(new Error('store unavailable'));
          },
        }),
      ),
      /store unavailable/,
    );
    assert.equal(calls, 1, 'no batch is handed over after a rejection');
  });
});

describe('subdomain discovery: abort', () => {
  it('stops promptly when the signal aborts mid-run', async () => {
    const slow = createBulkResolver({
      servers: [servers.bind.address],
      timeoutMs: 500,
      retries: 1,
      isRecursionDesired: false,
      ratePerSecond: 200,
    });
    const controller = new AbortController();
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`);
    let abortedAt = 0;
    try {
      const run = discoverSurface(
        deps({ bulk: slow, wordList: words }),
        request({
          bruteForce: true,
          signal: controller.signal,
          onProgress: (p) => {
            if (p.phase === 'brute-force' && abortedAt === 0) {
              setTimeout(() => {
                abortedAt = performance.now();
                controller.abort(new Error('monitoring turned off'));
              }, 300);
            }
          },
        }),
      );
      await assert.rejects(run, /monitoring turned off/);
      assert.ok(abortedAt > 0);
      assert.ok(
        performance.now() - abortedAt < 1000,
        `stopped ${(performance.now() - abortedAt).toFixed(0)} ms after the abort`,
      );
    } finally {
      slow.close();
    }
  });
});
