import type { Database } from '../storage/database.ts';
import { createEmbeddedQueue } from './embedded-queue.ts';
import type { JobQueue, QueueOptions } from './job-queue.ts';

/**
 * The job queue of a store: the embedded jobs table on SQLite, pg-boss on PostgreSQL. pg-boss
 * (about 15 MB of memory once loaded) is loaded only by processes on PostgreSQL.
 */
export async function createJobQueue(database: Database, options: QueueOptions): Promise<JobQueue> {
  if (database.dialect !== 'postgres') return createEmbeddedQueue(database, options);
  const { createPgBossQueue } = await import('./pgboss-queue.ts');
  return createPgBossQueue(database, options);
}
