import type { Database } from '../storage/database.ts';
import { EmbeddedJobStore } from '../storage/job-queue/embedded-job-store.ts';
import type { QueueOptions } from './job-queue.ts';
import { JobRunner } from './job-runner.ts';

/** The embedded job queue: the `jobs` table in the SQLite store (its SQL in storage), worked in this process. */
export function createEmbeddedQueue(database: Database, options: QueueOptions): JobRunner {
  return new JobRunner(new EmbeddedJobStore(database, options), options.log);
}
