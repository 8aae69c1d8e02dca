import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestBudget } from './request-budget.ts';

describe('RequestBudget', () => {
  it('spaces N requests at least (N-1)/rate seconds apart', async () => {
    const budget = new RequestBudget(20, 8);
    const signal = new AbortController().signal;
    const started = performance.now();
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        const release = await budget.acquire(signal);
        times.push(performance.now());
        release();
      }),
    );
    assert.ok(performance.now() - started >= 5 * 50 - 2, `took ${performance.now() - started} ms`);
    // The i-th grant comes no sooner than i intervals after the first call. Measured from the
    // start, not between neighbours: a caller sees its grant a little late (a GC pause, a busy
    // loop), which shrinks the gap to the next caller's without any burst by the budget.
    times.sort((a, b) => a - b);
    for (let i = 1; i < times.length; i += 1) {
      const since = (times[i] ?? 0) - started;
      assert.ok(since >= i * 50 - 0.01, `grant ${i} came ${since.toFixed(1)} ms after the start`);
    }
  });

  it('bounds the requests in flight and lets none through unlimited-rate waits', async () => {
    const budget = new RequestBudget(0, 2);
    const signal = new AbortController().signal;
    let inFlight = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        const release = await budget.acquire(signal);
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        release();
      }),
    );
    assert.equal(peak, 2);
  });

  it('rejects waiting callers when the signal aborts', async () => {
    const budget = new RequestBudget(1, 8);
    const controller = new AbortController();
    await budget.acquire(controller.signal);
    const waiting = budget.acquire(controller.signal);
    setTimeout(() => controller.abort(new Error('stop')), 20);
    const started = performance.now();
    await assert.rejects(waiting, /stop/);
    assert.ok(performance.now() - started < 500);
  });
});
