import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scanEstimateOf } from './scan-estimate.ts';
import type { Scan, ScanStatus } from './scan.types.ts';

const t0 = new Date('2026-03-01T10:00:00.000Z');
const at = (seconds: number): Date => new Date(t0.getTime() + seconds * 1000);

/** How a test describes the current run: its own fraction and, optionally, its recent point (seconds after t0). */
interface RunOf {
  fraction: number;
  since?: { after: number; fraction: number };
  /** Seconds after t0 when the duration limit ends the run. */
  deadline?: number;
}

/**
 * A scan of that status and saved fraction whose current run started at t0 and was last saved
 * `savedAfter` seconds later (no run: null).
 */
function scanOf(status: ScanStatus, fraction: number, run: RunOf | null = { fraction }, savedAfter = 10): Scan {
  const since = run?.since ?? { after: 0, fraction: 0 };
  return {
    id: 1,
    teamId: 1,
    profileId: 1,
    token: 'report',
    status,
    trigger: 'api',
    endpoint: 'example.com',
    profileName: 'example',
    error: null,
    warnings: [],
    progress: {
      pagesCrawled: 0,
      requestsSent: 0,
      checksDone: 0,
      findings: 0,
      fraction,
      run:
        run === null
          ? null
          : {
              started: t0,
              fraction: run.fraction,
              since: { at: at(since.after), fraction: since.fraction },
              deadline: run.deadline === undefined ? null : at(run.deadline),
            },
    },
    counts: { information: 0, low: 0, medium: 0, high: 0, critical: 0 },
    highestCvss: 0,
    jobId: null,
    runner: 'worker-1',
    runs: 1,
    heartbeat: run === null ? null : at(savedAfter),
    created: t0,
    started: t0,
    ended: null,
  };
}

describe('scanEstimateOf', () => {
  it('answers the saved fraction as whole percent, floored', () => {
    assert.equal(scanEstimateOf(scanOf('running', 0.428), at(10)).percentage, 42);
    assert.equal(scanEstimateOf(scanOf('starting', 0, null), at(0)).percentage, 0);
  });

  it('answers 100 only for a completed scan', () => {
    assert.equal(scanEstimateOf(scanOf('running', 1), at(10)).percentage, 99);
    assert.equal(scanEstimateOf(scanOf('stopping', 0.999), at(10)).percentage, 99);
    assert.equal(scanEstimateOf(scanOf('stopped', 1), at(10)).percentage, 99);
    assert.deepEqual(scanEstimateOf(scanOf('completed', 0.3), at(10)), { percentage: 100, secondsLeft: 0 });
  });

  it('keeps the percentage of a resumed scan while its new run catches up', () => {
    // The resumed run did 10% of the work again; before the worker died the scan had reached 60%.
    assert.equal(scanEstimateOf(scanOf('running', 0.6, { fraction: 0.1 }), at(10)).percentage, 60);
  });

  it('never goes down as the saved fraction rises', () => {
    let last = -1;
    for (const fraction of [0, 0.004, 0.2, 0.2, 0.5, 0.731, 0.99, 0.9999, 1]) {
      const { percentage } = scanEstimateOf(scanOf('running', fraction), at(10));
      assert.ok(percentage >= last, `${percentage} after ${last}`);
      assert.ok(percentage <= 99);
      last = percentage;
    }
  });

  it('has no time left to tell until the run did enough, for long enough', () => {
    assert.equal(scanEstimateOf(scanOf('running', 0.01), at(10)).secondsLeft, null);
    assert.equal(scanEstimateOf(scanOf('running', 0.5, { fraction: 0.5 }, 2), at(2)).secondsLeft, null);
    assert.equal(scanEstimateOf(scanOf('running', 0.5, null), at(10)).secondsLeft, null);
    assert.equal(scanEstimateOf(scanOf('starting', 0, null), at(10)).secondsLeft, null);
  });

  it("extrapolates the run's pace to the rest of the work, minus the time since the last save", () => {
    // A quarter done in 10 s: 30 s more at the last save, 26 s four seconds later.
    assert.equal(scanEstimateOf(scanOf('running', 0.25), at(10)).secondsLeft, 30);
    assert.equal(scanEstimateOf(scanOf('running', 0.25), at(14)).secondsLeft, 26);
    // A resumed run is judged by its own pace, not by the fraction it inherited.
    assert.equal(scanEstimateOf(scanOf('running', 0.6, { fraction: 0.5 }), at(10)).secondsLeft, 10);
  });

  it('measures the pace since the recent point when the run moved since then', () => {
    // Slow at first, then 40% in the last 4 s: 10% a second, 3 s for the 30% left.
    const faster = scanOf('running', 0.7, { fraction: 0.7, since: { after: 6, fraction: 0.3 } });
    assert.equal(scanEstimateOf(faster, at(10)).secondsLeft, 3);
    // Stalled since the recent point (or the run's fraction fell as the crawl found pages): the whole run's pace.
    const stalled = scanOf('running', 0.5, { fraction: 0.5, since: { after: 6, fraction: 0.5 } });
    assert.equal(scanEstimateOf(stalled, at(10)).secondsLeft, 10);
    const fell = scanOf('running', 0.5, { fraction: 0.4, since: { after: 6, fraction: 0.45 } });
    assert.equal(scanEstimateOf(fell, at(10)).secondsLeft, 15);
  });

  it("never answers past the run's duration limit", () => {
    // A tenth done in 10 s would take 90 s more, but the limit ends the run 20 s after t0.
    assert.equal(scanEstimateOf(scanOf('running', 0.1, { fraction: 0.1, deadline: 20 }), at(10)).secondsLeft, 10);
    assert.equal(scanEstimateOf(scanOf('running', 0.1, { fraction: 0.1, deadline: 20 }), at(25)).secondsLeft, 1);
  });

  it('keeps at least one second for a running scan past its estimate', () => {
    assert.equal(scanEstimateOf(scanOf('running', 0.5), at(60)).secondsLeft, 1);
    assert.equal(scanEstimateOf(scanOf('running', 1), at(10)).secondsLeft, 1);
  });

  it('has no time left for a scan stopping or ended otherwise than completed', () => {
    for (const status of ['stopping', 'stopped', 'unable_to_complete', 'unable_to_resolve'] as const)
      assert.equal(scanEstimateOf(scanOf(status, 0.5), at(10)).secondsLeft, null);
  });
});
