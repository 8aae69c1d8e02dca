import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { startGeneratedSite, type TargetServer } from '../support/target-site.ts';
import { waitUntil } from '../support/test-jobs.ts';

/** Two teams: alpha with `alphaProfiles` slow profiles, beta with one; the harness with the given limits. */
function limitsSuite(
  title: string,
  limits: { scanTeamConcurrency: number; scanConcurrency: number; alphaProfiles: number },
  check: (
    h: () => Harness,
    statusesAtOnce: () => Promise<Array<{ status: string }>>,
    statusOf: (p: { team: string; token: string }) => Promise<{ status: string }>,
    profiles: Array<{ team: string; token: string }>,
    keys: Record<string, string>,
  ) => void,
) {
  describe(`${title} (${testStore})`, () => {
    let h: Harness;
    const sites: TargetServer[] = [];
    const keys: Record<string, string> = {};
    const profiles: Array<{ team: string; token: string }> = [];

    before(async () => {
      // One scan per team at once, two per process.
      h = await createHarness({
        scanTeamConcurrency: limits.scanTeamConcurrency,
        scanConcurrency: limits.scanConcurrency,
      });
      for (const team of ['alpha', 'beta']) {
        keys[team] = (await h.team(team, { plan: 'enterprise' })).key;
        const asset = (
          await h.send('POST', '/rest/v2/assets/', { key: keys[team], body: { name: '127.0.0.1' } })
        ).json().token;
        await h.admin('asset', 'verify', '127.0.0.1', '--team', team);
        const count = team === 'alpha' ? limits.alphaProfiles : 1;
        for (let i = 0; i < count; i++) {
          const site = await startGeneratedSite(30);
          sites.push(site);
          const token = (
            await h.send('POST', '/rest/v2/profiles/', {
              key: keys[team],
              body: { asset_token: asset, endpoint: `127.0.0.1:${site.port}` },
            })
          ).json().token;
          // 40 requests per second over 30 pages: each scan runs for a second or two, long enough to overlap.
          await h.send('PUT', `/rest/v2/profiles/${token}/settings/`, {
            key: keys[team],
            body: { requests_per_second: 40 },
          });
          profiles.push({ team, token });
        }
      }
      await h.jobs.work(jobHandlers(h.runtime), { pollIntervalMs: 50 });
    });
    after(async () => {
      await h.close();
      for (const site of sites) await site.stop();
    });

    const statusOf = async (p: { team: string; token: string }) =>
      (await h.send('GET', `/rest/v2/scans/${p.token}/`, { key: keys[p.team] })).json();
    // The statuses of every profile's scan in one statement, so one snapshot: two status reads
    // sent at once may run one before a scan ends and the other after the next one started, and
    // see both running although they never overlapped.
    const statusesAtOnce = async (): Promise<Array<{ status: string }>> => {
      const rows = await h.runtime.database.db
        .selectFrom('scans')
        .innerJoin('scan_profiles', 'scan_profiles.id', 'scans.profile_id')
        .select(['scan_profiles.token as profile', 'scans.status'])
        .where(
          'scan_profiles.token',
          'in',
          profiles.map((p) => p.token),
        )
        .execute();
      return profiles.map((p) => ({ status: rows.find((r) => r.profile === p.token)?.status ?? 'none' }));
    };
    check(() => h, statusesAtOnce, statusOf, profiles, keys);
  });
}

limitsSuite(
  'one scan per team at a time',
  { scanTeamConcurrency: 1, scanConcurrency: 2, alphaProfiles: 2 },
  (harness, statusesAtOnce, statusOf, profiles, keys) => {
    it('runs one scan of a team at a time, the other team alongside, and then the waiting one', async () => {
      const h = harness();
      for (const p of profiles)
        assert.equal((await h.send('POST', `/rest/v2/scans/${p.token}/`, { key: keys[p.team] })).statusCode, 202);
      let sawAlphaWaiting = false;
      let sawBothTeamsRunning = false;
      await waitUntil(
        'every scan to complete',
        async () => {
          const states = await statusesAtOnce();
          const running = profiles.filter((_, i) => states[i]?.status === 'running');
          assert.ok(running.filter((p) => p.team === 'alpha').length <= 1, 'never two alpha scans at once');
          assert.ok(running.length <= 2, 'never more than the process allows');
          if (
            states.slice(0, 2).some((s) => s.status === 'running') &&
            states.slice(0, 2).some((s) => s.status === 'starting')
          )
            sawAlphaWaiting = true;
          if (running.some((p) => p.team === 'alpha') && running.some((p) => p.team === 'beta'))
            sawBothTeamsRunning = true;
          return states.every((s) => s.status === 'completed') ? true : undefined;
        },
        60_000,
      );
      for (const p of profiles)
        assert.equal((await statusOf(p)).status, 'completed', 'the API reads every scan completed');
      assert.ok(sawAlphaWaiting, 'the second alpha scan waited for the first');
      assert.ok(sawBothTeamsRunning, 'beta ran beside alpha');
    });
  },
);

limitsSuite(
  'one scan per process at a time',
  { scanTeamConcurrency: 5, scanConcurrency: 1, alphaProfiles: 1 },
  (harness, statusesAtOnce, statusOf, profiles, keys) => {
    it('runs the scans of two teams one after the other when the process runs one at a time', async () => {
      const h = harness();
      for (const p of profiles)
        assert.equal((await h.send('POST', `/rest/v2/scans/${p.token}/`, { key: keys[p.team] })).statusCode, 202);
      let sawOneWaiting = false;
      await waitUntil(
        'every scan to complete',
        async () => {
          const states = await statusesAtOnce();
          assert.ok(states.filter((s) => s.status === 'running').length <= 1, 'never two scans at once in one process');
          if (states.some((s) => s.status === 'running') && states.some((s) => s.status === 'starting'))
            sawOneWaiting = true;
          return states.every((s) => s.status === 'completed') ? true : undefined;
        },
        60_000,
      );
      for (const p of profiles)
        assert.equal((await statusOf(p)).status, 'completed', 'the API reads every scan completed');
      assert.ok(sawOneWaiting, 'one scan waited for the other');
    });
  },
);
