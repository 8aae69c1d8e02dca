import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoalescedRead } from './coalesced-read.ts';

describe('CoalescedRead', () => {
  it('serves a burst with two reads, and nobody a read that began before it arrived', async () => {
    let value = 0;
    let reads = 0;
    const starts: number[] = [];
    const reader = new CoalescedRead(async () => {
      reads++;
      starts.push(value);
      const seen = value;
      await new Promise((r) => setTimeout(r, 10));
      return seen;
    });
    const first = reader.get('t');
    value = 1; // a commit lands while the first read runs
    const burst = Array.from({ length: 50 }, () => reader.get('t'));
    assert.equal(await first, 0);
    assert.deepEqual(new Set(await Promise.all(burst)), new Set([1]), 'the burst arrived after the commit and sees it');
    assert.equal(reads, 2);
  });

  it('reads again for a caller arriving after the reads ended, and survives a failed read', async () => {
    let calls = 0;
    const reader = new CoalescedRead(async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return calls;
    });
    await assert.rejects(reader.get('k'), /boom/);
    assert.equal(await reader.get('k'), 2);
    assert.equal(await reader.get('k'), 3);
  });
});
