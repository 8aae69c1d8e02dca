import { sleepUnlessAborted } from '../../../shared/abortable.ts';

/**
 * The request budget of one scan, shared by the crawler and the checks: a token bucket of
 * capacity one refilled at `requestsPerSecond` (0 = unlimited), so N requests span at least
 * (N-1)/rate seconds with no burst, plus a bound on requests in flight.
 */
export class RequestBudget {
  private grants: Promise<void> = Promise.resolve();
  private lastGrantAt = -Infinity;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly requestsPerSecond: number,
    private readonly maxInFlight: number,
  ) {}

  /** Waits for a free slot and a token; returns the release function of the slot. */
  acquire(signal: AbortSignal): Promise<() => void> {
    // Unlimited rate and a free slot: nothing to wait for (the common case of a fast crawl).
    if (this.requestsPerSecond <= 0 && this.inFlight < this.maxInFlight) {
      this.inFlight += 1;
      return Promise.resolve(this.releaserOfSlot());
    }
    return this.acquireWaiting(signal);
  }

  private async acquireWaiting(signal: AbortSignal): Promise<() => void> {
    await this.takeSlot(signal);
    try {
      await this.takeToken(signal);
    } catch (err) {
      this.releaseSlot();
      throw err;
    }
    return this.releaserOfSlot();
  }

  /** The release function of a slot taken: releases it once, however often called. */
  private releaserOfSlot(): () => void {
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      this.releaseSlot();
    };
  }

  private async takeToken(signal: AbortSignal): Promise<void> {
    if (this.requestsPerSecond <= 0) return;
    const interval = 1000 / this.requestsPerSecond;
    // Tokens are granted one after the other, each at least `interval` after the previous grant
    // as it really happened: a timer that fires late never lets two requests through together.
    const turn = this.grants.then(async () => {
      signal.throwIfAborted();
      // Timers have millisecond granularity and may fire a fraction early: wait until really due.
      for (
        let wait = this.lastGrantAt + interval - performance.now();
        wait > 0;
        wait = this.lastGrantAt + interval - performance.now()
      ) {
        await sleepUnlessAborted(Math.max(1, Math.ceil(wait)), signal);
      }
      this.lastGrantAt = performance.now();
    });
    this.grants = turn.catch(() => undefined);
    await turn;
  }

  private takeSlot(signal: AbortSignal): Promise<void> {
    if (this.inFlight < this.maxInFlight) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const grant = (): void => {
        signal.removeEventListener('abort', onAbort);
        this.inFlight += 1;
        resolve();
      };
      const onAbort = (): void => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private releaseSlot(): void {
    this.inFlight -= 1;
    this.waiting.shift()?.();
  }
}
