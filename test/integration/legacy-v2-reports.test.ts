// The older v2 reports (fullreports, reports, findings of a scan profile) as a CI release gate reads
// them: a real scan of a vulnerable site and of its safe twin, reports listed by creation time, and
// the catalogue codes for bad profile, report and finding identifiers. The shared setup is in
// test/support/legacy-v2-fixture.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testStore, v2Error, type Harness } from '../support/harness.ts';
import {
  ClientFinding,
  ClientFullReport,
  ClientReport,
  ClientScanStatus,
  decode,
  decodeArray,
  type ClientFindingT,
} from '../support/legacy-client.ts';
import { LegacyV2Fixture, second } from '../support/legacy-v2-fixture.ts';
import type { TargetSites } from '../support/target-site.ts';
import { waitUntil } from '../support/test-jobs.ts';

/** The exposed .git HEAD finding (CWE-527) of a report. */
function gitFinding(findings: ClientFindingT[]): ClientFindingT {
  const git = findings.find((f) => f.details.some((d) => d.value === 'CWE-527'));
  assert.ok(git !== undefined, 'the .git exposure is reported');
  return git;
}

/** The highest CVSS 3.1 score among findings, 0 when none. */
function highestScore(findings: ClientFindingT[]): number {
  return Math.max(0, ...findings.flatMap((f) => f.score.filter((s) => s.version === '3.1').map((s) => s.score)));
}

/** The counts per severity add up to the findings listed. */
function assertCounts(report: {
  findings: ClientFindingT[];
  high_level_findings: number;
  medium_level_findings: number;
  low_level_findings: number;
  information_findings: number;
}): void {
  assert.equal(
    report.high_level_findings + report.medium_level_findings + report.low_level_findings + report.information_findings,
    report.findings.length,
  );
}

describe(`older v2 endpoints: reports (${testStore})`, () => {
  const fx = new LegacyV2Fixture();
  const { send, get, error } = fx;
  let h: Harness;
  let key: string;
  let sites: TargetSites;
  let ipAsset: string;
  const profiles: Record<'vulnerable' | 'safe', string> = { vulnerable: '', safe: '' };

  before(async () => {
    await fx.open();
    ({ h, key, sites, ipAsset } = fx);
  });
  after(() => fx.close());

  describe('reports: the release gate', () => {
    before(async () => {
      for (const name of ['vulnerable', 'safe'] as const) {
        const res = await send('POST', '/rest/v2/profiles/', {
          asset_token: ipAsset,
          endpoint: `127.0.0.1:${sites[name].port}`,
          name: `gate ${name}`,
        });
        assert.equal(res.statusCode, 200, res.body);
        profiles[name] = res.json().token;
      }
    });

    /** create profile → start scan → poll status until `state` reads stopped → full latest report. */
    async function gate(name: 'vulnerable' | 'safe') {
      const token = profiles[name];
      const started = await h.send('POST', `/rest/v2/scans/${token}/`, {
        key,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(started.statusCode, 202, started.body);
      await waitUntil(
        `the ${name} scan to read stopped`,
        async () => {
          const status = decode(ClientScanStatus, await get(`/rest/v2/scans/${token}/`));
          return status.state === 'stopped' ? status : undefined;
        },
        30_000,
      );
      return decode(ClientFullReport, await get(`/rest/v2/fullreports/${token}/latest/`));
    }

    it('answers 2604 (404) for the reports of a profile never scanned', async () => {
      const none = v2Error(
        2604,
        'Scan profile has no report yet: a report is written when a scan of the profile ends',
        ['scanProfileToken'],
      );
      await error(`/rest/v2/fullreports/${profiles.vulnerable}/latest/`, 404, none);
      await error(`/rest/v2/reports/${profiles.vulnerable}/latest/`, 404, none);
      await error(`/rest/v2/findings/${profiles.vulnerable}/`, 404, none);
      assert.deepEqual(decodeArray(ClientReport, await get(`/rest/v2/reports/${profiles.vulnerable}/`)), []);
    });

    it('fails the vulnerable site: cvss above 0, its findings, counts that add up', async () => {
      const report = await gate('vulnerable');
      // Scanner checks come and go; what holds for any check set: the .git exposure (CVSS 3.1
      // 7.5) is among the findings, and cvss is the highest 3.1 score of the report's findings.
      const git = gitFinding(report.findings);
      assert.deepEqual(
        git.score.find((s) => s.version === '3.1'),
        {
          version: '3.1',
          score: 7.5,
          vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
          severity: 'high',
          from: 7,
          to: 8.9,
        },
      );
      assert.equal(report.cvss, highestScore(report.findings));
      assert.ok(report.cvss >= 7.5, 'a gate at 7.0 fails this release');
      assert.equal(report.scan_profile_token, profiles.vulnerable);
      assert.equal(report.scan_profile_name, 'gate vulnerable');
      assert.equal(report.endpoint, `127.0.0.1:${sites.vulnerable.port}`);
      assert.ok(report.created <= report.started && report.started <= report.stopped);
      assert.match(report.url, new RegExp(`/rest/v2/reports/${profiles.vulnerable}/\\?from=\\d+&to=\\d+$`));
      assertCounts(report);
      assert.ok(report.high_level_findings >= 1);
      for (const cwe of ['CWE-79', 'CWE-527', 'CWE-548'])
        assert.ok(
          report.findings.some((f) => f.details.some((d) => d.value === cwe)),
          cwe,
        );
      for (const f of report.findings) {
        assert.equal(f.scan_profile_token, profiles.vulnerable);
        assert.equal(f.domain_token, ipAsset);
        assert.deepEqual([f.target.type, f.target.address], ['ip', '127.0.0.1']);
        assert.ok(f.found_at.startsWith(`http://127.0.0.1:${sites.vulnerable.port}/`), f.found_at);
        assert.equal(f.regression_uuid, f.uuid);
        assert.ok(
          f.score.some((s) => s.version === '3.1' && s.vector.startsWith('CVSS:3.1/')),
          f.title,
        );
        assert.ok(
          f.owasp.every((o) => /^\d{4}$/.test(o.year)),
          'year is a string of four digits',
        );
        assert.deepEqual(f.tags, []);
      }

      // The same report through the other reads.
      const { findings, ...summary } = report;
      assert.deepEqual(decode(ClientReport, await get(`/rest/v2/reports/${profiles.vulnerable}/latest/`)), summary);
      assert.deepEqual(decodeArray(ClientReport, await get(`/rest/v2/reports/${profiles.vulnerable}/`)), [summary]);
      const listed = decodeArray(ClientFinding, await get(`/rest/v2/findings/${profiles.vulnerable}/`));
      assert.deepEqual(listed, findings);
      const high = decodeArray(ClientFinding, await get(`/rest/v2/findings/${profiles.vulnerable}/?severity=high`));
      assert.equal(high.length, report.high_level_findings);
      assert.ok(high.some((f) => f.uuid === git.uuid));
      const one = decode(
        ClientFinding,
        await get(`/rest/v2/findings/${profiles.vulnerable}/${report.token}/${git.uuid}/`),
      );
      assert.equal(one.uuid, git.uuid);
      assert.deepEqual(one.score, git.score);
    });

    it("passes the safe twin: below the gate, none of the vulnerable site's flaws", async (t) => {
      const report = await gate('safe');
      t.diagnostic(
        `the safe twin's report: cvss ${report.cvss}, findings: ${report.findings.map((f) => f.title).join('; ') || 'none'}`,
      );
      assertCounts(report);
      assert.equal(
        report.cvss,
        highestScore(report.findings),
        'cvss is the highest score of its findings, 0 when none',
      );
      assert.ok(report.cvss < 7, 'a gate at 7.0 passes this release');
      for (const cwe of ['CWE-79', 'CWE-527', 'CWE-548'])
        assert.ok(!report.findings.some((f) => f.details.some((d) => d.value === cwe)), cwe);
      assert.deepEqual(decodeArray(ClientFinding, await get(`/rest/v2/findings/${profiles.safe}/`)), report.findings);
    });

    it('lists reports newest first, bounded by creation (from/to, inclusive); an older report keeps what it saw', async () => {
      const t = profiles.vulnerable;
      const first = decode(ClientFullReport, await get(`/rest/v2/fullreports/${t}/latest/`));
      const git = gitFinding(first.findings);
      sites.harden('/.git/HEAD');
      assert.equal((await send('POST', `/rest/v2/scans/${t}/`)).statusCode, 202);
      await waitUntil(
        'the rescan to read stopped',
        async () =>
          decode(ClientScanStatus, await get(`/rest/v2/scans/${t}/`)).state === 'stopped' ? true : undefined,
        30_000,
      );
      const rescan = decode(ClientFullReport, await get(`/rest/v2/fullreports/${t}/latest/`));
      assert.notEqual(rescan.token, first.token);
      assert.ok(!rescan.findings.some((f) => f.uuid === git.uuid), 'the .git exposure is fixed');
      assert.equal(rescan.cvss, highestScore(rescan.findings));
      assertCounts(rescan);

      const { findings: _, ...latest } = rescan;
      assert.deepEqual(
        decodeArray(ClientReport, await get(`/rest/v2/reports/${t}/`)).map((r) => r.token),
        [rescan.token, first.token],
      );
      const at = second(first.created);
      const around = decodeArray(ClientReport, await get(`/rest/v2/reports/${t}/?from=${at}&to=${at}`));
      assert.ok(around.some((r) => r.token === first.token));
      assert.ok(around.every((r) => second(r.created) === at));
      assert.deepEqual(decodeArray(ClientReport, await get(`/rest/v2/reports/${t}/?to=${at - 1}`)), []);
      assert.deepEqual(
        decodeArray(ClientReport, await get(`/rest/v2/reports/${t}/?from=${second(rescan.created)}`))[0],
        latest,
      );

      // The first report still has the .git finding; the rescan patched it, so it carries the status tag.
      const patched = decode(ClientFinding, await get(`/rest/v2/findings/${t}/${first.token}/${git.uuid}/`));
      assert.deepEqual(patched.tags, [{ type: 'status', value: 'patched' }]);
      await error(
        `/rest/v2/findings/${t}/${rescan.token}/${git.uuid}/`,
        404,
        v2Error(1900, `Vulnerability ${git.uuid} is not a finding of this report`, ['uuid']),
      );
    });

    it('answers the catalogue codes for bad profile, report and finding identifiers', async () => {
      const t = profiles.vulnerable;
      const report = decode(ClientReport, await get(`/rest/v2/reports/${t}/latest/`)).token;
      const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
      await error(
        '/rest/v2/fullreports/nope/latest/',
        400,
        v2Error(2601, 'Scan profile token malformed: a token is 32 lowercase hexadecimal characters', [
          'scanProfileToken',
        ]),
      );
      await error(
        `/rest/v2/reports/${'0'.repeat(32)}/`,
        404,
        v2Error(2604, 'Scan profile does not exist', ['scanProfileToken']),
      );
      await error(
        `/rest/v2/findings/${t}/not-a-report/${uuid}/`,
        400,
        v2Error(2601, 'Report token malformed: a token is 32 lowercase hexadecimal characters', ['reportToken']),
      );
      await error(
        `/rest/v2/findings/${t}/${'0'.repeat(32)}/${uuid}/`,
        404,
        v2Error(2604, 'Report does not exist for this scan profile', ['reportToken']),
      );
      await error(
        `/rest/v2/findings/${profiles.safe}/${report}/${uuid}/`,
        404,
        v2Error(2604, 'Report does not exist for this scan profile', ['reportToken']),
      );
      await error(
        `/rest/v2/findings/${t}/${report}/not-a-uuid/`,
        400,
        v2Error(4111, 'Vulnerability UUID malformed: expected a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e', [
          'uuid',
        ]),
      );
      await error(
        `/rest/v2/findings/${t}/${report}/${uuid}/`,
        404,
        v2Error(1900, `Vulnerability ${uuid} does not exist`, ['uuid']),
      );
      await error(
        `/rest/v2/reports/${t}/?from=yesterday`,
        400,
        v2Error(
          1085,
          'from must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "yesterday"',
          ['from'],
        ),
      );
      await error(
        `/rest/v2/findings/${t}/?severity=urgent`,
        400,
        v2Error(4085, 'Severity malformed: "urgent" (allowed: high, medium, low, information)', ['severity']),
      );
    });
  });
});
