import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits `ms`, or less when the signal aborts (the caller then reads its signal): the pauses a
 * check takes between attempts. The abort listener goes with the wait, so thousands of pauses
 * leave none behind on the scan's signal.
 */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    // Aborted: the caller sees its signal.
  }
}
