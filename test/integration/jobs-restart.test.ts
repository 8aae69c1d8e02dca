import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { killNow, spawnOwned } from '../support/child-processes.ts';
import { after, before, describe, it } from 'node:test';
import { createHarness, testStore, type Harness } from '../support/harness.ts';
import { createTestJobTables, jobStateOf, stepsOf, waitUntil } from '../support/test-jobs.ts';

interface Worker {
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
}

/** Starts test/support/job-worker.ts on the harness's store and waits until it works jobs. */
async function startWorker(h: Harness): Promise<Worker> {
  const child = spawnOwned(process.execPath, ['--import', 'tsx', 'test/support/job-worker.ts'], {
    env: {
      ...process.env,
      JOB_WORKER_DATA_DIR: h.config.dataDir,
      JOB_WORKER_SCHEMA: h.schema,
      JOB_WORKER_LEASE_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await waitUntil(
    'the worker process to start',
    async () => {
      if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}:\n${output}`);
      return output.includes('worker ready') ? true : undefined;
    },
    30_000,
  ).catch(async (err: unknown) => {
    await killNow(child);
    throw err;
  });
  return { child, exited, output: () => output };
}

describe(`a job survives its worker process (${testStore})`, () => {
  let h: Harness;
  const workers: Worker[] = [];

  before(async () => {
    h = await createHarness();
    await createTestJobTables(h.runtime.database);
  });
  after(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await h.close();
  });

  it('finishes after SIGKILL and restart with every step counted exactly once', async () => {
    const steps = 40;
    const id = await h.jobs.enqueue('test-steps', { steps, stepMs: 150 });

    const first = await startWorker(h);
    workers.push(first);
    const reached = await waitUntil('the job to pass step 10', async () => {
      const { next } = await stepsOf(h.runtime.database, id);
      return next >= 10 ? next : undefined;
    });
    first.child.kill('SIGKILL');
    assert.equal(await first.exited, null, 'killed, not exited');
    const cut = await stepsOf(h.runtime.database, id);
    assert.ok(cut.next >= reached && cut.next < steps, `killed mid-job at step ${cut.next}`);
    assert.equal((await jobStateOf(h.runtime.database, id))?.state, 'active', 'the dead worker still holds the lease');

    const second = await startWorker(h);
    workers.push(second);
    const done = await waitUntil(
      'the job to complete',
      async () => {
        const state = await jobStateOf(h.runtime.database, id);
        return state?.state === 'completed' ? state : undefined;
      },
      30_000,
    );
    assert.equal(done.attempt, 2);
    const final = await stepsOf(h.runtime.database, id);
    assert.equal(final.next, steps);
    assert.deepEqual(
      final.counts,
      Array.from({ length: steps }, () => 1),
      'each step counted once',
    );

    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.output());
  });

  it('on SIGTERM hands the running job back at once; the next process resumes it from its checkpoint', async () => {
    const steps = 30;
    const id = await h.jobs.enqueue('test-steps', { steps, stepMs: 150 });
    const first = await startWorker(h);
    workers.push(first);
    await waitUntil('the job to pass step 5', async () =>
      (await stepsOf(h.runtime.database, id)).next >= 5 ? true : undefined,
    );
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0, first.output());
    assert.deepEqual(
      await jobStateOf(h.runtime.database, id),
      { state: 'queued', attempt: 0, lastError: null },
      'handed back, the run not counted',
    );
    assert.ok((await stepsOf(h.runtime.database, id)).next < steps);

    const second = await startWorker(h);
    workers.push(second);
    const done = await waitUntil('the job to complete', async () => {
      const state = await jobStateOf(h.runtime.database, id);
      return state?.state === 'completed' ? state : undefined;
    });
    assert.equal(done.attempt, 1);
    assert.deepEqual(
      (await stepsOf(h.runtime.database, id)).counts,
      Array.from({ length: steps }, () => 1),
    );
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.output());
  });
});
