/**
 * The job tables as the job runner (src/jobs/job-runner.ts) drives them: the embedded `jobs`
 * table of SQLite and pg-boss's tables on PostgreSQL. The runner owns the queue's behaviour
 * (polling, concurrency, heartbeats, retries); the SQL of each adapter lives here, in storage.
 */

/** How a job is enqueued (JobQueue's EnqueueOptions). */
export interface InsertOptions {
  /** At most one queued-or-running job of the kind per key. */
  singletonKey?: string;
  /** Not run before this time. */
  startAfter?: Date;
}

/** What a backend reads of a job kind's handler: its retry policy. */
export interface JobRetryPolicy {
  kind: string;
  retryLimit: number;
  retryDelayMs: number;
}

/** Default lease of a claimed job. */
export const defaultLeaseMs = 30_000;

/** A job held by this worker under a lease; token tells this claim apart from later ones. */
export interface ClaimedJob {
  id: string;
  kind: string;
  payload: unknown;
  attempt: number;
  token: string;
}

/**
 * What an adapter stores: the runner drives it. Every write on a claimed job is guarded by the
 * claim's token and answers false when the claim is no longer this worker's.
 */
export interface QueueBackend {
  readonly leaseMs: number;
  insert(kind: string, payload: unknown, options: InsertOptions): Promise<string>;
  /** Called once by work() with the handlers it will run. */
  prepare(handlers: ReadonlyMap<string, JobRetryPolicy>): Promise<void>;
  claim(kinds: string[]): Promise<ClaimedJob | undefined>;
  extend(job: ClaimedJob): Promise<boolean>;
  complete(job: ClaimedJob): Promise<boolean>;
  /** retryAt set: queued again from then on; unset: failed for good. */
  fail(job: ClaimedJob, error: string, retryAt: Date | undefined): Promise<boolean>;
  /** Back to the queue (at once, or from runAt), the attempt not counted. */
  release(job: ClaimedJob, runAt?: Date): Promise<boolean>;
  /** True while the job is queued or active. */
  isPending(id: string): Promise<boolean>;
  /** Housekeeping on each poll: expired leases, old rows. */
  sweep(): Promise<void>;
  close(): Promise<void>;
}
