import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import { injectPayload, type InjectedRequest, type InjectionPoint } from '../check-kit/injection.ts';
import type { InjectedSender } from './active-check.ts';
import { sameAnswer } from './response-compare.ts';

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

/** Other baseline values tried at one point at most (each costs one request, more when it reaches other code). */
export const maxReachingValues = 2;

/** A point with another value in place, the request carrying it and the answer it got. */
export interface ValueVariant {
  point: InjectionPoint;
  request: InjectedRequest;
  answer: HttpExchange;
}

/**
 * Other values for a point that reach code its crawled value does not: each candidate (values
 * the site itself uses for the parameter name, then fixed ones such as `1` or `127.0.0.1`) is
 * sent in place of the value, and kept when the page answers differently from the original
 * answer (echoes of both values removed) and without a server error. A made-up sample value
 * often stops before the vulnerable code (no row matches, a ping form refuses a word), so a
 * payload appended to it proves nothing; appended to such a value, it reaches the query or the
 * shell. At most maxReachingValues candidates are tried.
 */
export async function reachingValues(
  point: InjectionPoint,
  candidates: readonly string[],
  original: HttpExchange,
  send: InjectedSender,
): Promise<ValueVariant[]> {
  const variants: ValueVariant[] = [];
  const tried = new Set([point.value]);
  for (const candidate of candidates) {
    if (tried.size > maxReachingValues) break;
    if (tried.has(candidate)) continue;
    tried.add(candidate);
    const request = injectPayload(point, candidate, 'replace');
    const answer = await send(request);
    if (answer.status >= 500 || sameAnswer(answer, original, [candidate, point.value])) continue;
    variants.push({ point: { ...point, value: candidate }, request, answer });
  }
  return variants;
}
