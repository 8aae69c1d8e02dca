import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import type { InjectedRequest } from '../check-kit/injection.ts';
import type { InjectedSender } from './active-check.ts';

/** Seconds a time-based payload asks the server to wait; a hit is confirmed twice, with a fast control between. */
export const delaySeconds = 4;

/** An answer and how long it took, in milliseconds. */
export interface TimedAnswer {
  exchange: HttpExchange;
  ms: number;
}

/** Sends one request and measures how long the answer took. */
export async function timedSend(send: InjectedSender, request: InjectedRequest): Promise<TimedAnswer> {
  const started = performance.now();
  const exchange = await send(request);
  return { exchange, ms: performance.now() - started };
}

/** The three timed answers that make a time-based finding. */
export interface DelayProof {
  first: TimedAnswer;
  control: TimedAnswer;
  second: TimedAnswer;
}

/**
 * Confirms that `delayed` makes the server wait: its answer comes at least 90 % of
 * delaySeconds after the baseline's time, the `control` (the same payload asking for no wait)
 * comes sooner, and `delayed` sent again waits again. A slow moment of the site delays one
 * answer, not this sequence; a page that is always slow fails the control.
 */
export async function confirmDelay(
  send: InjectedSender,
  baseline: TimedAnswer,
  delayed: InjectedRequest,
  control: InjectedRequest,
): Promise<DelayProof | undefined> {
  const threshold = baseline.ms + delaySeconds * 1000 * 0.9;
  const first = await timedSend(send, delayed);
  if (first.ms < threshold) return undefined;
  const fast = await timedSend(send, control);
  if (fast.ms >= threshold) return undefined;
  const second = await timedSend(send, delayed);
  if (second.ms < threshold) return undefined;
  return { first, control: fast, second };
}

/** The sentence of a time-based confirmation: the payload's two times against the control's and the baseline's. */
export function describeDelay(
  payload: string,
  controlPayload: string,
  proof: DelayProof,
  baseline: TimedAnswer,
  how = 'appended',
): string {
  return `by timing, twice: with ${JSON.stringify(payload)} ${how} the answer took ${Math.round(proof.first.ms)} ms and ${Math.round(proof.second.ms)} ms, with ${JSON.stringify(controlPayload)} ${Math.round(proof.control.ms)} ms, the original request ${Math.round(baseline.ms)} ms`;
}
