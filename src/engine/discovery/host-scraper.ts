import type { BulkResolver } from '../dns/bulk-resolver.ts';
import { isUnderRoot, recordTargets } from './discovery-names.ts';
import type { DiscoverySource, DiscoveryStats } from './discovery.types.ts';
import { untilAborted } from '../../shared/abortable.ts';
import type { WebReader } from './web-sources.ts';

/** A live host to read: its own MX/NS/TXT when scraping found it, its certificate and pages when the guard allows its addresses. */
export interface ScrapeTask {
  name: string;
  depth: number;
  isAskingRecords: boolean;
  isReadingWeb: boolean;
  addresses: string[];
}

/** What the scraper needs of its run. */
export interface HostScraperDeps {
  bulk: BulkResolver;
  web: WebReader;
  root: string;
  /** Host names in a text (a page, a script, a header). */
  scan: (text: string) => string[];
  hostConcurrency: number;
  stats: Pick<DiscoveryStats, 'hostsScraped'>;
  signal: AbortSignal;
  /** Hands a name found on a host back to the run, one step deeper than the host. */
  add: (name: string, source: DiscoverySource, depth: number) => void;
}

/**
 * The hosts of a discovery run being read, at most `hostConcurrency` at once: a host's own
 * MX/NS/TXT targets, its certificate's names and the host names of its pages go back to the run.
 * The first failure is kept and ends the scraping; the run rethrows it.
 */
export class HostScraper {
  private readonly queue: ScrapeTask[] = [];
  private running = 0;
  private readonly waiters: Array<() => void> = [];
  /** Addresses of the hosts being read, for the guard's resolver. */
  private readonly addresses = new Map<string, string[]>();
  failure: unknown;

  constructor(private readonly deps: HostScraperDeps) {}

  /** True when no host is queued or being read. */
  get isIdle(): boolean {
    return this.running === 0 && this.queue.length === 0;
  }

  /** The addresses of a host being read (its lookup already checked them). */
  addressesOf(name: string): string[] | undefined {
    return this.addresses.get(name);
  }

  schedule(task: ScrapeTask): void {
    this.queue.push(task);
    this.pump();
  }

  /** Resolves when a host finished (or the signal aborts: rejects). */
  waitForProgress(): Promise<void> {
    return untilAborted(new Promise<void>((resolve) => this.waiters.push(resolve)), this.deps.signal);
  }

  private pump(): void {
    while (this.running < this.deps.hostConcurrency && this.queue.length > 0) {
      const task = this.queue.shift() as ScrapeTask;
      this.running += 1;
      this.read(task)
        .catch((err: unknown) => {
          this.failure ??= err;
        })
        .finally(() => {
          this.running -= 1;
          if (this.failure === undefined) this.pump();
          for (const resume of this.waiters.splice(0)) resume();
        });
    }
  }

  /** Reads one live host: its own MX/NS/TXT when it was found by scraping, then its certificate and pages. */
  private async read(task: ScrapeTask): Promise<void> {
    const { deps } = this;
    const { name } = task;
    const depth = task.depth + 1;
    if (task.isAskingRecords) {
      const result = await deps.bulk.lookup(name, ['MX', 'NS', 'TXT'], deps.signal);
      for (const record of result.records) for (const target of recordTargets(record)) deps.add(target, 'dns', depth);
    }
    if (!task.isReadingWeb) return;
    deps.stats.hostsScraped += 1;
    const isInScope = (host: string): boolean => isUnderRoot(host, deps.root);
    this.addresses.set(name, task.addresses);
    try {
      const read = await deps.web.readHost(name, task.addresses, isInScope);
      for (const certificateName of read.certificateNames) deps.add(certificateName, 'certificate', depth);
      for (const text of read.texts) for (const found of deps.scan(text)) deps.add(found, 'page', depth);
    } finally {
      this.addresses.delete(name);
    }
  }
}
