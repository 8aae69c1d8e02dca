import type { Database } from '../storage/database.ts';
import { createEmbeddedQueue } from './embedded-queue.ts';
import type { JobQueue, QueueOptions } from './job-queue.ts';
import { createPgBossQueue } from './pgboss-queue.ts';

/** The job queue of a store: the embedded jobs table on SQLite, pg-boss on PostgreSQL. */
export function createJobQueue(database: Database, options: QueueOptions): JobQueue {
  return database.dialect === 'postgres' ? createPgBossQueue(database, options) : createEmbeddedQueue(database, options);
}
