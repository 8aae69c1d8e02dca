/**
 * The live names of one discovery run and their delivery: kept for the report, or, when the
 * caller streams them (`onNames`), handed over in batches and dropped. Owns the batch being
 * filled, the hand-over in flight and the first error the consumer rejected with.
 */
import type { DiscoveredName, DiscoveryRequest, DiscoverySource } from './discovery.types.ts';
import { untilAborted } from '../../shared/abortable.ts';
import { NAME_BATCH } from './run-support.ts';

/** Live names of a run: kept for the report, or streamed to `onNames` in batches of NAME_BATCH. */
export class LiveNames {
  /** Names confirmed live in the run, streamed or kept. */
  count = 0;
  /** Live names for the report, when names are not streamed. */
  private readonly kept = new Map<string, DiscoveredName>();
  private batch: DiscoveredName[] = [];
  private flushing: Promise<void> | undefined;
  /** The error onNames rejected with: no batch is handed over after it. */
  private flushFailure: unknown;
  private readonly isStreaming: boolean;

  constructor(
    private readonly onNames: DiscoveryRequest['onNames'],
    private readonly signal: AbortSignal,
  ) {
    this.isStreaming = onNames !== undefined;
  }

  /** A kept live name (never one already streamed). */
  get(name: string): DiscoveredName | undefined {
    return this.kept.get(name);
  }

  /** The kept live names, in the order they were confirmed. */
  values(): IterableIterator<DiscoveredName> {
    return this.kept.values();
  }

  /**
   * A kept name found again: it gains the source and, when `depth` is given, the smaller depth
   * (the report lists every source and the smallest depth; a streamed name was delivered already).
   */
  grow(name: string, source: DiscoverySource, depth: number | undefined): void {
    if (this.isStreaming) return;
    const found = this.kept.get(name);
    if (found === undefined) return;
    if (!found.sources.includes(source)) found.sources.push(source);
    if (depth !== undefined && depth < found.depth) found.depth = depth;
  }

  /**
   * A name confirmed live: kept, or added to the batch. Returns the hand-over to wait for (a
   * slow consumer holds the resolver back); throws the consumer's error once it rejected.
   */
  deliver(found: DiscoveredName): void | Promise<void> {
    this.count += 1;
    if (!this.isStreaming) {
      this.kept.set(found.name, found);
      return undefined;
    }
    if (this.flushFailure !== undefined) throw this.flushFailure;
    this.batch.push(found);
    if (this.flushing !== undefined) return this.flushing;
    return this.batch.length >= NAME_BATCH ? this.flush() : undefined;
  }

  /** Delivers what is left of the last batch, after the hand-over in flight. */
  async finish(): Promise<void> {
    if (!this.isStreaming) return;
    while (this.flushing !== undefined) await untilAborted(this.flushing, this.signal);
    if (this.flushFailure !== undefined) throw this.flushFailure;
    if (this.batch.length > 0) await untilAborted(this.flush(), this.signal);
  }

  /** Hands the batch to the core; the names are not kept. */
  private flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    const onNames = this.onNames as NonNullable<DiscoveryRequest['onNames']>;
    const flushing = Promise.resolve()
      .then(() => onNames(batch))
      .catch((err: unknown) => {
        this.flushFailure ??= err;
        throw err;
      })
      .finally(() => {
        if (this.flushing === flushing) this.flushing = undefined;
      });
    this.flushing = flushing;
    return flushing;
  }
}
