import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import pino from 'pino';
import { createJobQueue } from '../../src/jobs/create-queue.ts';
import type { JobQueue } from '../../src/jobs/job-queue.ts';
import type { Database } from '../../src/storage/database.ts';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { countJob, createJobStore, createTestJobTables, jobStateOf, runsOf, waitUntil } from '../support/test-jobs.ts';

const log = pino({ level: 'silent' });

describe(`durable jobs (${testStore})`, () => {
  let h: Harness;
  const extra: Array<{ queue?: JobQueue; database?: Database }> = [];

  before(async () => {
    h = await createHarness();
    await createTestJobTables(h.runtime.database);
  });
  after(async () => {
    for (const { queue } of extra) await queue?.stop();
    for (const { database } of extra) await database?.close();
    await h.close();
  });

  /** A queue on its own connection pool: another process, as far as the store can tell. */
  async function otherProcess(leaseMs?: number): Promise<{ queue: JobQueue; database: Database }> {
    const database = await h.openDatabase();
    const queue = await createJobQueue(database, { log, ...(leaseMs === undefined ? {} : { leaseMs }) });
    extra.push({ queue, database });
    return { queue, database };
  }

  const completed = (id: string, database = h.runtime.database) =>
    waitUntil(`job ${id} completed`, async () => {
      const state = await jobStateOf(database, id);
      return state?.state === 'completed' ? state : undefined;
    });
  const runsFor = async (id: string) => (await runsOf(h.runtime.database)).filter((r) => r.job_id === id);

  it('runs a job once and completes it; a job that fails once completes on its retry', async () => {
    await h.jobs.work([countJob(h.runtime.database, { kind: 'test-once' })], { pollIntervalMs: 50 });
    const id = await h.jobs.enqueue('test-once', {});
    assert.deepEqual(await completed(id), { state: 'completed', attempt: 1, lastError: null });
    assert.deepEqual(
      (await runsFor(id)).map((r) => r.attempt),
      [1],
    );

    const flaky = await h.jobs.enqueue('test-once', { failUntilAttempt: 1 });
    assert.equal((await completed(flaky)).attempt, 2);
    assert.deepEqual(
      (await runsFor(flaky)).map((r) => r.attempt),
      [1, 2],
    );
  });

  it('starts a job enqueued in the working process at once, without waiting for the next poll', async () => {
    const { queue, database } = await otherProcess();
    // A poll a day away: only the wake-up of enqueue() can start the job within the wait below.
    await queue.work([countJob(database, { kind: 'test-wake' })], { pollIntervalMs: 24 * 3600 * 1000 });
    // Let its first look for due jobs (there are none) end, so that the worker waits for the next.
    await delay(300);
    const id = await queue.enqueue('test-wake', {});
    assert.deepEqual(await completed(id), { state: 'completed', attempt: 1, lastError: null });
  });

  it('retries a failing job up to its retry limit, then marks it failed with the last error', async () => {
    const { queue } = await otherProcess();
    await queue.work([countJob(h.runtime.database, { kind: 'test-fails', retryLimit: 2 })], { pollIntervalMs: 50 });
    const id = await queue.enqueue('test-fails', { failUntilAttempt: 99 });
    const failed = await waitUntil('job failed', async () => {
      const state = await jobStateOf(h.runtime.database, id);
      return state?.state === 'failed' ? state : undefined;
    });
    assert.deepEqual(failed, { state: 'failed', attempt: 3, lastError: 'planned failure 3' });
    assert.deepEqual(
      (await runsFor(id)).map((r) => r.attempt),
      [1, 2, 3],
    );
  });

  it('fails a job whose payload does not parse at once, without running it', async () => {
    const { queue } = await otherProcess();
    await queue.work([countJob(h.runtime.database, { kind: 'test-parse', retryLimit: 5 })], { pollIntervalMs: 50 });
    const id = await queue.enqueue('test-parse', 'not an object');
    const failed = await waitUntil('job failed', async () => {
      const state = await jobStateOf(h.runtime.database, id);
      return state?.state === 'failed' ? state : undefined;
    });
    assert.match(failed.lastError ?? '', /invalid payload: payload must be an object/);
    assert.deepEqual(await runsFor(id), []);
  });

  it('keeps at most one queued-or-running job per singleton key', async () => {
    const { queue } = await otherProcess();
    const first = await queue.enqueue('test-single', {}, { singletonKey: 'zone-a' });
    assert.equal(await queue.enqueue('test-single', {}, { singletonKey: 'zone-a' }), first);
    const other = await queue.enqueue('test-single', {}, { singletonKey: 'zone-b' });
    assert.notEqual(other, first);
    const unkeyed = await Promise.all([queue.enqueue('test-single', {}), queue.enqueue('test-single', {})]);
    assert.notEqual(unkeyed[0], unkeyed[1]);

    await queue.work([countJob(h.runtime.database, { kind: 'test-single' })], { pollIntervalMs: 50 });
    await completed(first);
    await completed(other);
    const again = await queue.enqueue('test-single', {}, { singletonKey: 'zone-a' });
    assert.notEqual(again, first, 'a finished job no longer holds its key');
    await completed(again);
    assert.equal((await runsFor(first)).length, 1);
  });

  it('does not run a job before its startAfter', async () => {
    const { queue } = await otherProcess();
    await queue.work([countJob(h.runtime.database, { kind: 'test-later' })], { pollIntervalMs: 50 });
    const startAfter = new Date(Date.now() + 1500);
    const id = await queue.enqueue('test-later', {}, { startAfter });
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal((await jobStateOf(h.runtime.database, id))?.state, 'queued');
    await completed(id);
    assert.ok(Date.now() >= startAfter.getTime());
  });

  it('stop() aborts a running handler and hands its job back at once; the next worker finishes it', async () => {
    const a = await otherProcess();
    await a.queue.work(
      [countJob(h.runtime.database, { kind: 'test-handback', runner: 'a', block: true, retryLimit: 0 })],
      { pollIntervalMs: 50 },
    );
    const id = await a.queue.enqueue('test-handback', {});
    await waitUntil('runner a started', async () => ((await runsFor(id)).length === 1 ? true : undefined));
    const started = Date.now();
    await a.queue.stop({ graceMs: 10_000 });
    assert.ok(Date.now() - started < 2000, 'the aborted handler settles without waiting for the grace period');
    assert.deepEqual(await jobStateOf(h.runtime.database, id), { state: 'queued', attempt: 0, lastError: null });

    const b = await otherProcess();
    await b.queue.work([countJob(h.runtime.database, { kind: 'test-handback', runner: 'b', retryLimit: 0 })], {
      pollIntervalMs: 50,
    });
    assert.equal((await completed(id)).attempt, 1, 'a handed-back run does not count as an attempt');
    assert.deepEqual((await runsFor(id)).map((r) => [r.runner, r.attempt]).sort(), [
      ['a', 1],
      ['b', 1],
    ]);
  });

  it('hands out again a job whose worker vanished once its lease expires; the vanished claim can no longer write', async () => {
    const handler = countJob(h.runtime.database, { kind: 'test-vanish', runner: 'b' });
    const vanished = createJobStore(h.runtime.database, log, 1000);
    const id = await vanished.insert('test-vanish', {}, {});
    await vanished.prepare(new Map([[handler.kind, handler]]));
    const claim = await vanished.claim(['test-vanish']);
    assert.equal(claim?.id, id);
    assert.equal(claim.attempt, 1);

    const b = await otherProcess(1000);
    await b.queue.work([handler], { pollIntervalMs: 50 });
    const done = await completed(id);
    assert.equal(done.attempt, 2, 'the lost run counts as an attempt');
    assert.deepEqual(
      (await runsFor(id)).map((r) => [r.runner, r.attempt]),
      [['b', 2]],
    );
    assert.equal(await vanished.complete(claim), false);
    assert.equal(await vanished.extend(claim), false);
    await vanished.close();
  });

  it('two workers on separate connection pools run each of 200 jobs exactly once', async () => {
    const a = await otherProcess();
    const b = await otherProcess();
    await a.queue.work([countJob(a.database, { kind: 'test-many', runner: 'a' })], {
      concurrency: 4,
      pollIntervalMs: 20,
    });
    await b.queue.work([countJob(b.database, { kind: 'test-many', runner: 'b' })], {
      concurrency: 4,
      pollIntervalMs: 20,
    });
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) ids.add(await h.jobs.enqueue('test-many', { sleepMs: 5 }));
    assert.equal(ids.size, 200);
    const runs = await waitUntil(
      '200 runs',
      async () => {
        const all = (await runsOf(h.runtime.database)).filter((r) => ids.has(r.job_id));
        return all.length >= 200 ? all : undefined;
      },
      60_000,
    );
    for (const id of ids) await completed(id);
    const again = (await runsOf(h.runtime.database)).filter((r) => ids.has(r.job_id));
    assert.equal(again.length, 200, 'no job ran twice');
    assert.equal(new Set(again.map((r) => r.job_id)).size, 200);
    assert.ok(runs.some((r) => r.runner === 'a') && runs.some((r) => r.runner === 'b'), 'both workers took jobs');
  });
});
