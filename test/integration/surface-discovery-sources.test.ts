import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { discoverSurface } from '../../src/engine/discovery/surface-discovery.ts';
import { named, request, useDiscoveryServers } from '../support/surface-discovery-fixture.ts';

/**
 * Subdomain discovery, what it finds: names from DNS answers, certificate SANs, pages and scripts,
 * zone data and known names, the depth limit, re-checking given names without scraping, brute
 * force with permutations, and wildcard zones. The servers (BIND 9, HTTP(S) by Host header, a
 * refusing name server) are in test/support/surface-discovery-fixture.ts.
 */

const { deps, seen } = useDiscoveryServers();

describe('subdomain discovery: sources', () => {
  it('finds names in DNS answers, certificate SANs, pages and scripts, zone and known names, only under the root', async () => {
    seen.length = 0;
    const phases = new Set<string>();
    const report = await discoverSurface(
      deps(),
      request({
        knownNames: ['alias.disc.test', 'known-gone.disc.test'],
        zoneNames: ['zone-name.disc.test'],
        requestsPerSecond: 5,
        onProgress: (p) => phases.add(p.phase),
      }),
    );
    const sources = (name: string) => named(report, name)?.sources;
    // DNS answers: MX, SPF include, SRV target, NS (SOA mname), CNAME target of a known name.
    assert.deepEqual(sources('mx.disc.test'), ['dns']);
    assert.deepEqual(sources('spf-mail.disc.test'), ['dns']);
    assert.deepEqual(sources('sip.disc.test'), ['dns']);
    assert.deepEqual(sources('ns1.disc.test'), ['dns']);
    assert.deepEqual(sources('via-cname.disc.test'), ['dns']);
    assert.deepEqual(named(report, 'alias.disc.test'), {
      name: 'alias.disc.test',
      sources: ['known'],
      addresses: ['127.0.0.1'],
      cnames: ['via-cname.disc.test'],
      depth: 0,
    });
    // Certificate SANs (the wildcard SAN names its parent; other.example.org is not under the root).
    assert.ok(sources('cert-only.disc.test')?.includes('certificate'));
    assert.ok(sources('www.disc.test')?.includes('certificate'));
    // Pages: links, inline scripts, and a script the page loads.
    assert.ok(sources('page-link.disc.test')?.includes('page'));
    assert.ok(sources('static.disc.test')?.includes('page'));
    assert.ok(sources('api-inline.disc.test')?.includes('page'));
    assert.ok(sources('from-script.disc.test')?.includes('page'));
    assert.equal(named(report, 'from-script.disc.test')?.depth, 1);
    // Recursion: page-link (found on the root's page, depth 1) names deeper (depth 2).
    assert.deepEqual(named(report, 'deeper.disc.test')?.sources, ['page']);
    assert.equal(named(report, 'deeper.disc.test')?.depth, 2);
    // Zone data and known names; a known name that no longer exists is reported gone.
    assert.deepEqual(sources('zone-name.disc.test'), ['zone']);
    assert.deepEqual(report.gone, [{ name: 'known-gone.disc.test', outcome: 'nxdomain' }]);
    assert.ok(report.names.every((n) => n.name === 'disc.test' || n.name.endsWith('.disc.test')));
    assert.equal(
      named(report, 'wild-cert.disc.test'),
      undefined,
      'the parent of a wildcard SAN does not resolve, so it is not live',
    );
    // Brute force was off: no word-list name.
    assert.ok(report.names.every((n) => !n.sources.includes('brute-force') && !n.sources.includes('permutation')));
    assert.equal(report.isWildcard, false);
    assert.deepEqual(report.takeovers, []);
    assert.ok(report.stats.hostsScraped > 5 && report.stats.httpRequests > 10, JSON.stringify(report.stats));
    // Every request carried the custom header; one origin's requests were spaced by the rate.
    assert.ok(seen.length > 0 && seen.every((r) => r.header === 'run-1'));
    const scripts = seen.filter((r) => r.host === 'static.disc.test' && r.path.startsWith('/app')).map((r) => r.at);
    assert.ok(scripts.length >= 3);
    // Tokens are granted 200 ms apart; arrival at the server jitters by the connection set-up.
    const span = (scripts[scripts.length - 1] as number) - (scripts[0] as number);
    assert.ok(
      span >= (scripts.length - 1) * 200 * 0.9,
      `${scripts.length} requests to one origin within ${span.toFixed(0)} ms at 5 requests/s`,
    );
    assert.ok(phases.has('seeds') && phases.has('done'));
  });

  it('follows names only to the depth limit', async () => {
    const report = await discoverSurface(deps(), request({ maxDepth: 1 }));
    assert.equal(named(report, 'page-link.disc.test')?.depth, 1);
    assert.equal(named(report, 'deeper.disc.test'), undefined);
  });

  it('without scrape re-checks the given names only', async () => {
    const report = await discoverSurface(
      deps(),
      request({ scrape: false, knownNames: ['www.disc.test', 'known-gone.disc.test'] }),
    );
    assert.deepEqual(
      report.names.map((n) => n.name),
      ['disc.test', 'www.disc.test'],
    );
    assert.deepEqual(
      report.gone.map((g) => g.name),
      ['known-gone.disc.test'],
    );
    assert.equal(report.stats.hostsScraped, 0);
  });

  it('brute-forces the word list and permutes what it found', async () => {
    const report = await discoverSurface(
      deps({ wordList: ['www', 'api', 'nothere', 'mail'] }),
      request({ bruteForce: true }),
    );
    assert.ok(named(report, 'api.disc.test')?.sources.includes('brute-force'));
    assert.ok(named(report, 'www.disc.test')?.sources.includes('brute-force'));
    assert.deepEqual(named(report, 'dev-api.disc.test')?.sources, ['permutation']);
    assert.deepEqual(named(report, 'api2.disc.test')?.sources, ['permutation']);
    assert.equal(named(report, 'nothere.disc.test'), undefined);
    assert.equal(report.stats.bruteForceCandidates, 4);
    assert.ok(report.stats.permutationCandidates > 20);
    assert.equal(report.isWildcard, false);
    assert.deepEqual(report.gone, [], 'brute-force misses are not "gone"');
  });
});

describe('subdomain discovery: wildcard zones', () => {
  it('detects the wildcard and keeps only names whose answer differs from it', async () => {
    const report = await discoverSurface(
      deps({ wordList: ['www', 'mail', 'real', 'api', 'dev'] }),
      request({ root: 'wild.test', bruteForce: true }),
    );
    assert.equal(report.isWildcard, true);
    const wildcard = report.wildcards.find((w) => w.parent === 'wild.test');
    assert.deepEqual(wildcard?.addresses, ['127.0.0.9']);
    assert.ok((wildcard?.filtered ?? 0) >= 4, JSON.stringify(report.wildcards));
    assert.deepEqual(named(report, 'real.wild.test')?.addresses, ['127.0.0.10']);
    // Names under real.wild.test (which is not a wildcard) stay as they are.
    assert.ok(
      report.names.every(
        (n) => !n.addresses.includes('127.0.0.9') || n.sources.some((s) => s !== 'brute-force' && s !== 'permutation'),
      ),
      JSON.stringify(report.names),
    );
    assert.ok(report.names.length < 10, `the wildcard flooded the report: ${report.names.length} names`);
  });
});
