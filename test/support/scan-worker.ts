// A worker process for the scan tests: opens the runtime on the test store named by its
// environment (the harness's SQLite folder or PostgreSQL schema), works the real job handlers
// (scans, zone lookups) with a short lease, and prints "worker ready <runnerName>".
// Run as: node --import tsx test/support/scan-worker.ts
//   SCAN_WORKER_DATA_DIR, SCAN_WORKER_SCHEMA, SCAN_WORKER_LEASE_MS (default 1000),
//   SCAN_WORKER_CONCURRENCY (scans at once, default 1).
// Only 127.0.0.0/8 is allowed past the egress guard: the tests' target sites live there.
import pino from 'pino';
import { defaultConfig } from '../../src/config/config.ts';
import { jobHandlers } from '../../src/jobs/handlers.ts';
import { runnerName } from '../../src/jobs/scan.job.ts';
import { openRuntime } from '../../src/runtime.ts';
import { openTestDatabase, testStoreConfig } from './harness.ts';

const dataDir = process.env['SCAN_WORKER_DATA_DIR'];
const schema = process.env['SCAN_WORKER_SCHEMA'];
if (dataDir === undefined || schema === undefined)
  throw new Error('SCAN_WORKER_DATA_DIR and SCAN_WORKER_SCHEMA are required');
const leaseMs = Number(process.env['SCAN_WORKER_LEASE_MS'] ?? 1000);
const scanConcurrency = Number(process.env['SCAN_WORKER_CONCURRENCY'] ?? 1);

const log = pino({ level: 'warn' });
const database = await openTestDatabase(dataDir, schema);
const runtime = await openRuntime(
  {
    ...defaultConfig,
    ...testStoreConfig(dataDir, schema),
    logLevel: 'warn',
    egressAllow: ['127.0.0.0/8'],
    scanConcurrency,
  },
  { database, log, jobs: { leaseMs } },
);
await runtime.jobs.work(jobHandlers(runtime), { pollIntervalMs: 100 });
console.log(`worker ready ${runnerName}`);

let isClosing = false;
process.on('SIGTERM', () => {
  if (isClosing) return;
  isClosing = true;
  void runtime.close().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
