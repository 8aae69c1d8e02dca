import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TableStatistics, type GrowingTable } from './table-statistics.ts';

/** A statistics keeper whose ANALYZE answers when the test says so. */
function keeper(estimate: (table: GrowingTable) => number | Error) {
  const runs: GrowingTable[] = [];
  const errors: string[] = [];
  const pending: Array<() => void> = [];
  const statistics = new TableStatistics(
    (table) =>
      new Promise<number>((resolve, reject) => {
        runs.push(table);
        pending.push(() => {
          const answer = estimate(table);
          if (answer instanceof Error) reject(answer);
          else resolve(answer);
        });
      }),
    (table, error) => errors.push(`${table}: ${(error as Error).message}`),
    1000,
    0.2,
  );
  const finish = async () => {
    for (const done of pending.splice(0)) done();
    await statistics.idle();
  };
  return { statistics, runs, errors, finish };
}

describe('TableStatistics', () => {
  it('analyzes a table once its writes reach the minimum, then a fifth of its estimated rows', async () => {
    const k = keeper(() => 10_000);
    k.statistics.changed('vulnerabilities', 999);
    assert.deepEqual(k.runs, []);
    k.statistics.changed('vulnerabilities', 1);
    assert.deepEqual(k.runs, ['vulnerabilities']);
    await k.finish();
    // 10,000 rows now: the next ANALYZE after 2,000 more.
    k.statistics.changed('vulnerabilities', 1999);
    assert.equal(k.runs.length, 1);
    k.statistics.changed('vulnerabilities', 1);
    assert.equal(k.runs.length, 2);
    await k.finish();
  });

  it('runs one ANALYZE of a table at a time, counting what was written meanwhile toward the next', async () => {
    const k = keeper(() => 0);
    k.statistics.changed('ports', 1000);
    k.statistics.changed('ports', 5000);
    assert.equal(k.runs.length, 1, 'one in flight');
    await k.finish();
    // The 5,000 written while it ran still count: the next write starts the next one.
    k.statistics.changed('ports', 1);
    assert.equal(k.runs.length, 2);
    await k.finish();
  });

  it('keeps each table apart', async () => {
    const k = keeper(() => 0);
    k.statistics.changed('ports', 600);
    k.statistics.changed('technologies', 600);
    assert.deepEqual(k.runs, []);
    k.statistics.changed('ip_addresses', 1000);
    assert.deepEqual(k.runs, ['ip_addresses']);
    await k.finish();
  });

  it('reports a failed ANALYZE and tries again after as many writes', async () => {
    const k = keeper(() => new Error('permission denied'));
    k.statistics.changed('technologies', 1000);
    await k.finish();
    assert.deepEqual(k.errors, ['technologies: permission denied']);
    k.statistics.changed('technologies', 999);
    assert.equal(k.runs.length, 1);
    k.statistics.changed('technologies', 1);
    assert.equal(k.runs.length, 2);
    await k.finish();
  });
});
