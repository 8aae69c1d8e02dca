import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addAsset } from '../../src/core/assets/asset.service.ts';
import type { Asset } from '../../src/core/assets/asset.types.ts';
import { legacyFindingCap } from '../../src/core/legacy/legacy-findings.service.ts';
import type { FindingInput } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { finding, scan, type ScanTarget } from '../support/findings.ts';
import { createHarness, testStore, v2Error, type Harness } from '../support/harness.ts';
import {
  ClientDomain,
  ClientError,
  ClientFinding,
  ClientFindingPage,
  ClientFullReport,
  ClientReport,
  ClientScanStatus,
  ClientSubdomain,
  ClientUuid,
  decode,
  decodeArray,
  type ClientFindingT,
} from '../support/legacy-client.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { startTargetSite, type TargetSites } from '../support/target-site.ts';
import { waitUntil } from '../support/test-jobs.ts';

const second = (iso: string) => Date.parse(iso) / 1000;
const titles = (list: ClientFindingT[]) => list.map((f) => f.title);
const T1 = '2026-03-01T10:00:00Z';
const T2 = '2026-03-01T11:00:00Z';
const T3 = '2026-03-01T12:00:00Z';

/** A finding with every part an old finding maps: CVSS, OWASP, references, details of several kinds. */
function richFinding(checkId: string, severity: FindingInput['severity'], score: number, host: string): FindingInput {
  return finding(checkId, {
    host,
    location: `https://${host}/${checkId}`,
    severity,
    cwe: 79,
    cvss: { cvss_3_1: { score, severity, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' } },
    owasp: [{ classification: 'A03', year: 2021 }],
    references: [{ link: 'https://owasp.org/Top10/A03_2021-Injection/', name: 'OWASP A03', source: 'owasp' }],
    request: {
      method: 'GET',
      url: `https://${host}/${checkId}?q=1`,
      body: '',
      headers: [{ name: 'accept', value: '*/*' }],
    },
    details: {
      text: [{ topic: 'Evidence', highlights: [], value: `evidence of ${checkId}` }],
      markdown: [{ topic: 'Remediation', highlights: [], value: '**Encode** output', fallback: 'Encode output' }],
    },
  });
}

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

describe(`older v2 endpoints: domains, findings and reports (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let sites: TargetSites;
  const dns = new TestDnsServer();
  let ipAsset: string;
  let example: Asset;
  let sub: Asset;
  const profiles: Record<'vulnerable' | 'safe', string> = { vulnerable: '', safe: '' };
  const send = (method: string, url: string, body?: unknown) =>
    h.send(method, url, body === undefined ? { key } : { key, body });
  const get = async (url: string, status = 200) => {
    const res = await send('GET', url);
    assert.equal(res.statusCode, status, `${url}: ${res.body}`);
    return res.body;
  };
  const error = async (url: string, status: number, expected: Record<string, unknown>) => {
    const res = await send('GET', url);
    assert.equal(res.statusCode, status, `${url}: ${res.body}`);
    assert.deepEqual(decode(ClientError, res.body), expected);
  };

  before(async () => {
    // Ownership checks of the names added here ask this local server (NXDOMAIN), never the network.
    await dns.start();
    h = await createHarness({ endpointValidationTimeoutMs: 3000, dnsResolvers: [dns.address] });
    key = (await h.team('legacy', { plan: 'enterprise' })).key;
    sites = await startTargetSite();
    ipAsset = (await send('POST', '/rest/v2/assets/', { name: '127.0.0.1' })).json().token;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'legacy');
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });

    // A domain with a subdomain asset, and findings on both recorded at three known times.
    const team = (await h.runtime.store.teams.findByName('legacy'))!;
    assert.equal((await send('POST', '/rest/v2/assets/', { name: 'example.com' })).statusCode, 200);
    assert.equal((await send('POST', '/rest/v2/assets/', { name: 'app.example.com' })).statusCode, 202);
    example = (await h.runtime.store.assets.findByName(team.id, 'example.com'))!;
    sub = (await h.runtime.store.assets.findByName(team.id, 'app.example.com'))!;
    const onRoot: ScanTarget = { team, asset: example };
    const onSub: ScanTarget = { team, asset: sub };
    await scan(h, onRoot, [richFinding('header', 'low', 3.1, 'example.com')], { at: new Date(T1) });
    await scan(
      h,
      onSub,
      [richFinding('xss', 'medium', 6.1, 'app.example.com'), richFinding('rce', 'critical', 9.8, 'app.example.com')],
      { at: new Date(T2) },
    );
    // A complete scan of the root that no longer sees `header`: it reads patched.
    await scan(h, onRoot, [richFinding('git', 'high', 7.5, 'example.com')], { at: new Date(T3) });
  });
  after(async () => {
    await h.close();
    await sites.stop();
    await dns.stop();
  });

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

  describe('domains', () => {
    it('lists the root assets as domains, bare and strictly typed', async () => {
      const domains = decodeArray(ClientDomain, await get('/rest/v2/domains/'));
      assert.deepEqual(
        domains.map((d) => d.name),
        ['127.0.0.1', 'example.com'],
      );
      const d = domains[1]!;
      assert.deepEqual(
        { ...d, created: '', updated: '' },
        {
          uuid: example.uuid,
          name: 'example.com',
          status: 'unverified',
          created: '',
          updated: '',
          token: example.token,
          monitored: false,
          owner: { name: 'legacy' },
        },
      );
      assert.equal(domains[0]!.status, 'verified');
    });

    it('adds a domain with the rules and errors of adding an asset', async () => {
      const res = await send('POST', '/rest/v2/domains/', { name: 'new.example.org' });
      assert.equal(res.statusCode, 200, res.body);
      const added = decode(ClientDomain, res.body);
      assert.equal(added.name, 'new.example.org');
      assert.equal(added.status, 'unverified');
      const again = await send('POST', '/rest/v2/domains/', { name: 'new.example.org' });
      assert.equal(again.statusCode, 409);
      assert.deepEqual(
        decode(ClientError, again.body),
        v2Error(2018, 'Asset already exists: the team has new.example.org already', ['name']),
      );
      const subdomain = await send('POST', '/rest/v2/domains/', { name: 'www.new.example.org' });
      assert.equal(subdomain.statusCode, 202);
      const { domain, ...rest } = subdomain.json();
      assert.deepEqual(
        rest,
        v2Error(
          2019,
          "Asset accepted as a subdomain of new.example.org, which is already a root asset; it appears in that domain's subdomains",
          ['name'],
        ),
      );
      assert.equal(decode(ClientDomain, JSON.stringify(domain)).name, 'www.new.example.org');
      const bad = await send('POST', '/rest/v2/domains/', { name: 'not a name' });
      assert.equal(bad.statusCode, 400);
      assert.equal(decode(ClientError, bad.body).code, 2012);
      const missing = await h.send('POST', '/rest/v2/domains/', {
        key,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(decode(ClientError, missing.body).code, 1050);
      assert.deepEqual(
        decodeArray(ClientDomain, await get('/rest/v2/domains/')).map((x) => x.name),
        ['127.0.0.1', 'example.com', 'new.example.org'],
      );
    });

    it('lists subdomains as a bare array', async () => {
      const subs = decodeArray(ClientSubdomain, await get(`/rest/v2/domains/${example.token}/subdomains/`));
      assert.deepEqual(
        subs.map((s) => [s.name, s.token]),
        [['app.example.com', sub.token]],
      );
      assert.deepEqual(decodeArray(ClientSubdomain, await get(`/rest/v2/domains/${sub.token}/subdomains/`)), []);
      await error(
        '/rest/v2/domains/xyz/subdomains/',
        400,
        v2Error(2011, 'Domain token malformed: a token is 32 lowercase hexadecimal characters', ['token']),
      );
      await error(
        `/rest/v2/domains/${'0'.repeat(32)}/subdomains/`,
        404,
        v2Error(2014, 'Asset does not exist', ['token']),
      );
    });
  });

  describe('findings of a domain', () => {
    const base = () => `/rest/v2/domains/${example.token}`;

    it('answers the findings of the domain and its subdomain assets as old findings', async () => {
      const list = decodeArray(ClientFinding, await get(`${base()}/findings/`));
      assert.deepEqual(titles(list), ['Title of header', 'Title of xss', 'Title of rce', 'Title of git']);
      const xss = list[1]!;
      assert.equal(xss.domain_token, example.token, 'a finding on a subdomain asset names its domain');
      assert.deepEqual(xss.target, { uuid: sub.uuid, type: 'domain', address: 'app.example.com' });
      assert.deepEqual([xss.start_timestamp, xss.end_timestamp, xss.timestamp], [T2, T2, T2]);
      assert.equal(xss.found_at, 'https://app.example.com/xss?q=1');
      assert.match(xss.url, /\/vulnerabilities\/[0-9a-f-]{36}$/);
      assert.match(xss.signature, /^[0-9a-f]{40}$/);
      assert.equal(xss.scan_profile_token, 'a'.repeat(32));
      assert.deepEqual(xss.owasp, [{ year: '2021', classification: 'A03' }]);
      assert.deepEqual(xss.score, [
        {
          version: '3.0',
          score: 6.1,
          vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
          severity: 'medium',
          from: 4,
          to: 6.9,
        },
        {
          version: '3.1',
          score: 6.1,
          vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
          severity: 'medium',
          from: 4,
          to: 6.9,
        },
      ]);
      assert.deepEqual(
        xss.details.map((d) => [d.type, d.name, d.value]),
        [
          ['cwe', 'CWE', 'CWE-79'],
          ['text', 'Evidence', 'evidence of xss'],
          ['markdown', 'Remediation', '**Encode** output'],
        ],
      );
      assert.equal(new Set(xss.details.map((d) => d.uuid)).size, 3);
      assert.deepEqual(
        xss.definition.references.map((r) => [r.link, r.name, r.source]),
        [['https://owasp.org/Top10/A03_2021-Injection/', 'OWASP A03', 'owasp']],
      );
      assert.deepEqual([xss.definition.description, xss.definition.risk], ['d', 'r']);
      assert.deepEqual(xss.tags, []);
      assert.deepEqual(list[0]!.tags, [{ type: 'status', value: 'patched' }], 'not seen by the last complete scan');
    });

    it('marks a finding fixed by hand with the patched status tag, and keeps team tags', async () => {
      const list = decodeArray(ClientFinding, await get(`${base()}/findings/`));
      const rce = list.find((f) => f.title === 'Title of rce')!;
      assert.equal(
        (
          await h.send('POST', `/rest/v2/vulnerabilities/uuid/${rce.uuid}/setfixedstatus/`, {
            key,
            headers: { 'content-type': 'application/json' },
          })
        ).statusCode,
        200,
      );
      assert.equal(
        (await send('POST', `/rest/v2/vulnerabilities/uuid/${rce.uuid}/tags/`, { name: 'release-42' })).statusCode,
        200,
      );
      const one = decode(ClientFinding, await get(`${base()}/findings/${rce.uuid}/`));
      assert.deepEqual(one.tags, [
        { type: 'status', value: 'patched' },
        { type: 'tag', value: 'release-42' },
      ]);
      assert.equal((await send('POST', `/rest/v2/vulnerabilities/uuid/${rce.uuid}/unsetfixedstatus/`)).statusCode, 200);
      assert.deepEqual(decode(ClientFinding, await get(`${base()}/findings/${rce.uuid}/`)).tags, [
        { type: 'tag', value: 'release-42' },
      ]);
    });

    it('filters by severity (high includes critical) and by from/to, inclusive Unix seconds', async () => {
      const q = async (query: string) => titles(decodeArray(ClientFinding, await get(`${base()}/findings/?${query}`)));
      assert.deepEqual(await q('severity=high'), ['Title of rce', 'Title of git']);
      assert.deepEqual(await q('severity=low,medium'), ['Title of header', 'Title of xss']);
      assert.deepEqual(await q('severity[]=information'), []);
      assert.deepEqual(await q(`from=${second(T2)}`), ['Title of xss', 'Title of rce', 'Title of git']);
      assert.deepEqual(await q(`to=${second(T2)}`), ['Title of header', 'Title of xss', 'Title of rce']);
      assert.deepEqual(await q(`from=${second(T2)}&to=${second(T2)}`), ['Title of xss', 'Title of rce']);
      assert.deepEqual(await q(`from=${second(T2) + 1}&to=${second(T3) - 1}`), []);
      assert.deepEqual(await q(`from=${second(T2)}&severity=high`), ['Title of rce', 'Title of git']);
      const uuids = decodeArray(ClientUuid, await get(`${base()}/findinguuids/?from=${second(T2)}&severity=medium`));
      assert.deepEqual(
        uuids,
        decodeArray(ClientFinding, await get(`${base()}/findings/?severity=medium`)).map((f) => f.uuid),
      );
    });

    it('validates from, to and severity with the catalogue codes', async () => {
      for (const path of ['findings/', 'findings/paginated/', 'findinguuids/']) {
        await error(
          `${base()}/${path}?from=soon`,
          400,
          v2Error(
            1085,
            'from must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "soon"',
            ['from'],
          ),
        );
        await error(
          `${base()}/${path}?to=12ab`,
          400,
          v2Error(
            1085,
            'to must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "12ab"',
            ['to'],
          ),
        );
        await error(
          `${base()}/${path}?from=200&to=100`,
          400,
          v2Error(
            4150,
            'from (1970-01-01T00:03:20.000Z) is after to (1970-01-01T00:01:40.000Z): both bounds are inclusive',
            ['from', 'to'],
          ),
        );
        await error(
          `${base()}/${path}?severity=urgent`,
          400,
          v2Error(4085, 'Severity malformed: "urgent" (allowed: high, medium, low, information)', ['severity']),
        );
      }
    });

    it('pages with next_marker or nextMarker, both absent on the last page', async () => {
      const all = decodeArray(ClientFinding, await get(`${base()}/findings/`));
      const seen: ClientFindingT[] = [];
      let url = `${base()}/findings/paginated/?pageSize=3`;
      let pages = 0;
      for (;;) {
        const page = decode(ClientFindingPage, await get(url));
        pages++;
        seen.push(...page.findings);
        if (page.next_marker === undefined) {
          assert.equal(page.nextMarker, undefined);
          assert.ok(!('nextMarker' in page) && !('next_marker' in page));
          break;
        }
        assert.equal(page.nextMarker, page.next_marker);
        // Clients read either spelling.
        url = `${base()}/findings/paginated/?pageSize=3&marker=${encodeURIComponent(pages % 2 === 1 ? page.nextMarker! : page.next_marker)}`;
      }
      assert.equal(pages, 2);
      assert.deepEqual(seen, all);
      const one = decode(ClientFindingPage, await get(`${base()}/findings/paginated/?severity=critical`));
      assert.deepEqual(titles(one.findings), ['Title of rce']);
      assert.equal(one.next_marker, undefined);
    });

    it('refuses a marker of another domain with 4150', async () => {
      const page = decode(ClientFindingPage, await get(`${base()}/findings/paginated/?pageSize=1`));
      await error(
        `/rest/v2/domains/${ipAsset}/findings/paginated/?marker=${encodeURIComponent(page.next_marker!)}`,
        400,
        v2Error(4150, 'marker is not a marker of this listing', ['marker']),
      );
      await error(
        `${base()}/findings/paginated/?marker=forged.marker`,
        400,
        v2Error(4150, 'marker is not a marker of this listing', ['marker']),
      );
    });

    it("reads one finding of the domain with complete details; another domain's answers 1900", async () => {
      const [first] = decodeArray(ClientFinding, await get(`${base()}/findings/`));
      const one = decode(ClientFinding, await get(`${base()}/findings/${first!.uuid}/`));
      assert.equal(one.uuid, first!.uuid);
      const other = decodeArray(ClientFinding, await get(`/rest/v2/domains/${ipAsset}/findings/`))[0]!;
      await error(
        `${base()}/findings/${other.uuid}/`,
        404,
        v2Error(1900, `Vulnerability ${other.uuid} does not exist on this domain`, ['uuid']),
      );
      await error(
        `${base()}/findings/nope/`,
        400,
        v2Error(4111, 'Vulnerability UUID malformed: expected a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e', [
          'uuid',
        ]),
      );
      const unknown = '0f8fad5b-d9cb-469f-a165-70867728950e';
      await error(
        `${base()}/findings/${unknown}/`,
        404,
        v2Error(1900, `Vulnerability ${unknown} does not exist`, ['uuid']),
      );
      // A subdomain asset's token reads its own findings only.
      assert.deepEqual(titles(decodeArray(ClientFinding, await get(`/rest/v2/domains/${sub.token}/findings/`))), [
        'Title of xss',
        'Title of rce',
      ]);
    });
  });

  describe('a large domain: the caps and many subdomain assets', () => {
    let bulk: Asset;
    before(async () => {
      const team = (await h.runtime.store.teams.findByName('legacy'))!;
      bulk = (await addAsset(h.runtime.store, team, 'bulk.example')).asset;
      // More subdomain assets than the per-asset index branches: the tree is read as a subquery.
      const subs: Asset[] = [];
      for (let i = 0; i < 31; i++) subs.push((await addAsset(h.runtime.store, team, `s${i}.bulk.example`)).asset);
      const many = Array.from({ length: legacyFindingCap + 1 }, (_, i) =>
        finding(`bulk-${i}`, { host: 'bulk.example', location: `https://bulk.example/p${i}` }),
      );
      await scan(h, { team, asset: bulk }, many, { at: new Date(T1) });
      await scan(h, { team, asset: subs[30]! }, [finding('on-the-last-subdomain', { host: 's30.bulk.example' })], {
        at: new Date(T2),
      });
    });

    it('caps the bare array at 1000 findings and says so in x-perimeter-truncated', async () => {
      const res = await send('GET', `/rest/v2/domains/${bulk.token}/findings/`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-perimeter-truncated'], 'true');
      assert.equal(decodeArray(ClientFinding, res.body).length, legacyFindingCap);
      const later = await send('GET', `/rest/v2/domains/${bulk.token}/findings/?from=${second(T2)}`);
      assert.equal(later.headers['x-perimeter-truncated'], undefined);
      assert.deepEqual(titles(decodeArray(ClientFinding, later.body)), ['Title of on-the-last-subdomain']);
    });

    it('gives every finding through the paginated read and the UUID list', async () => {
      const uuids = await send('GET', `/rest/v2/domains/${bulk.token}/findinguuids/`);
      assert.equal(uuids.headers['x-perimeter-truncated'], undefined);
      const all = decodeArray(ClientUuid, uuids.body);
      assert.equal(all.length, legacyFindingCap + 2);
      const paged: string[] = [];
      let marker = '';
      do {
        const page = decode(
          ClientFindingPage,
          await get(
            `/rest/v2/domains/${bulk.token}/findings/paginated/?page_size=100&marker=${encodeURIComponent(marker)}`,
          ),
        );
        paged.push(...page.findings.map((f) => f.uuid));
        marker = page.nextMarker ?? '';
      } while (marker !== '');
      assert.deepEqual(paged, all);
      assert.equal(new Set(paged).size, paged.length);
    });
  });

  it('lists every older operation in the OpenAPI document as deprecated', async () => {
    const doc = JSON.parse(await get('/rest/v2/openapi.json')) as {
      paths: Record<string, Record<string, { deprecated?: boolean }>>;
    };
    const legacyPaths = [
      '/domains/',
      '/domains/{domainToken}/subdomains/',
      '/domains/{domainToken}/findings/',
      '/domains/{domainToken}/findings/paginated/',
      '/domains/{domainToken}/findings/{uuid}/',
      '/domains/{domainToken}/findinguuids/',
      '/fullreports/{scanProfileToken}/latest/',
      '/reports/{scanProfileToken}/latest/',
      '/reports/{scanProfileToken}/',
      '/findings/{scanProfileToken}/',
      '/findings/{scanProfileToken}/{reportToken}/{uuid}/',
    ];
    for (const path of legacyPaths) {
      const operations = Object.values(doc.paths[path] ?? {});
      assert.ok(operations.length > 0, path);
      for (const op of operations) assert.equal(op.deprecated, true, path);
    }
    assert.equal(doc.paths['/domains/']!['post']!.deprecated, true);
    assert.equal(doc.paths['/assets/']!['get']!.deprecated, undefined, 'current operations are not deprecated');
  });
});
