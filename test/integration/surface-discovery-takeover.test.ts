import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { discoverSurface, type DiscoveryReport } from '../../src/engine/discovery/surface-discovery.ts';
import { named, request, useDiscoveryServers } from '../support/surface-discovery-fixture.ts';

/**
 * Subdomain takeover tests: dangling CNAMEs, providers serving their unclaimed-resource page, and
 * delegations whose name servers are missing, refuse or do not host the zone. The servers (BIND 9,
 * HTTP(S) by Host header, a refusing name server on 127.0.0.2) are in
 * test/support/surface-discovery-fixture.ts.
 */

const { deps } = useDiscoveryServers();

describe('subdomain takeover tests', () => {
  let report: DiscoveryReport;
  before(async () => {
    report = await discoverSurface(
      deps(),
      request({
        scrape: false,
        takeoverTests: true,
        knownNames: [
          'dangling.disc.test',
          'kept.disc.test',
          'docs.disc.test',
          'wiki.disc.test',
          'good.disc.test',
          'lame.disc.test',
          'refusing.disc.test',
          'orphan.disc.test',
        ],
      }),
    );
  });
  const takeover = (name: string) => report.takeovers.find((t) => t.name === name);

  it('reports a CNAME whose target is NXDOMAIN, not one whose target resolves', () => {
    const dangling = takeover('dangling.disc.test');
    assert.equal(dangling?.kind, 'cname');
    assert.equal(dangling?.target, 'nowhere.cloud-host.test');
    assert.match(
      dangling?.evidence ?? '',
      /dangling\.disc\.test CNAME nowhere\.cloud-host\.test\.; nowhere\.cloud-host\.test: NXDOMAIN/,
    );
    assert.equal(takeover('kept.disc.test'), undefined);
    assert.deepEqual(named(report, 'kept.disc.test')?.cnames, ['app.cloud-host.test']);
  });

  it('reports a provider serving its unclaimed page for the name, not one serving content', () => {
    const docs = takeover('docs.disc.test');
    assert.equal(docs?.kind, 'cname');
    assert.equal(docs?.provider, 'Bitbucket');
    assert.equal(docs?.target, 'gone-repo.bitbucket.io');
    assert.match(docs?.evidence ?? '', /answered 404 with Bitbucket's unclaimed-resource page: "Repository not found"/);
    assert.equal(takeover('wiki.disc.test'), undefined);
  });

  it('reports delegations whose name servers are missing, refuse or do not host the zone, not a working one', () => {
    assert.equal(takeover('good.disc.test'), undefined);
    assert.deepEqual(named(report, 'good.disc.test')?.nameServers, ['ns1.disc.test']);
    const lame = takeover('lame.disc.test');
    assert.equal(lame?.kind, 'ns');
    assert.match(
      lame?.evidence ?? '',
      /ns1\.disc\.test \(127\.0\.0\.1\) answered without an authoritative SOA for lame\.disc\.test \(a referral\)/,
    );
    assert.match(
      takeover('refusing.disc.test')?.evidence ?? '',
      /ns-refuse\.disc\.test \(127\.0\.0\.2\) answered REFUSED for refusing\.disc\.test SOA/,
    );
    assert.match(takeover('orphan.disc.test')?.evidence ?? '', /ns-missing\.disc\.test: NXDOMAIN/);
    assert.deepEqual(
      report.takeovers.map((t) => t.name),
      ['dangling.disc.test', 'docs.disc.test', 'lame.disc.test', 'orphan.disc.test', 'refusing.disc.test'],
    );
  });
});
