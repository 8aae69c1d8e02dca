import type { Logger } from 'pino';

/**
 * The job port. Delivery is at least once: a job runs until a handler finishes it, and no two
 * workers hold one job at the same time (a lease that the running worker renews; a job whose
 * worker died is handed out again once its lease expires). Handlers are therefore idempotent
 * and checkpoint their own progress in their domain tables.
 */
export interface JobQueue {
  /**
   * Adds a job and answers its id. With a singletonKey, at most one job of the kind per key is
   * queued or running: while one is, enqueue answers that job's id instead of adding another.
   */
  enqueue(kind: string, payload: unknown, options?: EnqueueOptions): Promise<string>;
  /** Starts working the handlers' kinds in the background; resolves once the worker runs. */
  work(handlers: JobHandler[], options?: WorkOptions): Promise<void>;
  /**
   * Stops working: aborts running handlers through their signal, waits up to graceMs for them
   * to settle, and hands every unfinished job back to the queue at once (that attempt is not
   * counted). Idempotent. Enqueueing still works afterwards (until the store closes), so
   * requests finishing during a shutdown can add jobs.
   */
  stop(options?: StopOptions): Promise<void>;
  /** True while the job is queued (or waiting to retry) or running. */
  isPending(id: string): Promise<boolean>;
}

/** Options of JobQueue.enqueue. */
export interface EnqueueOptions {
  /** At most one queued-or-running job of the kind per key. */
  singletonKey?: string;
  /** Not run before this time. */
  startAfter?: Date;
}

/** Options of JobQueue.work. */
export interface WorkOptions {
  /** Jobs run at the same time by this process (default 4). */
  concurrency?: number;
  /** How often to look for due jobs when nothing woke the worker (default 1000 ms). */
  pollIntervalMs?: number;
}

/** Options of JobQueue.stop. */
export interface StopOptions {
  /** How long aborted handlers may take to settle before their jobs are handed back (default 5000 ms). */
  graceMs?: number;
}

/** What a handler is told about the job it runs. */
export interface JobContext {
  jobId: string;
  /** 1 on the first run; a retry or a run after a lost lease counts up. */
  attempt: number;
  /** Aborted when the queue stops or the lease was lost: stop soon, the job runs again later. */
  signal: AbortSignal;
  log: Logger;
}

/**
 * One job kind: its name, payload schema, retry policy and idempotent handler. A failed run is
 * retried retryLimit times, retryDelayMs apart; a run whose worker died counts as failed.
 */
export interface JobHandler<P = unknown> {
  kind: string;
  retryLimit: number;
  retryDelayMs: number;
  /** Jobs of this kind run at the same time by one process (default: the queue's concurrency). */
  concurrency?: number;
  /** Validates the stored payload; a payload that does not parse fails the job at once. */
  parse(payload: unknown): P;
  /** Does the work; answering a deferral puts the job back, not counted as an attempt, until then. */
  handle(payload: P, ctx: JobContext): Promise<void | JobDeferral>;
}

/** A handler's answer when the job cannot run yet (a limit elsewhere is reached). */
export interface JobDeferral {
  deferUntil: Date;
}

/** Settings of a queue adapter. */
export interface QueueOptions {
  log: Logger;
  /** How long a claim holds without renewal (default 30 s); renewed every third of it. */
  leaseMs?: number;
}
