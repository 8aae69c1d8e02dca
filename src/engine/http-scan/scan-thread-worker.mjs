// Worker-thread entry of the application scans (threaded-scan-engine.ts). Plain JavaScript so
// that it starts however the parent loaded TypeScript (import-ts.mjs).
import { importTs } from '../import-ts.mjs';

(await importTs('./scan-thread.ts', import.meta.url)).serveScanThread();
