import type { ScanCounters } from '../../core/scans/scan-engine.ts';

/**
 * How much of a crawl's known work is done, for the scan's progress: every page the crawl has
 * started or queued (at most maxPages) is one unit, done once its visit failed or once every
 * check ran on its answer; a page whose checks are under way counts for the share of them done.
 * The share falls when the crawl finds pages faster than it visits them (the runner keeps the
 * highest value a scan reached).
 */
export class CrawlShare {
  private visitsFailed = 0;
  private pageChecks = 0;

  /**
   * `checksPerPage`: the checks that inspect each answered page; `counters`: the scan's, whose
   * pagesCrawled counts the answered pages (the measure when no check runs).
   */
  constructor(
    private readonly checksPerPage: number,
    private readonly maxPages: number,
    private readonly counters: Readonly<ScanCounters>,
  ) {}

  /** A visit got no answer: its page is done, no check will run on it. */
  visitFailed(): void {
    this.visitsFailed += 1;
  }

  /** A check ran on a crawled page (the login's answers are not the crawl's pages). */
  pageChecked(): void {
    this.pageChecks += 1;
  }

  /** The share done, 0 to 1, of the pages started so far and those waiting in the queue (read from `head` on). */
  of(crawl: { readonly pagesStarted: number; readonly queue: readonly unknown[]; readonly head: number }): number {
    const planned = Math.min(this.maxPages, crawl.pagesStarted + crawl.queue.length - crawl.head);
    if (planned <= 0) return 0;
    const checked = this.checksPerPage === 0 ? this.counters.pagesCrawled : this.pageChecks / this.checksPerPage;
    return Math.min(1, (this.visitsFailed + checked) / planned);
  }
}
