// A worker process for the restart test: opens the runtime on the test store named by its
// environment, works the test-only step job with a short lease, and prints "worker ready".
// Run as: node --import tsx test/support/job-worker.ts (JOB_WORKER_DATA_DIR, JOB_WORKER_SCHEMA).
import pino from 'pino';
import { defaultConfig } from '../../src/config/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { openTestDatabase, testStoreConfig } from './harness.ts';
import { createTestJobTables, stepJob } from './test-jobs.ts';

const dataDir = process.env['JOB_WORKER_DATA_DIR']!;
const schema = process.env['JOB_WORKER_SCHEMA']!;
const leaseMs = Number(process.env['JOB_WORKER_LEASE_MS'] ?? 1000);

const database = await openTestDatabase(dataDir, schema);
const runtime = await openRuntime(
  { ...defaultConfig, ...testStoreConfig(dataDir, schema), logLevel: 'warn' },
  { database, log: pino({ level: 'warn' }), jobs: { leaseMs } },
);
await createTestJobTables(database);
await runtime.jobs.work([stepJob(database)], { pollIntervalMs: 100 });
console.log('worker ready');

process.on('SIGTERM', () => {
  void runtime.close().then(() => process.exit(0));
});
