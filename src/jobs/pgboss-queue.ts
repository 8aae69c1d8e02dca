import type { Database } from '../storage/database.ts';
import { PgBossJobStore } from '../storage/job-queue/pgboss-job-store.ts';
import type { QueueOptions } from './job-queue.ts';
import { JobRunner } from './job-runner.ts';

/** The scaled job queue: pg-boss in its own schema of the same PostgreSQL database (its SQL in storage). */
export function createPgBossQueue(database: Database, options: QueueOptions): JobRunner {
  return new JobRunner(new PgBossJobStore(database, options.log, options), options.log);
}
