import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, testStore, type Harness } from '../support/harness.ts';

/**
 * Two transactions of one team that lock the same rows in opposite orders: on PostgreSQL one of
 * them is rolled back to break the deadlock (40P01), and the store runs it again, so both end
 * with their writes. (SQLite has one writer: they run one after the other.)
 */
describe('store transactions that deadlock', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  it('runs the one PostgreSQL rolled back again: both commit, each once', async () => {
    const { key } = await h.team('deadlocks');
    const added = await h.send('POST', '/rest/v2/assets/', { key, body: { name: 'locks.example' } });
    assert.equal(added.statusCode, 200, added.body);
    const store = h.runtime.store;
    const team = (await store.teams.findByName('deadlocks'))!;
    const asset = (await store.assets.findByName(team.id, 'locks.example'))!;
    const versionBefore = await store.vulnerabilities.version(team.id);

    // Each holds its first lock until both do (or until a second has passed on SQLite, where the
    // second waits for the first to end), then asks for the other's.
    let holding = 0;
    let bothHold: () => void = () => {};
    const bothHolding = new Promise<void>((resolve) => (bothHold = resolve));
    const hold = async () => {
      holding += 1;
      if (holding === 2) bothHold();
      await Promise.race([
        bothHolding,
        new Promise((resolve) => setTimeout(resolve, testStore === 'postgres' ? 10_000 : 200)),
      ]);
    };
    const runs = { teamFirst: 0, assetFirst: 0 };
    const at = new Date('2026-11-29T08:00:00Z');
    const teamFirst = store.transaction(async (tx) => {
      runs.teamFirst += 1;
      await tx.assets.lockTeam(team.id);
      if (runs.teamFirst === 1) await hold();
      await tx.assets.recordCheck(asset.id, 'unverified', at);
    });
    const assetFirst = store.transaction(async (tx) => {
      runs.assetFirst += 1;
      await tx.assets.recordCheck(asset.id, 'unverified', at);
      if (runs.assetFirst === 1) await hold();
      await tx.vulnerabilities.bumpVersion(team.id);
    });
    const outcomes = await Promise.allSettled([teamFirst, assetFirst]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled'],
      JSON.stringify(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))),
    );
    // On PostgreSQL one ran twice (the deadlock really happened); its work counted once.
    if (testStore === 'postgres') assert.equal(runs.teamFirst + runs.assetFirst, 3, JSON.stringify(runs));
    assert.equal(await store.vulnerabilities.version(team.id), versionBefore + 1);
  });
});
