import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrawlShare } from './crawl-share.ts';

/** The crawl's queue as CrawlShare reads it: `started` pages taken, `queued` waiting after `head`. */
const crawlOf = (started: number, queued: number, head = 0) => ({
  pagesStarted: started,
  queue: Array.from({ length: head + queued }),
  head,
});

describe('CrawlShare', () => {
  it('is 0 before anything is queued or done', () => {
    assert.equal(new CrawlShare(10, 100, { pagesCrawled: 0, requestsSent: 0, checksDone: 0 }).of(crawlOf(0, 0)), 0);
  });

  it('counts a page done once every check ran on it, and a page under way for its checks done', () => {
    const share = new CrawlShare(4, 100, { pagesCrawled: 2, requestsSent: 0, checksDone: 0 });
    for (let i = 0; i < 6; i++) share.pageChecked(); // one page fully checked, half of another
    // 2 pages started, 2 queued: 1.5 of 4 pages.
    assert.equal(share.of(crawlOf(2, 2, 5)), 1.5 / 4);
  });

  it('counts a page whose request failed as done', () => {
    const share = new CrawlShare(4, 100, { pagesCrawled: 0, requestsSent: 0, checksDone: 0 });
    share.visitFailed();
    assert.equal(share.of(crawlOf(1, 3)), 1 / 4);
  });

  it('falls when the crawl finds more pages, and never plans past maxPages', () => {
    const share = new CrawlShare(1, 10, { pagesCrawled: 0, requestsSent: 0, checksDone: 0 });
    for (let i = 0; i < 4; i++) share.pageChecked();
    assert.equal(share.of(crawlOf(4, 0)), 1);
    assert.equal(share.of(crawlOf(4, 4)), 0.5);
    assert.equal(share.of(crawlOf(4, 400)), 0.4, 'at most 10 pages will be visited');
  });

  it('measures answered pages when no check runs', () => {
    const counters = { pagesCrawled: 3, requestsSent: 0, checksDone: 0 };
    assert.equal(new CrawlShare(0, 100, counters).of(crawlOf(4, 2)), 3 / 6);
  });
});
