import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ScanSink } from '../../src/core/scans/scan-engine.ts';
import { defaultScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { createDnsResolver } from '../../src/engine/dns/resolver.ts';
import { createHttpScanEngine } from '../../src/engine/http-scan/http-scan-engine.ts';
import { EgressGuard } from '../../src/engine/net/egress-guard.ts';
import { fixtureScanLimits, pathOf, summary } from '../support/fixture-scan.ts';
import type { TargetServer } from '../support/target-site.ts';
import { formsModule, formsRequestsOf } from '../support/vulnerable-site/forms.ts';
import { startVulnerableSites, type VulnerableSites } from '../support/vulnerable-site/index.ts';

// Every target is 127.0.0.1: the system resolver is never asked and nothing leaves the machine.
const engine = createHttpScanEngine({
  guard: new EgressGuard(['127.0.0.0/8']),
  resolver: createDnsResolver(['127.0.0.1:9']),
});

/** The checks the forms module's spots belong to. */
const formChecks = new Set(formsModule.spots.map((s) => s.checkId));

/** Scans one twin, crawling only /forms (the home page aside): the other modules have their own tests. */
async function scanForms(server: TargetServer): Promise<{ status: string; findings: FindingInput[] }> {
  const findings: FindingInput[] = [];
  const sink: ScanSink = {
    finding: async (f) => void findings.push(f),
    progress: () => undefined,
    warning: () => undefined,
  };
  const outcome = await engine.scan(
    { scheme: server.scheme, host: '127.0.0.1', port: server.port, scopeName: '127.0.0.1' },
    { ...defaultScanProfileSettings, whitelisted_paths: ['/forms'] },
    fixtureScanLimits,
    sink,
    new AbortController().signal,
  );
  return { status: outcome.status, findings };
}

describe('forms submitted as a browser sends them, on the vulnerable fixture site', () => {
  let sites: VulnerableSites;
  let vulnerable: { status: string; findings: FindingInput[] };
  let safe: { status: string; findings: FindingInput[] };
  before(async () => {
    sites = await startVulnerableSites();
    [vulnerable, safe] = await Promise.all([scanForms(sites.vulnerable), scanForms(sites.safe)]);
  });
  after(() => sites.stop());

  it('finds every spot of the forms module, each once, and nothing else there', () => {
    assert.equal(vulnerable.status, 'completed');
    assert.ok(formsModule.spots.length >= 8);
    for (const spot of formsModule.spots) {
      const found = vulnerable.findings.filter(
        (f) => f.checkId === spot.checkId && pathOf(f.location) === spot.location,
      );
      assert.equal(
        found.length,
        1,
        `${spot.id}: ${spot.checkId} at ${spot.location} (found: ${summary(vulnerable.findings).join(', ')})`,
      );
      assert.ok(found[0]!.request !== undefined && found[0]!.response !== undefined);
    }
    const expected = new Set(formsModule.spots.map((s) => `${s.checkId} ${s.location}`));
    assert.deepEqual(
      summary(vulnerable.findings.filter((f) => formChecks.has(f.checkId))).filter((s) => !expected.has(s)),
      [],
    );
  });

  it('sends the clicked button, the selected option, the hidden fields and the file part', () => {
    const sent = formsRequestsOf(sites.vulnerable.port);
    const has = (pattern: RegExp): boolean => sent.some((r) => pattern.test(r));
    assert.ok(has(/^POST \/forms\/sqli [^ ]*\bSubmit=Submit\b/), 'the Submit button of a POST form');
    assert.ok(
      has(/^GET \/forms\/export\?[^ ]*\bformat=xml\b[^ ]*\bgo=Export\b/),
      'the selected option and a GET button',
    );
    assert.ok(has(/^POST \/forms\/note [^ ]*\buser_token=5f1c0a9e7b3d42c8&draft=&note=Remember\+the\+milk&save=Save$/));
    assert.ok(has(/^POST \/forms\/report [^ ]*\bpublish=1\b/), 'the second button');
    assert.ok(has(/^POST \/forms\/search-advanced [^ ]*\badvanced=1\b/), 'formaction and formmethod');
    assert.ok(has(/^POST \/forms\/upload [^]*filename="perimeter\.txt"\r\nContent-Type: text\/plain/), 'the file part');
  });

  it('never clicks a button that clears data', () => {
    assert.deepEqual(
      formsRequestsOf(sites.vulnerable.port).filter((r) => r.includes('btnClear')),
      [],
    );
  });

  it('reports nothing on the safe twin', () => {
    assert.equal(safe.status, 'completed');
    // No check at all reports anything on the forms' paths of the safe twin.
    assert.deepEqual(summary(safe.findings.filter((f) => pathOf(f.location).startsWith('/forms/'))), []);
  });
});
