/**
 * Waiting that ends when a signal aborts: a sleep, and a race of any promise against the signal
 * (for work that does not watch the signal itself: an SDK sleeping between retries, a DNS batch).
 * Both reject with the signal's own reason, so the caller knows why it was stopped.
 */

/** What an aborted wait rejects with: the signal's own reason, or an AbortError when it is not an Error. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('The operation was aborted', 'AbortError');
}

/**
 * The promise, or a rejection with the signal's reason as soon as the signal aborts, whichever
 * comes first: work that does not watch the signal must not hold an aborted run. The abandoned
 * promise's own rejection is swallowed.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** Waits `ms` milliseconds, or rejects with the signal's reason when it aborts first. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
