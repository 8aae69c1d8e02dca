// Worker-thread entry of the parallel connect scan (parallel-connect-scan.ts). Plain JavaScript so
// that it starts however the parent loaded TypeScript (engine/threads/import-ts.mjs).
import { importTs } from '../threads/import-ts.mjs';

(await importTs('./connect-scan-thread.ts', import.meta.url)).serveConnectScan();
