import type { Highlight } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { canaryAnswer, canaryGraceMs, type CanaryHit, type CanaryProbe } from '../check-kit/canary-listener.ts';
import type { HttpExchange } from '../check-kit/guarded-http-client.ts';
import type { BodyEvidence } from './finding-builder.ts';

/**
 * Probes of the canary whose hit had not come when the target answered: a target may fetch in
 * the background (a webhook, a queued import). They are settled once, at the end of the crawl,
 * so that a scan waits one grace period in all rather than one per tested parameter.
 */
export class LateProbes {
  private pending: Array<{ probe: CanaryProbe; answeredAt: number; onHit: (hit: CanaryHit) => Promise<void> }> = [];

  /** Keeps a probe whose target has answered; `onHit` reports it if a hit comes within the grace period. */
  add(probe: CanaryProbe, onHit: (hit: CanaryHit) => Promise<void>): void {
    this.pending.push({ probe, answeredAt: Date.now(), onHit });
  }

  /** Waits until each probe's grace period has passed (they overlap: one period in all) and reports the hits. */
  async settle(signal: AbortSignal, graceMs = canaryGraceMs): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    for (const { probe, answeredAt, onHit } of pending) {
      if (signal.aborted) return;
      const hit = probe.hit() ?? (await probe.waitForHit(answeredAt + graceMs - Date.now(), signal));
      if (hit !== undefined && !signal.aborted) await onHit(hit);
    }
  }
}

/** The hit as evidence: who asked the canary, how, and how long after the request was sent. */
export function describeHit(hit: CanaryHit, sentAt: number): string {
  const delay = Math.max(0, hit.at.getTime() - sentAt);
  return `the scanner's canary received ${hit.method} ${hit.path} from ${hit.source} (User-Agent: ${hit.userAgent === undefined ? 'none' : JSON.stringify(hit.userAgent)}) ${delay} ms after the request was sent`;
}

/** Where the probe's URL sits in the request (URL or body), as a highlight. */
export function probeHighlight(exchange: HttpExchange, probe: CanaryProbe): Highlight[] {
  const url = exchange.request.url.href;
  const inUrl = url.indexOf(probe.token);
  if (inUrl >= 0) return [{ field: 'request.url', value: probe.token, offset: inUrl, length: probe.token.length }];
  const inBody = exchange.request.body?.indexOf(probe.token) ?? -1;
  return inBody >= 0 ? [{ field: 'request.body', value: probe.token, offset: inBody, length: probe.token.length }] : [];
}

/** The canary's own answer in the response body: the target showed what it fetched (in-band too). */
export function canaryAnswerEvidence(exchange: HttpExchange, probe: CanaryProbe): BodyEvidence | undefined {
  const value = canaryAnswer(probe.token);
  const offset = exchange.body.indexOf(value);
  return offset < 0 ? undefined : { value, offset };
}
