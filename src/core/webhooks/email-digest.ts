import type { EventRecord } from '../events/event.types.ts';

/**
 * When an e-mail webhook sends. With a digest period of 0 every event is its own e-mail; with a
 * period of N minutes the events pending for the webhook wait until the oldest of them is N
 * minutes old and then leave together as one digest (at most digestCap of them: the rest, the
 * newest, stay pending for the next one, which is then due at once).
 */

/** The most events one digest carries. */
export const digestCap = 500;

/**
 * What to do with the webhook's pending events (oldest first, as the log orders them): send
 * these now, or wait until the given time. Nothing pending: nothing to send.
 */
export function digestDue(
  pending: readonly EventRecord[],
  digestMinutes: number,
  now: Date,
): { send: EventRecord[] } | { waitUntil: Date } {
  const first = pending[0];
  if (first === undefined) return { send: [] };
  if (digestMinutes <= 0) return { send: [first] };
  let oldest = first.occurredAt.getTime();
  for (const event of pending) oldest = Math.min(oldest, event.occurredAt.getTime());
  const due = oldest + digestMinutes * 60_000;
  if (now.getTime() >= due) return { send: pending.slice(0, digestCap) };
  return { waitUntil: new Date(due) };
}
