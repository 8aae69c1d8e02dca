import { Worker } from 'node:worker_threads';
import type { OpenLoopOptions, OpenLoopResult } from './open-loop.ts';

const entry = new URL('./open-loop-thread.mjs', import.meta.url);

/**
 * runOpenLoop on a worker thread of its own: its clock and its answers' timing then do not wait
 * behind whatever else the benchmark's event loop does meanwhile (events-fanout's five webhook
 * receivers verify hundreds of signed deliveries a second there, which delayed the load
 * generator's own timers and inflated the latencies it measured).
 */
export function runOpenLoopOnThread(options: OpenLoopOptions): Promise<OpenLoopResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry, { workerData: options });
    worker.once('message', (result: OpenLoopResult) => resolve(result));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the open-loop thread exited (${code}) without a result`)));
  });
}
