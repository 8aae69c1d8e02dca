import type { Logger } from 'pino';
import type { ClaimedJob, QueueBackend } from '../storage/job-queue/queue-backend.ts';
import type { EnqueueOptions, JobDeferral, JobHandler, JobQueue, StopOptions, WorkOptions } from './job-queue.ts';

interface Running {
  job: ClaimedJob;
  controller: AbortController;
  isReleased: boolean;
  done: Promise<void>;
}

/** The job port over a backend: polling, concurrency, heartbeats, retries and hand-back on stop. */
export class JobRunner implements JobQueue {
  private handlers = new Map<string, JobHandler>();
  private running = new Map<string, Running>();
  private concurrency = 4;
  private pollIntervalMs = 1000;
  private isStopping = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private isWoken = false;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly backend: QueueBackend,
    private readonly log: Logger,
  ) {}

  async enqueue(kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<string> {
    const id = await this.backend.insert(kind, payload, options);
    this.wake();
    return id;
  }

  isPending(id: string): Promise<boolean> {
    return this.backend.isPending(id);
  }

  async work(handlers: JobHandler[], options: WorkOptions = {}): Promise<void> {
    if (this.loop !== undefined || this.stopped !== undefined)
      throw new Error('work() was already called on this queue, or it is stopped');
    for (const handler of handlers) {
      if (this.handlers.has(handler.kind)) throw new Error(`two handlers for job kind ${handler.kind}`);
      this.handlers.set(handler.kind, handler);
    }
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.pollIntervalMs = Math.max(10, options.pollIntervalMs ?? 1000);
    if (this.handlers.size === 0) return;
    await this.backend.prepare(this.handlers);
    this.loop = this.runLoop();
  }

  stop(options: StopOptions = {}): Promise<void> {
    this.stopped ??= this.shutdown(options.graceMs ?? 5000);
    return this.stopped;
  }

  private wake(): void {
    this.isWoken = true;
    this.wakeUp?.();
  }

  /** Kinds this process may take another job of: under the queue's and the kind's concurrency. */
  private claimableKinds(): string[] {
    const counts = new Map<string, number>();
    for (const entry of this.running.values()) counts.set(entry.job.kind, (counts.get(entry.job.kind) ?? 0) + 1);
    return [...this.handlers.values()]
      .filter((h) => (counts.get(h.kind) ?? 0) < (h.concurrency ?? this.concurrency))
      .map((h) => h.kind);
  }

  private async runLoop(): Promise<void> {
    let nextSweep = 0;
    while (!this.isStopping) {
      this.isWoken = false;
      if (Date.now() >= nextSweep) {
        nextSweep = Date.now() + this.pollIntervalMs;
        await this.backend.sweep().catch((err: unknown) => this.log.error({ err }, 'job queue housekeeping failed'));
      }
      while (!this.isStopping && this.running.size < this.concurrency) {
        const kinds = this.claimableKinds();
        if (kinds.length === 0) break;
        const job = await this.backend.claim(kinds).catch((err: unknown) => {
          this.log.error({ err }, 'claiming a job failed');
          return undefined;
        });
        if (job === undefined) break;
        if (this.isStopping) await this.backend.release(job).catch(() => false);
        else this.start(job);
      }
      if (this.isStopping) break;
      if (this.isWoken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollIntervalMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  private start(job: ClaimedJob): void {
    const handler = this.handlers.get(job.kind)!;
    const controller = new AbortController();
    const log = this.log.child({ jobId: job.id, kind: job.kind, attempt: job.attempt });
    const entry: Running = { job, controller, isReleased: false, done: Promise.resolve() };
    this.running.set(job.id, entry);
    let isLeaseLost = false;
    let isBeating = false;
    const heartbeat = setInterval(
      () => {
        if (isBeating || entry.isReleased) return;
        isBeating = true;
        this.backend
          .extend(job)
          .then((held) => {
            if (!held && !entry.isReleased) {
              isLeaseLost = true;
              log.warn('lease lost: another worker holds the job now; aborting this run');
              controller.abort(new Error('lease lost'));
            }
          })
          .catch((err: unknown) => log.warn({ err }, 'renewing the lease failed'))
          .finally(() => (isBeating = false));
      },
      Math.max(5, Math.floor(this.backend.leaseMs / 3)),
    );

    const run = async () => {
      let payload: unknown;
      try {
        payload = handler.parse(job.payload);
      } catch (err) {
        clearInterval(heartbeat);
        log.error({ err }, 'job payload is invalid; failing the job');
        await this.backend.fail(job, `invalid payload: ${(err as Error).message}`, undefined);
        return;
      }
      let failure: unknown;
      let isOk = false;
      let deferral: JobDeferral | void = undefined;
      try {
        deferral = await handler.handle(payload, {
          jobId: job.id,
          attempt: job.attempt,
          signal: controller.signal,
          log,
        });
        isOk = true;
      } catch (err) {
        failure = err;
      }
      clearInterval(heartbeat);
      if (entry.isReleased || isLeaseLost) return;
      if (isOk && deferral !== undefined) {
        await this.backend.release(job, deferral.deferUntil);
      } else if (isOk) {
        if (!(await this.backend.complete(job))) log.warn('job finished but its lease had passed to another worker');
      } else if (this.isStopping) {
        await this.backend.release(job);
      } else {
        const message = failure instanceof Error ? failure.message : String(failure);
        const willRetry = job.attempt <= handler.retryLimit;
        log.warn({ err: failure, willRetry }, 'job failed');
        await this.backend.fail(job, message, willRetry ? new Date(Date.now() + handler.retryDelayMs) : undefined);
      }
    };
    entry.done = run()
      .catch((err: unknown) => log.error({ err }, 'settling a job failed'))
      .finally(() => {
        clearInterval(heartbeat);
        this.running.delete(job.id);
        this.wake();
      });
  }

  private async shutdown(graceMs: number): Promise<void> {
    this.isStopping = true;
    this.wake();
    await this.loop;
    const entries = [...this.running.values()];
    for (const entry of entries) entry.controller.abort(new Error('job queue stopping'));
    if (entries.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.allSettled(entries.map((e) => e.done)), grace]);
      clearTimeout(timer);
    }
    for (const entry of this.running.values()) {
      // The handler ignored its signal: hand the job back anyway; a late result is dropped.
      entry.isReleased = true;
      this.log.warn(
        { jobId: entry.job.id, kind: entry.job.kind },
        'handler did not stop in time; handing its job back',
      );
      await this.backend
        .release(entry.job)
        .catch((err: unknown) => this.log.error({ err }, 'handing a job back failed'));
    }
    await this.backend.close();
  }
}
