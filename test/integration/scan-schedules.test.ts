import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ScanQueue } from '../../src/core/scans/scan.service.ts';
import { fireDueSchedules } from '../../src/core/scans/schedule.service.ts';
import { pruneReports } from '../../src/core/scans/scan.service.ts';
import { NameTokenCodec } from '../../src/core/zones/name-token.ts';
import type { Database } from '../../src/storage/database.ts';
import { renderers } from '../../src/runtime.ts';
import { createStore } from '../../src/storage/store.ts';
import { createHarness, testStore, v2Error, type Harness } from '../support/harness.ts';
import { startHttpServer, type TestHttpServer } from '../support/http-server.ts';

const day = 24 * 3600 * 1000;

describe(`v2 scan schedules and the scheduler (${testStore})`, () => {
  let h: Harness;
  let key: string;
  let site: TestHttpServer;
  let assetToken: string;
  const enqueued: number[] = [];
  const queue: ScanQueue = {
    enqueueScan: async (scan) => (enqueued.push(scan.id), `job-${scan.id}`),
    isPending: async () => true,
  };
  let counter = 0;

  before(async () => {
    h = await createHarness({ endpointValidationTimeoutMs: 3000 });
    key = (await h.team('schedules', { plan: 'enterprise' })).key;
    site = await startHttpServer({ '/': 'ok' });
    assetToken = (await h.send('POST', '/rest/v2/assets/', { key, body: { name: '127.0.0.1' } })).json().token;
    await h.admin('asset', 'verify', '127.0.0.1', '--team', 'schedules');
  });
  after(async () => {
    await site.stop();
    await h.close();
  });

  /** A new profile; endpoints differ by scheme/port spelling so each is its own profile. */
  const newProfile = async (): Promise<string> => {
    counter += 1;
    const spellings = [`127.0.0.1:${site.port}`, `http://127.0.0.1:${site.port}`];
    const endpoint = counter <= 2 ? spellings[counter - 1]! : `http://127.0.0.1:${site.port}/`;
    const res = await h.send('POST', '/rest/v2/profiles/', {
      key,
      body: { asset_token: assetToken, endpoint, name: `p${counter}` },
    });
    if (res.statusCode === 200) return res.json().token;
    // Past two spellings, profiles are inserted through the store (endpoint validation is tested elsewhere).
    const team = (await h.runtime.store.teams.findByName('schedules'))!;
    const asset = (await h.runtime.store.assets.findByToken(team.id, assetToken))!;
    const now = new Date();
    const profile = await h.runtime.store.scanProfiles.insert({
      teamId: team.id,
      assetId: asset.id,
      token: `${counter}`.padStart(32, 'a'),
      name: `p${counter}`,
      endpoint: `127.0.0.1:${counter}`,
      endpointKey: `k${counter}`,
      scheme: 'http',
      port: site.port,
      settings: (await h.runtime.store.scanProfiles.findByToken(
        team.id,
        (await h.send('GET', '/rest/v2/profiles/', { key })).json()[0].token,
      ))!.settings,
      isActive: true,
      schedule: { frequency: 'never', first: null, next: null },
      created: now,
      updated: now,
    });
    return profile.token;
  };
  const profileId = async (token: string) => {
    const team = (await h.runtime.store.teams.findByName('schedules'))!;
    return (await h.runtime.store.scanProfiles.findByToken(team.id, token))!.id;
  };
  const schedule = (token: string) => h.send('GET', `/rest/v2/scanschedules/${token}/`, { key });
  const set = (token: string, body: unknown) => h.send('POST', `/rest/v2/scanschedules/${token}/`, { key, body });
  const scansOf = async (token: string) => {
    const team = (await h.runtime.store.teams.findByName('schedules'))!;
    const profile = (await h.runtime.store.scanProfiles.findByToken(team.id, token))!;
    return h.runtime.database.db
      .selectFrom('scans')
      .selectAll()
      .where('profile_id', '=', profile.id)
      .orderBy('id')
      .execute();
  };

  it('reads never without times, sets and overwrites, removes (200) and reads never again', async () => {
    const token = await newProfile();
    assert.deepEqual((await schedule(token)).json(), { scan_profile_token: token, frequency: 'never' });
    const weekly = await set(token, { frequency: 'weekly', start: '2099-01-05T08:00:00Z' });
    assert.equal(weekly.statusCode, 200);
    assert.deepEqual(weekly.json(), {
      scan_profile_token: token,
      frequency: 'weekly',
      first_scan: '2099-01-05T08:00:00Z',
      next_scan: '2099-01-05T08:00:00Z',
    });
    assert.deepEqual((await schedule(token)).json(), weekly.json());
    const monthly = await set(token, { frequency: 'monthly', start: '2099-01-31T10:00:00+0200' });
    assert.deepEqual(monthly.json(), {
      scan_profile_token: token,
      frequency: 'monthly',
      first_scan: '2099-01-31T08:00:00Z',
      next_scan: '2099-01-31T08:00:00Z',
    });
    const removed = await h.send('DELETE', `/rest/v2/scanschedules/${token}/`, { key });
    assert.equal(removed.statusCode, 200);
    assert.deepEqual(removed.json(), { scan_profile_token: token, frequency: 'never' });
    assert.deepEqual((await schedule(token)).json(), { scan_profile_token: token, frequency: 'never' });
  });

  it('starts now when start is absent; a past start runs at its next occurrence', async () => {
    const token = await newProfile();
    const before = Date.now();
    const now = (await set(token, { frequency: 'daily' })).json();
    assert.ok(Math.abs(Date.parse(now.next_scan) - before) < 2000, now.next_scan);
    const past = new Date(Date.now() - 2.5 * day);
    const res = (await set(token, { frequency: 'daily', start: Math.floor(past.getTime() / 1000) })).json();
    assert.equal(Date.parse(res.next_scan) - Date.parse(res.first_scan), 3 * day);
  });

  it('answers 5066 for a bad frequency, 1085 for a bad start, 1050 without a body', async () => {
    const token = await newProfile();
    for (const frequency of ['hourly', '', 7, undefined]) {
      const res = await set(token, { frequency });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 5066, String(frequency));
      assert.deepEqual(res.json().parameters, ['frequency']);
    }
    assert.deepEqual((await set(token, { frequency: 'daily', start: 'tomorrow' })).json().code, 1085);
    assert.equal((await h.send('POST', `/rest/v2/scanschedules/${token}/`, { key })).json().code, 1050);
    assert.deepEqual((await schedule(token)).json(), { scan_profile_token: token, frequency: 'never' });
  });

  it('fires `once` exactly once, then reads never', async () => {
    const token = await newProfile();
    await set(token, { frequency: 'once' });
    const id = await profileId(token);
    const first = await fireDueSchedules({ store: h.runtime.store, queue }, new Date(Date.now() + 1000));
    assert.deepEqual(
      first.started.filter((s) => s.profileId === id).map((s) => s.trigger),
      ['schedule'],
    );
    assert.deepEqual((await schedule(token)).json(), { scan_profile_token: token, frequency: 'never' });
    const again = await fireDueSchedules({ store: h.runtime.store, queue }, new Date(Date.now() + 2000));
    assert.equal(again.started.filter((s) => s.profileId === id).length, 0);
    assert.equal((await scansOf(token)).length, 1);
  });

  it('a fire missed while the service was down runs once, and next_scan tells the truth', async () => {
    const token = await newProfile();
    const start = new Date(Date.now() + 60_000);
    await set(token, { frequency: 'daily', start: start.toISOString() });
    // The service comes back three and a half days later.
    const later = new Date(start.getTime() + 3.5 * day);
    const id = await profileId(token);
    const fired = await fireDueSchedules({ store: h.runtime.store, queue }, later);
    assert.equal(fired.started.filter((s) => s.profileId === id).length, 1);
    assert.equal(
      (await schedule(token)).json().next_scan,
      new Date(start.getTime() + 4 * day).toISOString().slice(0, 19) + 'Z',
    );
    assert.equal(
      (await fireDueSchedules({ store: h.runtime.store, queue }, later)).started.filter((s) => s.profileId === id)
        .length,
      0,
    );
    assert.equal((await scansOf(token)).length, 1);
    // The scan it started is live: the next fire is skipped and says so on that scan.
    const skipped = await fireDueSchedules({ store: h.runtime.store, queue }, new Date(start.getTime() + 4 * day));
    assert.equal(skipped.started.filter((s) => s.profileId === id).length, 0);
    assert.equal(skipped.skipped.filter((s) => s.profileToken === token).length, 1);
    const scans = await scansOf(token);
    assert.equal(scans.length, 1);
    assert.match(scans[0]!.warnings, /The scheduled scan due at .* was skipped: this scan was still running/);
    const status = (await h.send('GET', `/rest/v2/scans/${token}/`, { key })).json();
    assert.equal(status.warnings.length, 1);
    assert.equal(
      (await schedule(token)).json().next_scan,
      new Date(start.getTime() + 5 * day).toISOString().slice(0, 19) + 'Z',
    );
  });

  // The embedded store is one process with one connection; several schedulers are a PostgreSQL deployment.
  it(
    'fires each due schedule exactly once with several schedulers racing (separate connection pools)',
    { skip: testStore !== 'postgres' ? 'several scheduler processes need PostgreSQL' : false },
    async () => {
      const tokens: string[] = [];
      for (let i = 0; i < 12; i++) tokens.push(await newProfile());
      const due = new Date(Date.now() - 1000);
      const team = (await h.runtime.store.teams.findByName('schedules'))!;
      for (const token of tokens) {
        const profile = (await h.runtime.store.scanProfiles.findByToken(team.id, token))!;
        await h.runtime.store.scanProfiles.setSchedule(
          team.id,
          profile.id,
          { frequency: 'weekly', first: due, next: due },
          new Date(),
        );
      }
      const pools: Database[] = [await h.openDatabase(), await h.openDatabase()];
      try {
        const stores = pools.map((db) =>
          createStore(db, {
            nameTokens: new NameTokenCodec(h.runtime.box.blockCipher('discovered-name-token')),
            renderers,
          }),
        );
        const now = new Date();
        const rounds = await Promise.all(
          [...stores, ...stores].map((store) => fireDueSchedules({ store, queue }, now)),
        );
        const ids = new Set(await Promise.all(tokens.map(profileId)));
        const started = rounds.flatMap((r) => r.started).filter((s) => ids.has(s.profileId));
        assert.equal(
          started.length,
          tokens.length,
          `each due schedule fired once (${started.length} scans for ${tokens.length} schedules)`,
        );
        const tokenSet = new Set(tokens);
        // A second fire of the same due time would have found the first scan live and been skipped.
        assert.deepEqual(
          rounds.flatMap((r) => r.skipped).filter((s) => tokenSet.has(s.profileToken)),
          [],
          'no fire was claimed twice',
        );
        for (const token of tokens) {
          const scans = await scansOf(token);
          assert.equal(scans.length, 1, token);
          assert.equal(scans[0]!.warnings, '[]');
        }
      } finally {
        for (const pool of pools) await pool.close();
      }
    },
  );

  it("deletes reports past the profile's report lifespan, never the latest", async () => {
    const token = await newProfile();
    const id = await profileId(token);
    const team = (await h.runtime.store.teams.findByName('schedules'))!;
    const now = Date.now();
    const ages = [40, 20, 10, 1];
    for (const [i, age] of ages.entries()) {
      const scan = (await h.runtime.store.scans.insertLive({
        teamId: team.id,
        profileId: id,
        token: `${i}`.padStart(32, 'f'),
        trigger: 'api',
        endpoint: 'e',
        profileName: 'p',
        created: new Date(now - age * day),
      }))!;
      await h.runtime.store.scans.finish(scan.id, {
        status: 'completed',
        error: null,
        progress: scan.progress,
        ended: new Date(now - age * day),
      });
    }
    assert.equal(
      (await h.send('PUT', `/rest/v2/profiles/${token}/settings/`, { key, body: { report_lifespan_days: 15 } }))
        .statusCode,
      200,
    );
    assert.equal(await pruneReports(h.runtime.store, new Date(now)), 2);
    assert.equal((await scansOf(token)).length, 2);
    // 0 means the global lifetime (365 days): nothing younger goes.
    await h.send('PUT', `/rest/v2/profiles/${token}/settings/`, { key, body: { report_lifespan_days: 0 } });
    assert.equal(await pruneReports(h.runtime.store, new Date(now)), 0);
    assert.equal(await pruneReports(h.runtime.store, new Date(now + 400 * day)), 1, 'all but the latest');
    assert.equal((await scansOf(token)).length, 1);
  });

  it('answers 2604 for another team and 2601 for a malformed token', async () => {
    const other = (await h.team('strangers')).key;
    const token = await newProfile();
    assert.deepEqual(
      (await h.send('POST', `/rest/v2/scanschedules/${token}/`, { key: other, body: { frequency: 'daily' } })).json(),
      v2Error(2604, 'Scan profile does not exist', ['scanProfileToken']),
    );
    assert.equal((await h.send('DELETE', '/rest/v2/scanschedules/123/', { key })).json().code, 2601);
  });
});
