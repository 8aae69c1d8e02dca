import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { createHarness, testStore, v2Error, type Harness } from '../support/harness.ts';
import { startGeneratedSite, startTargetSite, type TargetServer, type TargetSites } from '../support/target-site.ts';
import { waitUntil } from '../support/test-jobs.ts';

interface Vuln {
  uuid: string;
  title: string;
  status: string;
  scan_source: string;
  scan_profile_token: string;
  cwe: number;
  cvss_scores: { cvss_3_1?: { score: number; vector: string } };
  owasp: Array<{ classification: string }>;
  request?: { method: string; url: string };
  response?: { status_code: number; body: string };
  definition: { description: string };
}

describe(`scans run end to end on the worker (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let sites: TargetSites;
  let slow: TargetServer;
  let assetToken: string;
  const profiles: Record<string, string> = {};

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 3000 });
    key = (await h.team('scanning', { plan: 'enterprise' })).key;
    sites = await startTargetSite();
    slow = await startGeneratedSite(400);
    assetToken = (await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } })).json().token;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'scanning');
    for (const [name, site] of [
      ['vulnerable', sites.vulnerable],
      ['safe', sites.safe],
      ['slow', slow],
    ] as const) {
      const res = await h.send('POST', '/rest/v2/profiles/', {
        key,
        body: { asset_token: assetToken, endpoint: `127.0.0.1:${site.port}`, name },
      });
      assert.equal(res.statusCode, 200, res.body);
      profiles[name] = res.json().token;
    }
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
  });
  after(async () => {
    await h.close();
    await sites.stop();
    await slow.stop();
  });

  const status = async (name: string) => (await h.send('GET', `/rest/v2/scans/${profiles[name]}/`, { key })).json();
  const finished = (name: string) =>
    waitUntil(
      `the ${name} scan to finish`,
      async () => {
        const s = await status(name);
        return ['starting', 'running', 'stopping'].includes(s.status) ? undefined : s;
      },
      30_000,
    );
  const vulnerabilitiesOf = async (name: string): Promise<Vuln[]> =>
    (
      await h.send('GET', `/rest/v2/vulnerabilities/?pageSize=100&scan_profile_token[]=${profiles[name]}`, { key })
    ).json().vulnerabilities;

  it('answers 5004 for the status of a profile never scanned and for stopping when nothing runs', async () => {
    assert.deepEqual(
      (await h.send('GET', `/rest/v2/scans/${profiles['vulnerable']}/`, { key })).json(),
      v2Error(5004, 'No scan on the scan profile yet: start one first', ['scanProfileToken']),
    );
    const stop = await h.send('DELETE', `/rest/v2/scans/${profiles['vulnerable']}/`, { key });
    assert.equal(stop.statusCode, 404);
    assert.deepEqual(stop.json(), v2Error(5004, 'No scan running on the scan profile', ['scanProfileToken']));
  });

  it('starts with 202, refuses a second start with 5009, and finds every first check on the vulnerable site', async () => {
    const started = await h.send('POST', `/rest/v2/scans/${profiles['vulnerable']}/`, {
      key,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(started.statusCode, 202, started.body);
    assert.equal(started.json().status, 'starting');
    assert.equal(started.json().state, 'starting');
    assert.equal(started.json().scan_profile_token, profiles['vulnerable']);
    const again = await h.send('POST', `/rest/v2/scans/${profiles['vulnerable']}/`, { key });
    if (again.statusCode !== 409) assert.fail(`expected 5009 while the first scan is live, got ${again.body}`);
    assert.deepEqual(
      again.json(),
      v2Error(5009, 'Scan already running on the scan profile: stop it or wait until it ends', ['scanProfileToken']),
    );

    const done = await finished('vulnerable');
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.state, 'stopped');
    assert.equal(done.phase, 'finished');
    assert.equal(done.error, '');
    assert.ok(done.started && done.ended);
    assert.ok(done.progress.pages_crawled >= 8, JSON.stringify(done.progress));
    assert.ok(done.progress.requests_sent >= done.progress.pages_crawled);
    // The first five checks' 8, plus a missing Referrer-Policy and a frameable POST form (clickjacking).
    assert.equal(done.progress.findings, 10);

    const vulns = await vulnerabilitiesOf('vulnerable');
    const titles = vulns.map((v) => v.title).sort();
    assert.equal(vulns.length, 10, titles.join('\n'));
    for (const v of vulns) {
      assert.equal(v.scan_source, 'application-scanning');
      assert.equal(v.scan_profile_token, profiles['vulnerable']);
      assert.equal(v.status, 'new');
      assert.ok(v.cwe > 0, v.title);
      assert.match(v.cvss_scores.cvss_3_1?.vector ?? '', /^CVSS:3\.1\/AV:/, v.title);
      assert.ok(v.owasp.length > 0 && v.definition.description.length > 0, v.title);
      assert.ok(v.request?.url.startsWith(`http://127.0.0.1:${sites.vulnerable.port}/`), v.title);
      assert.ok(typeof v.response?.status_code === 'number', v.title);
    }
    const cwes = new Set(vulns.map((v) => v.cwe));
    for (const cwe of [79, 527, 548]) assert.ok(cwes.has(cwe), `CWE-${cwe} found: ${[...cwes].join(',')}`);
    const listing = (await h.send('GET', `/rest/v2/profiles/${assetToken}/`, { key }))
      .json()
      .find((p: { token: string }) => p.token === profiles['vulnerable']);
    assert.equal(listing.latest_scan.status, 'completed');
  });

  it('writes a report: counts per severity, highest CVSS, the findings it saw', async () => {
    const team = (await h.runtime.store.teams.findByName('scanning'))!;
    const profile = (await h.runtime.store.scanProfiles.findByToken(team.id, profiles['vulnerable']!))!;
    const scan = (await h.runtime.store.scans.latestOf(team.id, [profile.id])).get(profile.id)!;
    assert.equal(scan.status, 'completed');
    assert.equal(
      Object.values(scan.counts).reduce((a, b) => a + b, 0),
      10,
    );
    assert.equal(scan.highestCvss, 7.5);
    assert.equal(scan.counts.high, 1);
    assert.equal(scan.endpoint, `127.0.0.1:${sites.vulnerable.port}`);
  });

  it('reports nothing on the safe twin', async () => {
    assert.equal((await h.send('POST', `/rest/v2/scans/${profiles['safe']}/`, { key })).statusCode, 202);
    const done = await finished('safe');
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.progress.findings, 0);
    assert.deepEqual(await vulnerabilitiesOf('safe'), []);
  });

  it('a rescan keeps the same vulnerabilities (active); what it no longer sees becomes patched', async () => {
    sites.harden('/.git/HEAD');
    const before = await vulnerabilitiesOf('vulnerable');
    assert.equal((await h.send('POST', `/rest/v2/scans/${profiles['vulnerable']}/`, { key })).statusCode, 202);
    assert.equal((await finished('vulnerable')).status, 'completed');
    const after = await vulnerabilitiesOf('vulnerable');
    assert.deepEqual(after.map((v) => v.uuid).sort(), before.map((v) => v.uuid).sort(), 'no twins');
    const git = after.find((v) => v.cwe === 527)!;
    assert.equal(git.status, 'patched');
    assert.ok(after.filter((v) => v.cwe !== 527).every((v) => v.status === 'active'));
  });

  it('stops a running scan within 5 s on DELETE (202); a stopped scan patches nothing', async () => {
    await h.send('PUT', `/rest/v2/profiles/${profiles['slow']}/settings/`, { key, body: { requests_per_second: 5 } });
    assert.equal((await h.send('POST', `/rest/v2/scans/${profiles['slow']}/`, { key })).statusCode, 202);
    await waitUntil('the slow scan to run', async () =>
      (await status('slow')).status === 'running' ? true : undefined,
    );
    const stopAsked = Date.now();
    const stop = await h.send('DELETE', `/rest/v2/scans/${profiles['slow']}/`, { key });
    assert.equal(stop.statusCode, 202);
    assert.ok(['stopping', 'stopped'].includes(stop.json().status));
    const done = await finished('slow');
    assert.equal(done.status, 'stopped');
    assert.ok(Date.now() - stopAsked < 5000, `stopped after ${Date.now() - stopAsked} ms`);
    const countAtStop = slow.requests.length;
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(slow.requests.length, countAtStop, 'no request after the stop');
    // Restartable at once; and a stop of a queued scan ends it at once.
    assert.equal((await h.send('POST', `/rest/v2/scans/${profiles['slow']}/`, { key })).statusCode, 202);
    assert.equal((await h.send('DELETE', `/rest/v2/scans/${profiles['slow']}/`, { key })).statusCode, 202);
    assert.equal((await finished('slow')).status, 'stopped');
    const missingHeaders = (await vulnerabilitiesOf('slow')).filter((v) => v.status === 'patched');
    assert.deepEqual(missingHeaders, []);
  });

  it('answers 2021 (423) when the asset is no longer verified and 2616 (423) when the profile is deactivated', async () => {
    await h.admin('profile', 'deactivate', profiles['safe']!, '--team', 'scanning');
    const deactivated = await h.send('POST', `/rest/v2/scans/${profiles['safe']}/`, { key });
    assert.equal(deactivated.statusCode, 423);
    assert.deepEqual(
      deactivated.json(),
      v2Error(2616, 'Scan profile deactivated: it cannot be scanned until an operator activates it', [
        'scanProfileToken',
      ]),
    );
    await h.admin('profile', 'activate', profiles['safe']!, '--team', 'scanning');
    await h.runtime.database.db
      .updateTable('assets')
      .set({ status: 'unverified' })
      .where('name', '=', '127.0.0.1')
      .execute();
    const unverified = await h.send('POST', `/rest/v2/scans/${profiles['safe']}/`, { key });
    assert.equal(unverified.statusCode, 423);
    assert.equal(unverified.json().code, 2021);
    await h.runtime.database.db
      .updateTable('assets')
      .set({ status: 'verified' })
      .where('name', '=', '127.0.0.1')
      .execute();
  });
});
