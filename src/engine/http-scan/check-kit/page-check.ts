import type { FindingInput } from '../../../core/vulnerabilities/vulnerability.types.ts';
import type { HttpExchange } from './guarded-http-client.ts';
import type { PageLinks } from './html-links.ts';
import type { Origin } from './scan-scope.ts';
import type { ScanSession } from './scan-session.ts';

/** A page the crawler fetched, as the checks see it. */
export interface CrawledPage {
  url: URL;
  origin: Origin;
  /** `scheme://host:port`, port always written. */
  originText: string;
  exchange: HttpExchange;
  isHtml: boolean;
  /** Links of an HTML page (undefined for other content). */
  links: PageLinks | undefined;
  /** An answer of the scan's login (the login page, its submission, the redirects): read by the checks, never injected into. */
  isSessionUpkeep?: boolean;
}

/** What a check may use: the scan's session (requests count in the budget) and the sink. */
export interface CheckContext {
  session: ScanSession;
  signal: AbortSignal;
  report(finding: FindingInput): Promise<void>;
  /**
   * True when the crawl has fetched, or will fetch, a GET of this URL: its page then reaches
   * every check, and a check need not request it again. Absent where nothing is crawled.
   */
  willCrawl?(url: URL): boolean;
}

/** One check: a stable id and an inspection run on each crawled page (state lives per scan). */
export interface PageCheck {
  readonly id: string;
  inspect(page: CrawledPage, context: CheckContext): Promise<void>;
  /**
   * Runs once when the crawl queue is drained, before the scan ends (not after an abort), for
   * proofs that come later than the answer: a stored payload showing on another page, an
   * out-of-band hit on the scanner's canary.
   */
  finish?(context: CheckContext): Promise<void>;
}

/** True when a response declares HTML (or declares nothing and looks like HTML). */
export function isHtmlResponse(exchange: HttpExchange): boolean {
  const type = exchange.headers.find((h) => h.name === 'content-type')?.value.toLowerCase();
  if (type !== undefined) return type.includes('text/html') || type.includes('application/xhtml');
  return /^\s*(<!doctype html|<html)/i.test(exchange.body);
}

/** The value of a response header (first one), lowercased name match. */
export function headerValue(exchange: HttpExchange, name: string): string | undefined {
  return exchange.headers.find((h) => h.name === name)?.value;
}
