import { WebhookReceiver, type ReceivedDelivery } from '../../test/support/webhook-receiver.ts';
import type { Scope } from './scope.ts';

/** What one receiver got of the producer's events. */
export interface ReceiverTally {
  /** Requests received (every attempt, whatever was answered). */
  requests: number;
  /** Distinct producer events received (by `data.bench.seq`). */
  distinct: number;
  /** Repeated deliveries of an event already received (at-least-once duplicates). */
  duplicates: number;
  /** Distinct `webhook-id` values: must equal `distinct` (one id per event). */
  distinctIds: number;
  /** Requests whose Standard Webhooks signature did not verify. */
  badSignatures: number;
  /** First arrivals of an event older than one already received (the log's order broken). */
  outOfOrder: number;
  /** Deliveries that were not producer events (no `data.bench.seq`), e.g. older events. */
  foreign: number;
  /** Arrival − append time of each event's first arrival, in milliseconds. */
  lagsMs: number[];
  /** Wall-clock time of the latest first arrival (epoch ms), 0 when none. */
  lastFirstArrivalMs: number;
}

/** The producer's number and append time of a delivery's event, when it is one of its events. */
function benchStamp(delivery: ReceivedDelivery): { seq: number; atMs: number } | undefined {
  const bench = (delivery.json as { data?: { bench?: { seq?: unknown; at_ms?: unknown } } } | undefined)?.data?.bench;
  if (typeof bench?.seq !== 'number' || typeof bench.at_ms !== 'number') return undefined;
  return { seq: bench.seq, atMs: bench.at_ms };
}

/**
 * A loopback webhook receiver (test/support/webhook-receiver.ts: checks the signature, records
 * every request) and the running tally of what it received, updated incrementally so that
 * polling it while tens of thousands of deliveries arrive stays cheap.
 */
export class FanoutReceiver {
  readonly receiver = new WebhookReceiver();
  private seen = new Set<number>();
  private ids = new Set<string>();
  private processed = 0;
  private highest = -1;
  private readonly tally: ReceiverTally = {
    requests: 0,
    distinct: 0,
    duplicates: 0,
    distinctIds: 0,
    badSignatures: 0,
    outOfOrder: 0,
    foreign: 0,
    lagsMs: [],
    lastFirstArrivalMs: 0,
  };

  /** Starts the receiver on 127.0.0.1 and registers its stop with the scope. */
  async start(scope: Scope): Promise<this> {
    await this.receiver.start();
    scope.defer(`stop webhook receiver ${this.receiver.url}`, () => this.receiver.stop());
    return this;
  }

  /** Forgets everything received so far: a phase counts only what arrives after it starts. */
  reset(): void {
    this.update();
    this.seen = new Set();
    this.ids = new Set();
    this.highest = -1;
    Object.assign(this.tally, {
      requests: 0,
      distinct: 0,
      duplicates: 0,
      distinctIds: 0,
      badSignatures: 0,
      outOfOrder: 0,
      foreign: 0,
      lagsMs: [],
      lastFirstArrivalMs: 0,
    });
  }

  /** Takes in the deliveries received since the last call and answers the tally. */
  update(): ReceiverTally {
    const deliveries = this.receiver.deliveries;
    for (; this.processed < deliveries.length; this.processed += 1) this.add(deliveries[this.processed]!);
    // The receiver's record is not needed once counted; dropping it keeps a long run's memory flat.
    if (this.processed > 10_000) {
      deliveries.splice(0, this.processed);
      this.processed = 0;
    }
    return this.tally;
  }

  private add(delivery: ReceivedDelivery): void {
    const t = this.tally;
    t.requests += 1;
    if (!delivery.isSignatureValid) t.badSignatures += 1;
    const stamp = benchStamp(delivery);
    if (stamp === undefined) {
      t.foreign += 1;
      return;
    }
    if (this.seen.has(stamp.seq)) {
      t.duplicates += 1;
      return;
    }
    this.seen.add(stamp.seq);
    this.ids.add(delivery.id);
    t.distinct = this.seen.size;
    t.distinctIds = this.ids.size;
    if (stamp.seq < this.highest) t.outOfOrder += 1;
    this.highest = Math.max(this.highest, stamp.seq);
    t.lagsMs.push(delivery.at - stamp.atMs);
    t.lastFirstArrivalMs = Math.max(t.lastFirstArrivalMs, delivery.at);
  }
}

/** The p-th percentile (0–100) of a list of numbers, NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
