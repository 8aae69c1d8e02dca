/**
 * The figures of the scans benchmark: what the scans of (a) add up to (wall time, rates, server
 * CPU per request) and the tables and lines it prints on stderr for (a) the scans of the
 * realistic application and (b) the status latency.
 */
import type { WrkResult } from './support/wrk.ts';
import type { ScanRun } from './scans-support.ts';

/** One scan of (a): the timed run, the server's CPU time during it, the application's counters after it. */
export interface RealisticScan extends ScanRun {
  /** The server's CPU time from the start request to `completed` seen (/proc, 10 ms resolution). */
  serverCpuMs: number;
  /** The realistic application's counters: logins, failed logins, sessions expired, password and level changes. */
  counters: Record<string, number>;
}

/** The smallest, median and largest of a series. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** What (a)'s scans add up to. */
export interface RealisticSummary {
  /** Start request → `completed` seen, ms. */
  wallTimeMs: Spread;
  requestsPerSecond: Spread;
  requestsReceived: Spread;
  /** Server CPU µs per request received. */
  serverCpuPerRequestUs: Spread;
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

/** Wall time, rates and server CPU per request of (a)'s scans. */
export function summariseRealisticScans(scans: RealisticScan[]): RealisticSummary {
  return {
    wallTimeMs: stats(scans.map((s) => s.durationMs)),
    requestsPerSecond: stats(scans.map((s) => s.requestsPerSecond)),
    requestsReceived: stats(scans.map((s) => s.requestsReceived)),
    serverCpuPerRequestUs: stats(scans.map((s) => (s.serverCpuMs * 1000) / s.requestsReceived)),
  };
}

/** (a): one line per scan, then the wall time and rates. */
export function printRealisticScans(title: string, scans: RealisticScan[], summary: RealisticSummary): void {
  printTableErr(
    title,
    [
      'run',
      'wall s',
      'received',
      'sent',
      'req/s',
      'start→1st ms',
      'last→done ms',
      'findings',
      'logins',
      'expired',
      'CPU µs/req',
    ],
    scans.map((s, i) => [
      String(i + 1),
      (s.durationMs / 1000).toFixed(1),
      String(s.requestsReceived),
      String(s.requestsSent),
      f0(s.requestsPerSecond),
      f0(s.startToFirstRequestMs),
      f0(s.lastRequestToCompletedMs),
      String(s.findings),
      String(s.counters['logins'] ?? 0),
      String(s.counters['expired'] ?? 0),
      f0((s.serverCpuMs * 1000) / s.requestsReceived),
    ]),
  );
  const { wallTimeMs: w, requestsPerSecond: r, serverCpuPerRequestUs: c } = summary;
  console.error(
    `wall time s min/median/max: ${(w.min / 1000).toFixed(1)} / ${(w.median / 1000).toFixed(1)} / ${(w.max / 1000).toFixed(1)}; ` +
      `req/s ${f0(r.min)} / ${f0(r.median)} / ${f0(r.max)}; server CPU µs per request ${f0(c.min)} / ${f0(c.median)} / ${f0(c.max)}`,
  );
  const changed = scans.filter((s) => (s.counters['passwordChanges'] ?? 0) + (s.counters['levelChanges'] ?? 0) > 0);
  if (changed.length > 0)
    console.error(`note: ${changed.length} scan(s) changed the account's password or security level (their own login)`);
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
