/**
 * The figures of the scans benchmark: what its measured pairs add up to (rates, ratios, CPU per
 * request) and the tables and lines it prints on stderr for (a) the scan overhead and (b) the
 * status latency.
 */
import type { LoopRun } from './support/plain-loop.ts';
import type { WrkResult } from './support/wrk.ts';
import type { ScanRun } from './scans-support.ts';

/**
 * CPU time of one pair (/proc, 10 ms resolution): the server's from the start request to
 * `completed` seen (the status polls and the API included), the bench process's during the
 * plain loop, and the site's during each.
 */
export interface PairCpu {
  serverDuringScanMs: number;
  siteDuringScanMs: number;
  benchDuringLoopMs: number;
  siteDuringLoopMs: number;
}

/** The smallest, median and largest of a series. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** The measured pairs of (a): scan, plain loop and parsing loop of each round, in order. */
export interface OverheadRuns {
  scans: ScanRun[];
  loops: LoopRun[];
  /** The crawl floor: the plain loop that also parses each HTML page with the scan's link extractor. */
  parseLoops: LoopRun[];
  cpu: PairCpu[];
  /** Non-GET requests of the last scan (left out of the plain loop). */
  nonGet: number;
  /** GETs of the last scan: the URLs of its plain loop. */
  urlCount: number;
}

/** What (a)'s pairs add up to. */
export interface OverheadSummary {
  scanRate: Spread;
  loopRate: Spread;
  /** Scan over plain loop, of the median rates. */
  ratio: number;
  pairRatios: Spread;
  parseLoopRate: Spread;
  parseRatio: number;
  parsePairRatios: Spread;
  /** Rates during the crawl alone (first → last request at the target). */
  crawlRate: Spread;
  /** CPU µs per request received. */
  cpuPerRequest: Record<'serverDuringScan' | 'siteDuringScan' | 'benchDuringLoop' | 'siteDuringLoop', Spread>;
}

/** The scans' own traffic at the targets while (b) measured. */
export interface ScanTraffic {
  seconds: number;
  requestsReceived: number;
  requestsPerSecond: number;
  pagesCrawledDuring: number;
}

/** Min, median and max of the values. */
export function stats(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]! };
}

/** An aligned table on stderr. */
function printTableErr(title: string, header: string[], lines: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.error(`\n${title}`);
  console.error(format(header));
  console.error(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.error(format(line));
}

const f0 = (n: number) => n.toFixed(0);

/** Rates, ratios and CPU per request of (a)'s measured pairs. */
export function summariseOverhead(runs: OverheadRuns): OverheadSummary {
  const { scans, loops, parseLoops, cpu } = runs;
  const scanRate = stats(scans.map((s) => s.requestsPerSecond));
  const loopRate = stats(loops.map((l) => l.requestsPerSecond));
  const parseLoopRate = stats(parseLoops.map((l) => l.requestsPerSecond));
  const perRequestUs = (ms: number[], count: (i: number) => number) => stats(ms.map((m, i) => (m * 1000) / count(i)));
  return {
    scanRate,
    loopRate,
    ratio: scanRate.median / loopRate.median,
    pairRatios: stats(scans.map((s, i) => s.requestsPerSecond / loops[i]!.requestsPerSecond)),
    parseLoopRate,
    parseRatio: parseLoopRate.median / loopRate.median,
    parsePairRatios: stats(parseLoops.map((l, i) => l.requestsPerSecond / loops[i]!.requestsPerSecond)),
    crawlRate: stats(scans.map((s) => s.crawlRequestsPerSecond)),
    cpuPerRequest: {
      serverDuringScan: perRequestUs(
        cpu.map((c) => c.serverDuringScanMs),
        (i) => scans[i]!.requestsReceived,
      ),
      siteDuringScan: perRequestUs(
        cpu.map((c) => c.siteDuringScanMs),
        (i) => scans[i]!.requestsReceived,
      ),
      benchDuringLoop: perRequestUs(
        cpu.map((c) => c.benchDuringLoopMs),
        (i) => loops[i]!.requests,
      ),
      siteDuringLoop: perRequestUs(
        cpu.map((c) => c.siteDuringLoopMs),
        (i) => loops[i]!.requests,
      ),
    },
  };
}

/** (a): one line per pair, then the rates, ratios and CPU per request. */
export function printOverhead(title: string, runs: OverheadRuns, summary: OverheadSummary): void {
  const { scans, loops, nonGet } = runs;
  const { scanRate, loopRate, crawlRate, ratio, pairRatios, parseLoopRate, parseRatio, parsePairRatios } = summary;
  printTableErr(
    title,
    [
      'run',
      'scan ms',
      'received',
      'sent',
      'scan req/s',
      'start→1st ms',
      'crawl ms',
      'crawl req/s',
      'last→done ms',
      'loop ms',
      'loop req/s',
      'ratio',
    ],
    scans.map((s, i) => [
      String(i + 1),
      f0(s.durationMs),
      String(s.requestsReceived),
      String(s.requestsSent),
      f0(s.requestsPerSecond),
      f0(s.startToFirstRequestMs),
      f0(s.crawlMs),
      f0(s.crawlRequestsPerSecond),
      f0(s.lastRequestToCompletedMs),
      loops[i]!.durationMs.toFixed(1),
      f0(loops[i]!.requestsPerSecond),
      (s.requestsPerSecond / loops[i]!.requestsPerSecond).toFixed(3),
    ]),
  );
  console.error(`scan req/s min/median/max:        ${f0(scanRate.min)} / ${f0(scanRate.median)} / ${f0(scanRate.max)}`);
  console.error(`plain loop req/s min/median/max:  ${f0(loopRate.min)} / ${f0(loopRate.median)} / ${f0(loopRate.max)}`);
  console.error(
    `crawl-only req/s min/median/max:  ${f0(crawlRate.min)} / ${f0(crawlRate.median)} / ${f0(crawlRate.max)} (first → last request at the target)`,
  );
  console.error(
    `ratio ours/plain (medians): ${ratio.toFixed(3)}; per pair min/median/max ${pairRatios.min.toFixed(3)} / ${pairRatios.median.toFixed(3)} / ${pairRatios.max.toFixed(3)} (target ≥ 0.8)`,
  );
  console.error(
    `crawl floor, the loop + the scan's link parse of each HTML page (no checks, no API, no store): ${f0(parseLoopRate.median)} req/s by median, ` +
      `${parseRatio.toFixed(3)}× the plain loop (per pair ${parsePairRatios.min.toFixed(3)} / ${parsePairRatios.median.toFixed(3)} / ${parsePairRatios.max.toFixed(3)})`,
  );
  if (nonGet > 0) console.error(`note: the scan also sent ${nonGet} non-GET request(s), left out of the plain loop`);
  const cpuLine = (what: string, s: Spread) =>
    console.error(`  ${what.padEnd(36)} ${f0(s.min)} / ${f0(s.median)} / ${f0(s.max)}`);
  console.error("CPU per request, µs min/median/max (/proc, 10 ms resolution per reading; robust to others' load):");
  cpuLine('server, start request → completed', summary.cpuPerRequest.serverDuringScan);
  cpuLine('bench process, plain loop', summary.cpuPerRequest.benchDuringLoop);
  cpuLine('site, during the scan', summary.cpuPerRequest.siteDuringScan);
  cpuLine('site, during the plain loop', summary.cpuPerRequest.siteDuringLoop);
}

/** (b): the status latency with `concurrentScans` scans running and with none, then the scans' traffic. */
export function printStatusLatency(
  title: string,
  concurrentScans: number,
  results: { busy: WrkResult; idle: WrkResult; scanTraffic: ScanTraffic },
): void {
  const ms = (us: number) => (us / 1000).toFixed(2);
  printTableErr(
    title,
    ['state', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'requests'],
    [
      [`${concurrentScans} scans running`, results.busy],
      ['no scan running', results.idle],
    ].map(([label, r]) => {
      const result = r as WrkResult;
      return [
        label as string,
        f0(result.requestsPerSecond),
        ms(result.latencyUs.p50),
        ms(result.latencyUs.p90),
        ms(result.latencyUs.p99),
        ms(result.latencyUs.max),
        String(result.requests),
      ];
    }),
  );
  console.error(
    `the ${concurrentScans} scans received ${f0(results.scanTraffic.requestsPerSecond)} requests/s in total at the targets during the busy run (warm-up included)`,
  );
}
