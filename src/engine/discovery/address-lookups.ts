import type { BulkResolver, LookupFailure, LookupOutcome, LookupResult } from '../dns/bulk-resolver.ts';

/** Counters of one address pipeline run (see resolveAddresses). */
export interface AddressLookupStats {
  /** Names resolved. */
  names: number;
  /** Queries sent (A and AAAA, retries included), retries and queries that timed out. */
  queries: number;
  retries: number;
  timeouts: number;
  /** Names whose A query ended NXDOMAIN, so no AAAA query was sent. */
  aaaaSkipped: number;
  durationMs: number;
}

/** Names waiting for their AAAA query: read by the AAAA stream, ended by close(). */
class NameQueue implements AsyncIterable<string> {
  private items: Array<string | undefined> = [];
  private head = 0;
  private isClosed = false;
  private wake: (() => void) | undefined;
  private roomWaiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get length(): number {
    return this.items.length - this.head;
  }

  push(name: string): void {
    this.items.push(name);
    this.notify();
  }

  close(): void {
    this.isClosed = true;
    this.notify();
    this.releaseRoom();
  }

  /** Resolves once the queue is at most half its limit (or closed). */
  room(): Promise<void> | undefined {
    if (this.isClosed || this.length <= this.limit) return undefined;
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  // A plain iterator rather than an async generator: one settled promise per name, no generator to resume.
  [Symbol.asyncIterator](): AsyncIterator<string> {
    return { next: () => this.next() };
  }

  private next(): Promise<IteratorResult<string, undefined>> {
    if (this.head < this.items.length) {
      const name = this.items[this.head] as string;
      this.items[this.head] = undefined;
      this.head += 1;
      if (this.head > 4096 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      if (this.roomWaiters.length > 0 && this.length * 2 <= this.limit) this.releaseRoom();
      return Promise.resolve({ value: name, done: false });
    }
    if (this.isClosed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.wake = () => resolve(this.next())));
  }

  private notify(): void {
    const resume = this.wake;
    this.wake = undefined;
    resume?.();
  }

  private releaseRoom(): void {
    for (const resume of this.roomWaiters.splice(0)) resume();
  }
}

/** One name's A and AAAA lookups as one result, by the bulk resolver's rules (NXDOMAIN wins, then any record, then the first failure). */
function merged(a: LookupResult, aaaa: LookupResult): LookupResult {
  let records = a.records;
  if (aaaa.records.length > 0) {
    // Both answers carry the CNAME chain: keep it once.
    const chain = new Set(a.records.filter((r) => r.type === 'CNAME').map((r) => `${r.name} ${r.data}`));
    const extra = aaaa.records.filter((r) => r.type !== 'CNAME' || !chain.has(`${r.name} ${r.data}`));
    records = a.records.length === 0 ? extra : [...a.records, ...extra];
  }
  const failures: LookupFailure[] = aaaa.failures.length === 0 ? a.failures : [...a.failures, ...aaaa.failures];
  let outcome: LookupOutcome;
  if (a.outcome === 'nxdomain' || aaaa.outcome === 'nxdomain') outcome = 'nxdomain';
  else if (records.length > 0) outcome = 'answer';
  else outcome = failures[0]?.outcome ?? 'nodata';
  return { name: a.name, outcome, records, failures };
}

/** The names of one resolveAddresses run, by how likely they are to exist. */
export interface AddressStreams {
  /** Names expected to exist (given by the core, found in DNS answers, certificates, pages): A and AAAA asked at once. */
  expected?: Iterable<string>;
  /** Guessed names (word list, permutations), mostly absent: A first, AAAA only when A was not NXDOMAIN. */
  guessed?: Iterable<string>;
}

/** An async iterable that yields nothing and ends when end() is called. */
function sentinel(): { names: AsyncIterable<string>; end(): void } {
  let end: () => void = () => undefined;
  const ended = new Promise<IteratorResult<string, undefined>>(
    (resolve) => (end = () => resolve({ value: undefined, done: true })),
  );
  return { names: { [Symbol.asyncIterator]: () => ({ next: () => ended }) }, end };
}

/**
 * Resolves the addresses (A and AAAA) of names through the bulk resolver. Guessed names ask
 * AAAA only when their A query was not NXDOMAIN: a name that does not exist has no AAAA either
 * (RFC 8020), so a miss costs one query instead of two; expected names, which mostly exist, ask
 * both at once (one round trip, no hand-over). The streams share the resolver's window: one
 * `resolveAll` for the expected names (A+AAAA), one for the A queries of the guessed names as
 * they are read, one for the AAAA queries of the guessed names whose A answer came back. While
 * more than `aaaaBacklog` names wait for their AAAA query the A answers are held unsettled
 * (resolveAll then stops reading names once its window of callbacks is unsettled), so memory
 * stays bounded for any length. `onResult` is called once per name, a guessed name's two answers
 * folded into one result as a single A+AAAA lookup reports it, and is awaited like resolveAll's;
 * the first failure or the signal ends the run.
 */
export async function resolveAddresses(
  bulk: BulkResolver,
  streams: AddressStreams,
  onResult: (result: LookupResult) => void | Promise<void>,
  signal: AbortSignal,
  aaaaBacklog = 1024,
): Promise<AddressLookupStats> {
  const queue = new NameQueue(aaaaBacklog);
  const waitingForAaaa = new Map<string, LookupResult>();
  let failure: unknown;
  let aaaaSkipped = 0;
  const onAaaa = (result: LookupResult): void | Promise<void> => {
    const a = waitingForAaaa.get(result.name);
    if (a === undefined) return undefined;
    waitingForAaaa.delete(result.name);
    return onResult(merged(a, result));
  };
  const onA = (result: LookupResult): void | Promise<void> => {
    if (failure !== undefined) throw failure;
    if (result.outcome === 'nxdomain' || result.outcome === 'invalid') {
      if (result.outcome === 'nxdomain') aaaaSkipped += 1;
      return onResult(result);
    }
    waitingForAaaa.set(result.name, result);
    queue.push(result.name);
    return queue.room();
  };
  const onBoth = (result: LookupResult): void | Promise<void> => {
    if (failure !== undefined) throw failure;
    return onResult(result);
  };
  // The resolver counts queries per resolver, not per stream: a stream that submits nothing and
  // spans the others measures them all (their own deltas overlap and cannot be added).
  const span = sentinel();
  const measured = bulk.resolveAll(span.names, () => undefined, { types: ['A'], signal });
  measured.catch(() => undefined);
  const aaaa = bulk.resolveAll(queue, onAaaa, { types: ['AAAA'], signal });
  aaaa.catch((err: unknown) => {
    failure ??= err;
    queue.close();
  });
  let names = 0;
  try {
    const guessed =
      streams.guessed === undefined
        ? undefined
        : bulk.resolveAll(streams.guessed, onA, { types: ['A'], signal }).finally(() => queue.close());
    const expected =
      streams.expected === undefined
        ? undefined
        : bulk.resolveAll(streams.expected, onBoth, { types: ['A', 'AAAA'], signal });
    // A failed stream stops the other at its next answer.
    for (const stream of [guessed, expected]) stream?.catch((err: unknown) => (failure ??= err));
    for (const stats of [await expected, await guessed]) names += stats?.names ?? 0;
    queue.close();
    await aaaa;
  } finally {
    queue.close();
    span.end();
  }
  const stats = await measured;
  if (failure !== undefined) throw failure;
  return {
    names,
    queries: stats.queries,
    retries: stats.retries,
    timeouts: stats.timeouts,
    aaaaSkipped,
    durationMs: stats.durationMs,
  };
}
