import { findBrowser, launchConfinedBrowser } from '../http-scan/browser/browser-launch.ts';

/**
 * Prints a self-contained HTML document to PDF with the scans' browser (Debian's chromium through
 * playwright-core, launched confined as the scanner launches it): the page content is set
 * directly and every request the page would make is aborted, so a report reaches nothing.
 */

/** No Chromium-family browser could be found or started: the PDF cannot be made on this server. */
export class NoBrowserError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'NoBrowserError';
  }
}

/** Time allowed for the page to be laid out and printed. */
const printTimeoutMs = 60_000;

/** What a printed page carries beside the document. */
export interface PrintOptions {
  /** The text at the left of every page's footer (the report's title); the page number is at the right. */
  footer: string;
  /** The browser executable (default: the scans', see findBrowser). */
  browserPath?: string;
}

function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Most browsers printing at once in this process (each is a Chromium of its own, 100+ MB). */
const maxPrinting = 2;
let printing = 0;
const waiting: Array<() => void> = [];

/** A4 PDF of `html`, with "Page N of M" in the footer; at most `maxPrinting` print at once, the others wait their turn. */
export async function printPdf(html: string, options: PrintOptions): Promise<Buffer> {
  // A finished print hands its slot to the next waiter, so no new call slips in between.
  if (printing >= maxPrinting) await new Promise<void>((resolve) => waiting.push(resolve));
  else printing += 1;
  try {
    return await print(html, options);
  } finally {
    const next = waiting.shift();
    if (next === undefined) printing -= 1;
    else next();
  }
}

async function print(html: string, options: PrintOptions): Promise<Buffer> {
  const found = findBrowser(options.browserPath);
  if (found.path === undefined)
    throw new NoBrowserError(
      `No browser is installed to print PDF reports (looked for ${found.tried}); install Debian's chromium package or set PERIMETER_SCAN_BROWSER. The HTML report (format=html) needs none.`,
    );
  let browser;
  try {
    browser = await launchConfinedBrowser(found.path);
  } catch (err) {
    throw new NoBrowserError(`The browser at ${found.path} could not start: ${(err as Error).message.split('\n')[0]}`);
  }
  try {
    const context = await browser.newContext({ javaScriptEnabled: false, offline: true });
    // A report is self-contained; whatever it would fetch is refused before it leaves.
    await context.route('**/*', (route) => route.abort('blockedbyclient'));
    const page = await context.newPage();
    page.setDefaultTimeout(printTimeoutMs);
    await page.setContent(html, { waitUntil: 'load', timeout: printTimeoutMs });
    const footer =
      '<div style="font-family: DejaVu Sans, Arial, sans-serif; font-size: 8px; color: #555; width: 100%; padding: 0 12mm; display: flex; justify-content: space-between;">' +
      `<span>${escapeText(options.footer)}</span>` +
      '<span>Page <span class="pageNumber"></span> of <span class="totalPages"></span></span></div>';
    const pdf = await page.pdf({
      format: 'A4',
      printBackground: true,
      displayHeaderFooter: true,
      headerTemplate: '<div></div>',
      footerTemplate: footer,
      margin: { top: '14mm', bottom: '16mm', left: '12mm', right: '12mm' },
    });
    return Buffer.from(pdf);
  } finally {
    await browser.close();
  }
}
