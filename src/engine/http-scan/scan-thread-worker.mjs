// Worker-thread entry of the application scans (threaded-scan-engine.ts). Plain JavaScript so
// that it starts however the parent loaded TypeScript (engine/threads/import-ts.mjs).
import { importTs } from '../threads/import-ts.mjs';

(await importTs('./scan-thread.ts', import.meta.url)).serveScanThread();
