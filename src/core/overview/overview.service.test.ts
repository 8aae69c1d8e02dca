import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Team } from '../teams/team.types.ts';
import { readFindingOverview } from './overview.service.ts';
import type { FindingCount, FindingDay, OverviewRepository } from './overview.types.ts';

const team = { id: 7 } as Team;
const now = new Date('2026-03-10T15:00:00Z');
const today = Math.floor(now.getTime() / 86_400_000);

/** An overview repository answering these counts and days, and recording the day range it was asked. */
function storeOf(counts: FindingCount[], days: FindingDay[], asked: number[][] = []) {
  const overview: Pick<OverviewRepository, 'findingCounts' | 'findingDays'> = {
    findingCounts: async () => counts,
    findingDays: async (_teamId, from, to) => {
      asked.push([from, to]);
      return days;
    },
  };
  return { overview: overview as OverviewRepository };
}

describe('readFindingOverview', () => {
  it('sums open findings per severity (critical first) and every status (open ones first)', async () => {
    const overview = await readFindingOverview(
      storeOf(
        [
          { status: 'new', severity: 'high', n: 2 },
          { status: 'active', severity: 'high', n: 3 },
          { status: 'regression', severity: 'low', n: 1 },
          { status: 'patched', severity: 'critical', n: 4 },
          { status: 'accepted_risk', severity: 'high', n: 5 },
        ],
        [],
      ),
      team,
      now,
    );
    assert.deepEqual(overview.openBySeverity, [
      { severity: 'critical', n: 0 },
      { severity: 'high', n: 5 },
      { severity: 'medium', n: 0 },
      { severity: 'low', n: 1 },
      { severity: 'information', n: 0 },
    ]);
    assert.deepEqual(
      overview.byStatus.map((s) => [s.status, s.n, s.isOpen]),
      [
        ['new', 2, true],
        ['active', 3, true],
        ['regression', 1, true],
        ['patched', 4, false],
        ['accepted_risk', 5, false],
        ['false_positive', 0, false],
      ],
    );
    assert.equal(overview.openTotal, 6);
    assert.equal(overview.total, 15);
  });

  it('asks for the last 30 UTC days, today included, and gives every day of them, zeros filled', async () => {
    const asked: number[][] = [];
    const overview = await readFindingOverview(
      storeOf(
        [],
        [
          { day: today - 29, created: 1, fixed: 0 },
          { day: today, created: 2, fixed: 3 },
        ],
        asked,
      ),
      team,
      now,
    );
    assert.deepEqual(asked, [[today - 29, today]]);
    assert.equal(overview.days.length, 30);
    assert.deepEqual(overview.days[0], { date: '2026-02-09', created: 1, fixed: 0 });
    assert.deepEqual(overview.days[1], { date: '2026-02-10', created: 0, fixed: 0 });
    assert.deepEqual(overview.days.at(-1), { date: '2026-03-10', created: 2, fixed: 3 });
  });
});
