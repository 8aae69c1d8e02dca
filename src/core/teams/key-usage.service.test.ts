import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyUsageRecorder, keyUseIntervalMs } from './key-usage.service.ts';

function fakeKeys(options: { fail?: boolean } = {}) {
  const writes: Array<[number, number, number]> = [];
  return {
    writes,
    recordUse: async (id: number, at: Date, notBefore: Date) => {
      if (options.fail === true) throw new Error('disk full');
      writes.push([id, at.getTime(), notBefore.getTime()]);
    },
  };
}

describe('KeyUsageRecorder', () => {
  it("writes a key's first use at once, then at most once per interval", async () => {
    const keys = fakeKeys();
    const recorder = new KeyUsageRecorder(keys, () => assert.fail('no failure expected'));
    const t = 1_700_000_000_000;
    recorder.record(7, t);
    recorder.record(7, t + 1000);
    recorder.record(7, t + keyUseIntervalMs - 1);
    recorder.record(8, t + 5);
    recorder.record(7, t + keyUseIntervalMs);
    await recorder.flush();
    assert.deepEqual(keys.writes, [
      [7, t, t - keyUseIntervalMs],
      [8, t + 5, t + 5 - keyUseIntervalMs],
      [7, t + keyUseIntervalMs, t],
    ]);
  });

  it('reports a failed write without throwing, and does not retry it within the interval', async () => {
    const failures: Array<[number, string]> = [];
    const recorder = new KeyUsageRecorder(fakeKeys({ fail: true }), (id, err) =>
      failures.push([id, (err as Error).message]),
    );
    assert.doesNotThrow(() => recorder.record(3, 1000));
    recorder.record(3, 2000);
    await recorder.flush();
    assert.deepEqual(failures, [[3, 'disk full']]);
  });

  it('survives a repository that throws before returning a promise', async () => {
    const failures: number[] = [];
    const recorder = new KeyUsageRecorder(
      {
        recordUse: () => {
          throw new Error('closed');
        },
      },
      (id) => failures.push(id),
    );
    assert.doesNotThrow(() => recorder.record(4, 1000));
    await recorder.flush();
    assert.deepEqual(failures, [4]);
  });

  it('remembers a bounded number of keys, forgetting the oldest first', async () => {
    const keys = fakeKeys();
    const recorder = new KeyUsageRecorder(keys, () => undefined, keyUseIntervalMs, 2);
    recorder.record(1, 0);
    recorder.record(2, 1);
    recorder.record(3, 2);
    recorder.record(2, 3);
    recorder.record(1, 4);
    await recorder.flush();
    assert.deepEqual(
      keys.writes.map((w) => w[0]),
      [1, 2, 3, 1],
      'key 1 was forgotten and written again; key 2 was still remembered',
    );
  });
});
