/** Waits `ms` milliseconds, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The request budget of one scan, shared by the crawler and the checks: a token bucket of
 * capacity one refilled at `requestsPerSecond` (0 = unlimited), so N requests span at least
 * (N-1)/rate seconds with no burst, plus a bound on requests in flight.
 */
export class RequestBudget {
  private nextSlotAt = 0;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly requestsPerSecond: number,
    private readonly maxInFlight: number,
  ) {}

  /** Waits for a free slot and a token; returns the release function of the slot. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    await this.takeSlot(signal);
    try {
      await this.takeToken(signal);
    } catch (err) {
      this.releaseSlot();
      throw err;
    }
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
    const now = performance.now();
    // Slots are handed out in call order; each caller waits for its own.
    const slot = Math.max(now, this.nextSlotAt);
    this.nextSlotAt = slot + interval;
    if (slot > now) {
      try {
        await sleep(slot - now, signal);
      } catch (err) {
        // An aborted waiter gives its slot back only when it was the last one handed out.
        if (this.nextSlotAt === slot + interval) this.nextSlotAt = slot;
        throw err;
      }
    }
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
