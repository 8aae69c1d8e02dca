// Worker-thread entry of runOpenLoopOnThread (open-loop-thread.ts). Plain JavaScript so that it
// starts however the parent loaded TypeScript (src/engine/threads/import-ts.mjs).
import { parentPort, workerData } from 'node:worker_threads';
import { importTs } from '../../src/engine/threads/import-ts.mjs';

const { runOpenLoop } = await importTs('./open-loop.ts', import.meta.url);
parentPort.postMessage(await runOpenLoop(workerData));
