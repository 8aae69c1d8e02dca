import type { LookupResult } from '../dns/bulk-resolver.ts';
import type { DiscoveryLimits, DiscoveryPorts } from './discovery.types.ts';

/** Bounds used when the deps give none. */
export const defaultDiscoveryLimits: DiscoveryLimits = {
  hostConcurrency: 16,
  perOriginInFlight: 2,
  httpTimeoutMs: 8000,
  pageBodyLimit: 1024 * 1024,
  scriptsPerPage: 3,
  permutationBases: 500,
  maxPermutations: 10_000,
  nameServerTimeoutMs: 3000,
};

export const defaultPorts: DiscoveryPorts = { https: 443, http: 80, dns: 53 };
export const defaultMaxDepth = 3;
export const maxWarnings = 100;
/** Live names handed to `onNames` at once. */
export const NAME_BATCH = 1000;

/** What the takeover tests need of a live name with a CNAME chain. */
export interface Chained {
  cnames: string[];
  addresses: string[];
  /** The name's own lookup when it ended NXDOMAIN with the chain in it (dangling-CNAME evidence). */
  nxdomainAnswer?: LookupResult;
}

/** Runs `task` over the items with at most `limit` at once; the first failure ends the pool. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

export const byName = (a: { name: string }, b: { name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** The first `limit` names by name of those offered, in order: one comparison for a name past the last kept. */
export class FirstByName {
  readonly names: string[] = [];

  constructor(private readonly limit: number) {}

  offer(name: string): void {
    const { names } = this;
    if (names.length >= this.limit && name >= (names[names.length - 1] as string)) return;
    let low = 0;
    let high = names.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((names[middle] as string) < name) low = middle + 1;
      else high = middle;
    }
    names.splice(low, 0, name);
    if (names.length > this.limit) names.pop();
  }
}

/**
 * Names waiting to be resolved, in the order they were found. A name is handed out only while
 * `isPending` says so (a name queued twice, or resolved meanwhile, is skipped).
 */
export class PendingNames {
  private names: Array<string | undefined> = [];
  private head = 0;

  constructor(private readonly isPending: (name: string) => boolean) {}

  push(name: string): void {
    this.names.push(name);
  }

  get hasAny(): boolean {
    return this.head < this.names.length;
  }

  take(): string | undefined {
    while (this.head < this.names.length) {
      const name = this.names[this.head];
      this.names[this.head] = undefined;
      this.head += 1;
      if (name !== undefined && this.isPending(name)) return name;
    }
    if (this.head > 0) {
      this.names = [];
      this.head = 0;
    }
    return undefined;
  }

  /** Every pending name, taken off the queue. */
  takeAll(): string[] {
    const names: string[] = [];
    for (let name = this.take(); name !== undefined; name = this.take()) names.push(name);
    return names;
  }

  /**
   * Pending names first (what scraping found while the stream runs), then the next candidate of
   * the source, until the source is exhausted: a name found on a page does not wait for the end
   * of the word list.
   */
  *feed(source: Iterable<string>): Generator<string> {
    const iterator = source[Symbol.iterator]();
    for (;;) {
      const name = this.take();
      if (name !== undefined) {
        yield name;
        continue;
      }
      const next = iterator.next();
      if (next.done === true) return;
      yield next.value;
    }
  }
}
