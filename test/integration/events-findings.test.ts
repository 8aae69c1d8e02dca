import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventKind, EventRecord } from '../../src/core/events/event.types.ts';
import { runScan, ScanInterruptedError, type RunOutcome } from '../../src/core/scans/scan-runner.service.ts';
import { createLiveScan } from '../../src/core/scans/scan.service.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { assertCatalogued, eventsOf } from '../support/events.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';
import { startGeneratedSite, type TargetServer } from '../support/target-site.ts';
import { waitUntil } from '../support/test-jobs.ts';

interface Vuln {
  uuid: string;
  title: string;
  status: string;
  severity: string;
  host: string;
  asset: { token: string; name: string };
  links: { details_page: string };
  request?: { url: string };
}

const page = {
  status: 200,
  headers: { 'content-type': 'text/html' },
  body: '<html><body><a href="/about">about</a></body></html>',
};
const exposedGit = { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ref: refs/heads/main\n' };

/**
 * The team event log as real scans of a loopback site write it (issue 34, item 1): a scan's
 * start and end, a finding's first detection, its patch when the site is fixed and its
 * regression when it breaks again, a failed scan, marks set and lifted through the v2 API; each
 * event with exactly its catalogue fields, in the team's log only, and none from a transaction
 * that failed.
 */
describe(`the event log of scans and vulnerabilities (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let teamId: number;
  let otherTeamId: number;
  let site: TestHttpServer;
  let down: TestHttpServer;
  let large: TargetServer;
  let slow: TargetServer;
  let assetToken: string;
  let assetId: number;
  let profile: string;
  let failing: string;
  let resumed: string;
  let stopped: string;
  /** The id of the last event already checked: each test reads what came after it. */
  let seen = 0;

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 3000, scanRequestTimeoutMs: 600 });
    key = (await h.team('events', { plan: 'enterprise' })).key;
    await h.team('bystander', { plan: 'enterprise' });
    teamId = (await h.runtime.store.teams.findByName('events'))!.id;
    otherTeamId = (await h.runtime.store.teams.findByName('bystander'))!.id;
    site = await startHttpServer({ '/': page, '/about': page, '/.git/HEAD': exposedGit });
    down = await startHttpServer({ '/': page });
    // Each answer waits 10 ms: the resumed scan is still running when the test looks (on Node 22 a
    // scan of 30 instant pages ended between two polls).
    large = await startGeneratedSite(30, { delayMs: 10 });
    slow = await startGeneratedSite(400);
    assetToken = (await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } })).json().token;
    assetId = (await h.runtime.store.assets.findByToken(teamId, assetToken))!.id;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'events');
    const profileOf = async (port: number, name: string) => {
      const res = await h.send('POST', '/rest/v2/profiles/', {
        key,
        body: { asset_token: assetToken, endpoint: `127.0.0.1:${port}`, name },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().token as string;
    };
    profile = await profileOf(site.port, 'site');
    failing = await profileOf(down.port, 'down');
    resumed = await profileOf(large.port, 'resumed');
    stopped = await profileOf(slow.port, 'stopped');
    await down.stop();
    await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
    seen = await h.runtime.store.events.latestId(teamId);
  });
  after(async () => {
    await h.close();
    await site.stop();
    await large.stop();
    await slow.stop();
  });

  /** Runs a scan of a profile to its end; answers its final status and its report token. */
  const scan = async (token: string) => {
    assert.equal((await h.send('POST', `/rest/v2/scans/${token}/`, { key })).statusCode, 202);
    return scanEnd(token);
  };
  /** Waits for the live scan of a profile to end; answers its final status and its report token. */
  const scanEnd = async (token: string) => {
    const done = await waitUntil(
      'the scan to end',
      async () => {
        const s = (await h.send('GET', `/rest/v2/scans/${token}/`, { key })).json();
        return ['starting', 'running', 'stopping'].includes(s.status) ? undefined : s;
      },
      30_000,
    );
    const profileId = (await h.runtime.store.scanProfiles.findByToken(teamId, token))!.id;
    const row = (await h.runtime.store.scans.latestOf(teamId, [profileId])).get(profileId)!;
    return { status: done.status as string, findings: done.progress.findings as number, token: row.token };
  };
  /** The team's events written since the last call, each checked against the catalogue. */
  const fresh = async (): Promise<EventRecord[]> => {
    const events = (await eventsOf(h.runtime.store, teamId)).filter((e) => e.id > seen);
    for (const e of events) assertCatalogued(e);
    seen = events.at(-1)?.id ?? seen;
    return events;
  };
  const ofKind = (events: EventRecord[], kind: EventKind) => events.filter((e) => e.kind === kind);
  const vulnerabilities = async (): Promise<Vuln[]> =>
    (await h.send('GET', `/rest/v2/vulnerabilities/?pageSize=100&scan_profile_token[]=${profile}`, { key })).json()
      .vulnerabilities;
  const gitOf = (list: Vuln[]) => {
    const found = list.filter((v) => /git/i.test(v.title));
    assert.equal(found.length, 1, JSON.stringify(list.map((v) => v.title)));
    return found[0]!;
  };
  /** Asserts the scan fields of a scan event. */
  const assertScanFields = (event: EventRecord, scanToken: string, profileToken: string) => {
    assert.equal(event.data['scan_token'], scanToken);
    assert.equal(event.data['scan_profile_token'], profileToken);
    assert.equal(event.data['asset_token'], assetToken);
    assert.equal(event.data['asset_name'], '127.0.0.1');
    assert.match(String(event.data['started_at']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(event.assetId, assetId);
  };

  it('logs the start, a vulnerability.new for each finding, then the completion with its counts, in that order', async () => {
    const done = await scan(profile);
    assert.equal(done.status, 'completed');
    const events = await fresh();
    const kinds = events.map((e) => e.kind);
    assert.equal(kinds[0], 'scan.started');
    assert.equal(kinds.at(-1), 'scan.completed');
    assert.deepEqual(new Set(kinds.slice(1, -1)), new Set(['vulnerability.new']));
    assertScanFields(events[0]!, done.token, profile);
    const completed = events.at(-1)!;
    assertScanFields(completed, done.token, profile);
    assert.equal(completed.data['started_at'], events[0]!.data['started_at']);
    const list = await vulnerabilities();
    assert.ok(list.length >= 2, JSON.stringify(list.map((v) => v.title)));
    assert.deepEqual(
      {
        stopped: completed.data['stopped'],
        findings: completed.data['findings'],
        new: completed.data['new'],
        regressions: completed.data['regressions'],
        patched: completed.data['patched'],
      },
      { stopped: false, findings: done.findings, new: list.length, regressions: 0, patched: 0 },
    );
    const created = ofKind(events, 'vulnerability.new');
    assert.deepEqual(created.map((e) => e.data['vulnerability_uuid']).sort(), list.map((v) => v.uuid).sort());
    for (const v of list) {
      const e = created.find((c) => c.data['vulnerability_uuid'] === v.uuid)!;
      assert.deepEqual(
        [e.data['title'], e.data['severity'], e.data['status'], e.data['host'], e.data['details_page']],
        [v.title, v.severity, 'new', v.host, v.links.details_page],
      );
      assert.equal(e.data['url'], v.request?.url ?? v.host);
      assert.deepEqual([e.data['asset_token'], e.data['asset_name']], [v.asset.token, v.asset.name]);
      assert.deepEqual([e.data['scan_source'], e.data['scan_profile_token']], ['application-scanning', profile]);
      assert.match(String(e.data['fingerprint']), /^[0-9a-f]{16,}$/);
      assert.deepEqual([e.assetId, e.severity], [assetId, v.severity]);
    }
  });

  it('logs vulnerability.patched once the fixed site is scanned, and vulnerability.regression when it breaks again', async () => {
    const git = gitOf(await vulnerabilities());
    site.routes.set('/.git/HEAD', { status: 404, body: 'gone' });
    const fixed = await scan(profile);
    assert.equal(fixed.status, 'completed');
    let events = await fresh();
    const patched = ofKind(events, 'vulnerability.patched');
    assert.deepEqual(
      patched.map((e) => [e.data['vulnerability_uuid'], e.data['status']]),
      [[git.uuid, 'patched']],
    );
    assert.equal(ofKind(events, 'vulnerability.new').length, 0, 'nothing seen again is new');
    assert.equal(ofKind(events, 'scan.started').length, 1);
    let completed = ofKind(events, 'scan.completed');
    assert.deepEqual(
      completed.map((e) => [e.data['scan_token'], e.data['new'], e.data['regressions'], e.data['patched']]),
      [[fixed.token, 0, 0, 1]],
    );
    assert.ok(patched[0]!.id < completed[0]!.id, 'the patches are logged before the completion');

    site.routes.set('/.git/HEAD', exposedGit);
    const broken = await scan(profile);
    events = await fresh();
    const regressions = ofKind(events, 'vulnerability.regression');
    assert.deepEqual(
      regressions.map((e) => [e.data['vulnerability_uuid'], e.data['status'], e.severity]),
      [[git.uuid, 'regression', git.severity]],
    );
    assert.equal(gitOf(await vulnerabilities()).status, 'regression');
    completed = ofKind(events, 'scan.completed');
    assert.deepEqual(
      completed.map((e) => [e.data['scan_token'], e.data['new'], e.data['regressions'], e.data['patched']]),
      [[broken.token, 0, 1, 0]],
    );
  });

  it('logs vulnerability.status_changed when a mark is set and lifted through the v2 API, not when nothing changes', async () => {
    const git = gitOf(await vulnerabilities());
    const mark = (path: string) => h.send('POST', `/rest/v2/vulnerabilities/uuid/${git.uuid}/${path}/`, { key });
    assert.equal((await mark('setacceptedriskstatus')).statusCode, 200);
    assert.equal((await mark('unsetfalsepositivestatus')).statusCode, 200); // not carried: no change
    assert.equal((await mark('unsetacceptedriskstatus')).statusCode, 200);
    const events = await fresh();
    assert.deepEqual(
      events.map((e) => [
        e.kind,
        e.data['vulnerability_uuid'],
        e.data['previous_status'],
        e.data['status'],
        e.data['mark'],
        e.data['marked'],
      ]),
      [
        ['vulnerability.status_changed', git.uuid, 'regression', 'accepted_risk', 'accepted_risk', true],
        ['vulnerability.status_changed', git.uuid, 'accepted_risk', 'regression', 'accepted_risk', false],
      ],
    );
    assert.equal(events[0]!.data['details_page'], git.links.details_page);
    assert.deepEqual([events[0]!.assetId, events[0]!.severity], [assetId, git.severity]);
  });

  it('logs scan.failed (after its start, and no completion) for a scan of a site that does not answer', async () => {
    const done = await scan(failing);
    assert.notEqual(done.status, 'completed');
    const events = await fresh();
    assert.deepEqual(
      events.map((e) => e.kind),
      ['scan.started', 'scan.failed'],
    );
    const failed = events[1]!;
    assertScanFields(failed, done.token, failing);
    assert.match(String(failed.data['failed_at']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(String(failed.data['error']).length > 0);
  });

  it('logs scan.completed with stopped true for a scan a member stops', async () => {
    assert.equal((await h.send('POST', `/rest/v2/scans/${stopped}/`, { key })).statusCode, 202);
    await waitUntil('the scan to run', async () => {
      const s = (await h.send('GET', `/rest/v2/scans/${stopped}/`, { key })).json();
      return s.status === 'running' ? s : undefined;
    });
    assert.equal((await h.send('DELETE', `/rest/v2/scans/${stopped}/`, { key })).statusCode, 202);
    const done = await scanEnd(stopped);
    assert.equal(done.status, 'stopped');
    const scans = (await fresh()).filter((e) => e.kind.startsWith('scan.'));
    assert.deepEqual(
      scans.map((e) => [e.kind, e.data['scan_token'], e.data['stopped'], e.data['patched']]),
      [
        ['scan.started', done.token, undefined, undefined],
        ['scan.completed', done.token, true, 0],
      ],
    );
    assert.equal(scans[1]!.data['findings'], done.findings);
  });

  it('logs scan.started once for a scan resumed after its worker stopped, and one completion', async () => {
    const deps = h.runtime.scanRunner;
    const profileRow = (await h.runtime.store.scanProfiles.findByToken(teamId, resumed))!;
    // A scan without a queue job: this test runs it as two workers would, the first one stopping mid-scan.
    const live = await createLiveScan(h.runtime.store, profileRow, 'api');
    const first = new AbortController();
    let running: Promise<RunOutcome> | undefined;
    let outcome: RunOutcome | undefined;
    await waitUntil('the first run to claim the scan', async () => {
      // A run deferred at the team's limit (a scan of an earlier test still ending) is started again.
      if (running === undefined || outcome?.kind === 'deferred') {
        outcome = undefined;
        running = runScan(deps, live.id, { runner: 'first', signal: first.signal });
        running.then((o) => (outcome = o)).catch(() => undefined);
      }
      const s = await h.runtime.store.scans.findById(live.id);
      return s?.status === 'running' ? s : undefined;
    });
    first.abort();
    await assert.rejects(running!, ScanInterruptedError);
    assert.deepEqual(
      ofKind(await fresh(), 'scan.started').map((e) => e.data['scan_token']),
      [live.token],
    );
    assert.deepEqual(await runScan(deps, live.id, { runner: 'second', signal: new AbortController().signal }), {
      kind: 'done',
    });
    const ended = (await h.runtime.store.scans.findById(live.id))!;
    assert.equal(ended.runs, 2);
    assert.equal(ended.status, 'completed');
    assert.deepEqual(
      (await fresh())
        .filter((e) => e.kind.startsWith('scan.'))
        .map((e) => [e.kind, e.data['scan_token'], e.data['stopped']]),
      [['scan.completed', live.token, false]],
    );
  });

  it("keeps every event in its own team's log: the other team's stays empty", async () => {
    assert.deepEqual(await eventsOf(h.runtime.store, otherTeamId), []);
    const all = await eventsOf(h.runtime.store, teamId);
    assert.ok(all.length > 10);
    for (const e of all) {
      assert.equal(e.teamId, teamId);
      assertCatalogued(e);
    }
  });

  it('writes no event from a transaction that fails: a zone upload that breaks after adding its apex leaves no asset.added', async () => {
    const broken = await h.send('POST', '/rest/v2/zone/file/?origin=broken.test', {
      key,
      body: '$ORIGIN broken.test.\n$TTL 300\n@ IN SOA ns1 hm 1 2 3 4 5\nwww IN A 192.0.2.1\nlate IN A 999.0.0.1\n',
    });
    assert.equal(broken.statusCode, 400, broken.body);
    assert.deepEqual(await fresh(), []);
    // The same upload, whole, adds the apex and logs it: the failure above is what kept the event out.
    const whole = await h.send('POST', '/rest/v2/zone/file/?origin=broken.test', {
      key,
      body: '$ORIGIN broken.test.\n$TTL 300\n@ IN SOA ns1 hm 1 2 3 4 5\nwww IN A 192.0.2.1\n',
    });
    assert.equal(whole.statusCode, 200, whole.body);
    assert.deepEqual(
      (await fresh()).map((e) => [e.kind, e.data['asset_name']]),
      [['asset.added', 'broken.test']],
    );
  });
});
