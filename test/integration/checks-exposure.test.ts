import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { maxBackupPathsPerOrigin } from '../../src/engine/http-scan/checks/backup-files.check.ts';
import { maxScriptsPerOrigin } from '../../src/engine/http-scan/checks/source-map.check.ts';
import { fixtureScanLimits, pathOf as pathOfLocation, scanFixture } from '../support/fixture-scan.ts';
import { startVulnerableSites, type VulnerableSites } from '../support/vulnerable-site/index.ts';

const limits = { ...fixtureScanLimits, maxDurationMs: 60_000, requestTimeoutMs: 5000 };

const EXPOSURE_CHECKS = new Set([
  'exposed-git',
  'directory-listing',
  'exposed-svn',
  'exposed-env-file',
  'backup-files',
  'phpinfo',
  'server-status',
  'stack-trace',
  'source-map',
  'secrets-in-javascript',
  'default-page',
]);
const CWE: Record<string, number> = {
  'exposed-git': 527,
  'directory-listing': 548,
  'exposed-svn': 527,
  'exposed-env-file': 538,
  'backup-files': 530,
  phpinfo: 497,
  'server-status': 497,
  'stack-trace': 209,
  'source-map': 540,
  'secrets-in-javascript': 798,
  'default-page': 1188,
};

const scan = (server: Parameters<typeof scanFixture>[0]) => scanFixture(server, limits);
const pathOf = (finding: FindingInput): string => pathOfLocation(finding.location);
const exposureFindings = (findings: FindingInput[]): FindingInput[] =>
  findings.filter((f) => EXPOSURE_CHECKS.has(f.checkId));

describe('exposure checks on the vulnerable fixture site', () => {
  let sites: VulnerableSites;
  let vulnerable: FindingInput[];
  before(async () => {
    sites = await startVulnerableSites();
    const result = await scan(sites.vulnerable);
    assert.equal(result.status, 'completed', result.warnings.join('\n'));
    vulnerable = exposureFindings(result.findings);
  });
  after(() => sites.stop());

  it('finds every exposure spot of the manifest, once, with evidence, CWE and CVSS', () => {
    const spots = sites.manifest.filter((s) => s.class === 'exposure');
    assert.ok(spots.length >= 12, `${spots.length} spots`);
    const seen = vulnerable.map((f) => `${f.checkId} ${pathOf(f)}`);
    assert.equal(new Set(seen).size, seen.length, `no finding twice:\n${seen.sort().join('\n')}`);
    const missing = spots
      .filter((s) => !seen.includes(`${s.checkId} ${s.location}`))
      .map((s) => `${s.id} (${s.checkId} ${s.location})`);
    assert.deepEqual(missing, [], `found:\n${seen.sort().join('\n')}`);
    for (const spot of spots) {
      const finding = vulnerable.find((f) => f.checkId === spot.checkId && pathOf(f) === spot.location)!;
      assert.equal(finding.cwe, CWE[spot.checkId], spot.id);
      const cvss = finding.cvss?.cvss_3_1;
      assert.ok(cvss !== undefined && cvss.score > 0 && cvss.vector.startsWith('CVSS:3.1/AV:N/'), spot.id);
      assert.equal(finding.severityV3, cvss.severity, spot.id);
      assert.deepEqual(finding.owasp, [{ classification: 'A05:2021-Security Misconfiguration', year: 2021 }]);
      assert.ok((finding.details?.markdown?.[0]?.value ?? '').length > 0, `${spot.id}: remediation`);
      assert.ok(finding.response !== undefined && finding.request !== undefined, `${spot.id}: the exchange`);
      const highlight = finding.details?.text?.[0]?.highlights.find((h) => h.field === 'response.body');
      assert.ok(highlight !== undefined && highlight.length > 0, `${spot.id}: a highlight`);
      assert.equal(
        finding.response.body.slice(highlight.offset, highlight.offset + highlight.length),
        highlight.value,
        `${spot.id}: the highlight points at the evidence`,
      );
    }
  });

  it('records credentials masked', () => {
    const config = vulnerable.find((f) => f.checkId === 'secrets-in-javascript' && pathOf(f) === '/bundles/config.js')!;
    assert.equal(config.severity, 'high');
    assert.equal(config.cvss?.cvss_3_1?.score, 7.5);
    const text = `${config.details?.text?.[0]?.value ?? ''} ${config.response?.body ?? ''}`;
    assert.match(text, /AKIA\*{12}[0-9A-Z]{4}/);
    assert.doesNotMatch(text, /AKIA[0-9A-Z]{16}/);
    assert.doesNotMatch(text, /sk_live_[0-9A-Za-z]{12}/);
    const maps = vulnerable.find((f) => pathOf(f) === '/bundles/maps.js')!;
    assert.equal(maps.severity, 'medium', 'a Google browser key is a lesser finding');
    const key = vulnerable.find((f) => pathOf(f) === '/bundles/deploy.js')!;
    assert.match(key.response?.body ?? '', /-----BEGIN RSA PRIVATE KEY-----(\\n|\*)+/);
    const env = vulnerable.find((f) => pathOf(f) === '/.env')!;
    assert.match(env.response?.body ?? '', /DB_PASSWORD=\*{12}\n/);
    assert.match(env.response?.body ?? '', /DB_HOST=db\.internal/);
  });

  it('probes backup names once per crawled file and judges them against a random sibling', () => {
    const requested = sites.vulnerable.requests.map((r) => r.path);
    for (const name of ['product.php.bak', 'product.php~', '.product.php.swp', 'product.php.old', 'product.php.orig']) {
      assert.equal(requested.filter((p) => p === `/legacy/${name}`).length, 1, name);
    }
    // /backoffice/ answers 200 for every name: only the real .orig is reported there.
    assert.deepEqual(vulnerable.filter((f) => pathOf(f).startsWith('/backoffice/')).map(pathOf), [
      '/backoffice/settings.php.orig',
    ]);
    assert.ok(
      requested.some((p) => /^\/backoffice\/prmtr[0-9a-f]{12}\.php\.bak$/.test(p)),
      'a baseline of the same shape was requested',
    );
  });
});

describe('exposure checks on the safe twin', () => {
  let sites: VulnerableSites;
  before(async () => {
    sites = await startVulnerableSites();
  });
  after(() => sites.stop());

  it('reports nothing, although every probe ran against it (soft-404s included)', async () => {
    const result = await scan(sites.safe);
    assert.equal(result.status, 'completed');
    assert.deepEqual(
      exposureFindings(result.findings).map((f) => `${f.checkId} ${pathOf(f)}`),
      [],
    );
    const requested = sites.safe.requests.map((r) => r.path);
    for (const path of [
      '/.svn/wc.db',
      '/.svn/entries',
      '/.env',
      '/.env.local',
      '/.env.production',
      '/phpinfo.php',
      '/info.php',
      '/server-status',
      '/server-info',
      '/index.nginx-debian.html',
      '/iisstart.htm',
      '/config.php.bak',
      '/legacy/product.php.bak',
      '/legacy/.search.php.swp',
      '/backoffice/settings.php.orig',
      '/bundles/vendor.js.map',
      '/bundles/app.bundle.js.map',
    ]) {
      assert.ok(requested.includes(path), `${path} was probed`);
    }
  });

  it('keeps its probes bounded: each probe path requested once per scan', async () => {
    const before = sites.safe.requests.length;
    await scan(sites.safe);
    const paths = sites.safe.requests.slice(before).map((r) => r.path);
    const probes = paths.filter((p) =>
      /^\/(?:\.svn|\.env|phpinfo\.php|info\.php|server-(?:status|info))|\.(?:bak|old|orig|swp|map)$|~$/.test(p),
    );
    assert.equal(new Set(probes).size, probes.length, probes.join('\n'));
    // The documented bound: 9 fixed paths, 5 names and at most 5 baselines per backup path, one map per script.
    assert.ok(
      probes.length <= 9 + maxBackupPathsPerOrigin * 10 + maxScriptsPerOrigin,
      `${probes.length} probe requests`,
    );
  });
});
