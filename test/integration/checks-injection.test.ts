import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { injectionChecks, pathOf, scanTwins, summary } from '../support/fixture-scan.ts';
import type { VulnerableSites } from '../support/vulnerable-site/index.ts';

describe('injection checks on the vulnerable fixture site', () => {
  let sites: VulnerableSites;
  let vulnerable: { status: string; findings: FindingInput[] };
  let safe: { status: string; findings: FindingInput[] };
  before(async () => {
    ({ sites, vulnerable, safe } = await scanTwins());
  });
  after(() => sites.stop());

  it('finds every injection spot of the manifest, each once, with how it was confirmed', () => {
    assert.equal(vulnerable.status, 'completed');
    const spots = sites.manifest.filter((s) => s.class === 'injection');
    assert.ok(spots.length >= 10, `${spots.length} injection spots`);
    for (const spot of spots) {
      const found = vulnerable.findings.filter(
        (f) => f.checkId === spot.checkId && pathOf(f.location) === spot.location,
      );
      assert.equal(
        found.length,
        1,
        `${spot.id}: ${spot.checkId} at ${spot.location} (found: ${summary(vulnerable.findings).join(', ')})`,
      );
      const finding = found[0]!;
      assert.match(finding.details?.text?.[0]?.value ?? '', /Confirmed|canary/, `${spot.id} says how it was confirmed`);
      assert.ok(finding.cwe !== undefined && finding.cvss?.cvss_3_1 !== undefined && finding.owasp?.[0]?.year === 2021);
      assert.ok(finding.request !== undefined && finding.response !== undefined);
    }
    // Nothing else from the injection checks: every finding is a spot of the manifest.
    const expected = new Set(spots.map((s) => `${s.checkId} ${s.location}`));
    assert.deepEqual(
      summary(vulnerable.findings.filter((f) => injectionChecks.has(f.checkId))).filter((s) => !expected.has(s)),
      [],
    );
  });

  it('confirms time-based command injection twice against a fast control', () => {
    const timed = vulnerable.findings.find(
      (f) => f.checkId === 'command-injection' && pathOf(f.location) === '/tools/lookup?domain=',
    );
    assert.match(timed?.details?.text?.[0]?.value ?? '', /by timing, twice/);
  });

  it('reports nothing on the safe twin', () => {
    assert.equal(safe.status, 'completed');
    assert.deepEqual(summary(safe.findings.filter((f) => injectionChecks.has(f.checkId))), []);
  });

  it('never sends a request to the redirect canary or another host', () => {
    for (const server of [sites.vulnerable, sites.safe]) {
      for (const request of server.requests) assert.equal(request.headers.host, `127.0.0.1:${server.port}`);
    }
  });
});
