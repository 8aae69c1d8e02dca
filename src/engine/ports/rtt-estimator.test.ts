import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RttEstimator } from './rtt-estimator.ts';

describe('RTT estimator', () => {
  const policy = { initialMs: 1000, minMs: 100, maxMs: 1250, rttMultiple: 3 };

  it('waits the initial time-out until an answer gives an RTT', () => {
    const rtt = new RttEstimator(policy);
    assert.equal(rtt.timeoutMs(), 1000);
    assert.equal(rtt.sampleCount(), 0);
  });

  it('falls to the floor on a fast network and stays above it', () => {
    const rtt = new RttEstimator(policy);
    for (let i = 0; i < 50; i += 1) rtt.sample(0.05);
    assert.equal(rtt.timeoutMs(), 100);
    assert.ok(rtt.smoothedMs() < 1);
  });

  it('follows srtt + 4·rttvar for a jittery path, and a multiple of srtt for a steady one', () => {
    const jittery = new RttEstimator(policy);
    jittery.sample(100); // srtt 100, rttvar 50 → 300
    assert.equal(jittery.timeoutMs(), 300);
    jittery.sample(300); // rttvar 0.75·50 + 0.25·200 = 87.5, srtt 125 → 475
    assert.equal(jittery.timeoutMs(), 475);
    const steady = new RttEstimator(policy);
    for (let i = 0; i < 100; i += 1) steady.sample(200);
    // rttvar decays to ~0, so the multiple (3 × 200) holds the time-out up.
    assert.ok(Math.abs(steady.timeoutMs() - 600) < 1, String(steady.timeoutMs()));
  });

  it('never waits longer than the cap', () => {
    const rtt = new RttEstimator(policy);
    rtt.sample(5000);
    assert.equal(rtt.timeoutMs(), 1250);
  });
});
