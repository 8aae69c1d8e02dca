import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runAdmin } from '../src/cli/admin.commands.ts';
import { addAsset } from '../src/core/assets/asset.service.ts';
import { extractPageLinks } from '../src/engine/http-scan/check-kit/html-links.ts';
import { crawlConcurrency } from '../src/engine/http-scan/site-crawler.ts';
import { startGeneratedSite, type TargetServer } from '../test/support/target-site.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { plainLoop, type LoopRun } from './support/plain-loop.ts';
import { processCpuMs } from './support/process-cpu.ts';
import { writeResult } from './support/report.ts';
import { startSiteProcess, type SiteProcess, type SiteRequest } from './support/site-process.ts';
import { seedTeam } from './support/seed.ts';
import { startPerimeter } from './support/server.ts';
import { runWrk, urlCycleScript, type WrkOptions, type WrkResult } from './support/wrk.ts';

/** (a) the site one scan crawls, end to end, three times against the plain loop. */
const smallSitePages = 200;
const rounds = countFromEnv('BENCH_SCAN_ROUNDS', 7, 1);
/**
 * Unmeasured pairs first (unless BENCH_WARMUP=0): the server's scan code and the loop are cold
 * for their first runs. Both keep getting faster for about twenty pairs (JIT tiers), so a steady
 * state needs `BENCH_SCAN_WARMUP_PAIRS=20`; the default keeps `npm run bench` short.
 */
const warmupPairs = countFromEnv('BENCH_SCAN_WARMUP_PAIRS', 3, 0);
/** The server's scan threads when set (0: scans on its event loop, as before scan threads); else the server's default. */
const scanThreads =
  process.env['BENCH_SCAN_THREADS'] === undefined ? undefined : countFromEnv('BENCH_SCAN_THREADS', 1, 0);
/** (b) four larger sites, big enough that unlimited scans are still crawling when wrk ends. */
const bigSitePages = 20_000;
const concurrentScans = 4;
/** Status poll of (a): the resolution of "completed seen"; each poll costs the server about 0.2 ms. */
const pollIntervalMs = 10;
/** Status poll of (b)'s waits. */
const waitPollMs = 50;
const load = { connections: 10, threads: 2 } as const;
/** What the scanner sends besides host and connection (scan-session.ts), so both sides send alike. */
/** A whole number from the environment, at least `min`, else `fallback`; anything else stops the run. */
function countFromEnv(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be a whole number ≥ ${min}, not ${JSON.stringify(text)}`);
  return value;
}

const scanHeaders = {
  'user-agent': 'perimeter-scanner/0.1 (+application scan)',
  accept: 'text/html,application/xhtml+xml,*/*;q=0.8',
};

/** Scan overhead against a plain undici loop, and scan-status latency while four scans run. */
export const benchmark: Benchmark = {
  name: 'scans',
  description:
    `(a) one scan of a ${smallSitePages}-page local site through the API, start to completed, against a plain undici loop over the same URLs (${crawlConcurrency} in flight), ` +
    `${rounds} rounds interleaved; (b) GET /rest/v2/scans/{t}/ latency while ${concurrentScans} unlimited scans run, and with none`,
  run,
};

interface ScanStatusBody {
  status: string;
  error: string;
  warnings: string[];
  progress: { pages_crawled: number; requests_sent: number; checks_done: number; findings: number };
}

/**
 * CPU time of one pair (/proc, 10 ms resolution): the server's from the start request to
 * `completed` seen (the status polls and the API included), the bench process's during the
 * plain loop, and the site's during each.
 */
interface PairCpu {
  serverDuringScanMs: number;
  siteDuringScanMs: number;
  benchDuringLoopMs: number;
  siteDuringLoopMs: number;
}

/** One scan, start request to `completed`. */
interface ScanRun {
  durationMs: number;
  /** What the scan says it sent (progress.requests_sent). */
  requestsSent: number;
  /** What the target received between the start request and completion: the truth. */
  requestsReceived: number;
  requestsPerSecond: number;
  pagesCrawled: number;
  checksDone: number;
  findings: number;
  /** Start request → first request at the target (queue, claim, scan setup). */
  startToFirstRequestMs: number;
  /** First → last request at the target: the crawl itself. */
  crawlMs: number;
  /** Last request at the target → `completed` seen by the poll (ingestion, final writes, half a poll on average). */
  lastRequestToCompletedMs: number;
  /** received / crawlMs: the rate during the crawl alone. */
  crawlRequestsPerSecond: number;
  warnings: string[];
}

interface Api {
  url: string;
  key: string;
}

async function call(
  api: Api,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { 'x-service-key': api.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status < 200 || response.status > 299)
    throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

const scanStatus = async (api: Api, profile: string): Promise<ScanStatusBody> =>
  (await call(api, 'GET', `/rest/v2/scans/${profile}/`)).json as ScanStatusBody;
const isLive = (status: string): boolean => ['starting', 'running', 'stopping'].includes(status);

/** Seeds the store: a team with a v2 key and the asset 127.0.0.1, verified by the admin CLI. */
async function seed(ctx: BenchContext, dataDir: string): Promise<string> {
  const { runtime, teamId, v2Key } = await seedTeam(dataDir);
  try {
    const team = await runtime.store.teams.findById(teamId);
    if (team === undefined) throw new Error('the seeded team is gone');
    await addAsset(runtime.store, team, '127.0.0.1');
    const lines: string[] = [];
    await runAdmin(runtime, ['asset', 'verify', '127.0.0.1', '--team', team.name], { out: (text) => lines.push(text) });
    ctx.log(`seeded team ${team.name}: ${lines.join(' ')}`);
  } finally {
    await runtime.close();
  }
  return v2Key;
}

/** A profile on a site, at unlimited rate. */
async function createProfile(api: Api, assetToken: string, site: { port: number }, name: string): Promise<string> {
  const profile = (
    await call(api, 'POST', '/rest/v2/profiles/', { asset_token: assetToken, endpoint: `127.0.0.1:${site.port}`, name })
  ).json as { token: string };
  const settings = (await call(api, 'PUT', `/rest/v2/profiles/${profile.token}/settings/`, { requests_per_second: 0 }))
    .json as { requests_per_second: number };
  if (settings.requests_per_second !== 0)
    throw new Error(`profile ${name}: requests_per_second is ${settings.requests_per_second}, expected 0`);
  return profile.token;
}

async function startScan(api: Api, profile: string): Promise<void> {
  const started = await call(api, 'POST', `/rest/v2/scans/${profile}/`);
  if (started.status !== 202) throw new Error(`starting a scan answered ${started.status}, expected 202`);
}

/** Local performance.now() of a request the site process logged on the shared wall clock. */
const localTime = (request: SiteRequest): number => request.at - performance.timeOrigin;

/** Starts a scan of the profile and polls its status every `pollIntervalMs` until it ends; it must complete. */
async function timedScan(
  api: Api,
  profile: string,
  site: SiteProcess,
  logFrom: number,
): Promise<{ run: ScanRun; requests: SiteRequest[] }> {
  const startedAt = performance.now();
  await startScan(api, profile);
  let status: ScanStatusBody;
  for (;;) {
    status = await scanStatus(api, profile);
    if (!isLive(status.status)) break;
    if (performance.now() - startedAt > 300_000) throw new Error('the scan did not end within 5 minutes');
    await sleep(pollIntervalMs);
  }
  const endedAt = performance.now();
  if (status.status !== 'completed')
    throw new Error(`the scan ended ${status.status}: ${status.error} ${status.warnings.join('; ')}`);
  const requests = await site.requestsFrom(logFrom);
  if (requests.length === 0) throw new Error('the target received no request from the scan');
  const first = localTime(requests[0]!);
  const last = localTime(requests[requests.length - 1]!);
  const durationMs = endedAt - startedAt;
  const crawlMs = last - first;
  return {
    requests,
    run: {
      durationMs,
      requestsSent: status.progress.requests_sent,
      requestsReceived: requests.length,
      requestsPerSecond: requests.length / (durationMs / 1000),
      pagesCrawled: status.progress.pages_crawled,
      checksDone: status.progress.checks_done,
      findings: status.progress.findings,
      startToFirstRequestMs: first - startedAt,
      crawlMs,
      lastRequestToCompletedMs: endedAt - last,
      crawlRequestsPerSecond: crawlMs > 0 ? requests.length / (crawlMs / 1000) : Number.NaN,
      warnings: status.warnings,
    },
  };
}

function stats(values: number[]): { min: number; median: number; max: number } {
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

async function measureWrk(ctx: BenchContext, label: string, options: Omit<WrkOptions, 'duration'>): Promise<WrkResult> {
  if (ctx.warmup !== undefined) {
    ctx.log(`${label}: warming up for ${ctx.warmup}`);
    await runWrk(ctx.scope, { ...options, duration: ctx.warmup });
  }
  ctx.log(`${label}: measuring for ${ctx.duration} (${load.connections} connections, ${load.threads} threads)`);
  return runWrk(ctx.scope, { ...options, duration: ctx.duration });
}

async function waitForStatus(
  api: Api,
  profile: string,
  accept: (status: string) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<ScanStatusBody> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const status = await scanStatus(api, profile);
    if (accept(status.status)) return status;
    if (!isLive(status.status) && !accept(status.status))
      throw new Error(`waiting for ${what}: the scan ended ${status.status}: ${status.error}`);
    if (performance.now() > deadline)
      throw new Error(`waiting for ${what}: still ${status.status} after ${timeoutMs} ms`);
    await sleep(waitPollMs);
  }
}

async function run(ctx: BenchContext): Promise<void> {
  const dataDir = ctx.scope.tempDir('perimeter-bench-scans-');
  const key = await seed(ctx, dataDir);

  const small = await startSiteProcess(ctx.scope, smallSitePages);
  const bigSites: TargetServer[] = [];
  for (let i = 0; i < concurrentScans; i++) {
    const site = await startGeneratedSite(bigSitePages);
    ctx.scope.defer(`stop big site ${i}`, () => site.stop());
    bigSites.push(site);
  }

  const cpuProfileDir = process.env['BENCH_CPU_PROF'] === '1' ? join(ctx.outDir, 'profiles', 'scans') : undefined;
  // Every role, the embedded store. Egress is opened to the loopback only (the targets) and DNS
  // points at a dead loopback port: nothing can leave the machine. Four scans at once need the
  // process and team limits raised from 2; the page and depth limits let the big sites keep
  // the scans busy (neither limit is reached by the 200-page site).
  const serverEnv = {
    PERIMETER_EGRESS_ALLOW: '127.0.0.0/8',
    PERIMETER_DNS_RESOLVERS: '127.0.0.1:1',
    PERIMETER_SCAN_CONCURRENCY: String(concurrentScans),
    PERIMETER_SCAN_TEAM_CONCURRENCY: String(concurrentScans),
    PERIMETER_SCAN_MAX_PAGES: String(bigSitePages),
    PERIMETER_SCAN_MAX_DEPTH: '100',
    ...(scanThreads === undefined ? {} : { PERIMETER_SCAN_THREADS: String(scanThreads) }),
  };
  const server = await startPerimeter(ctx.scope, { dataDir, cpuProfileDir, env: serverEnv });
  ctx.log(
    `perimeter ready at ${server.url} (pid ${server.pid}), all roles, ${Object.entries(serverEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  const api: Api = { url: server.url, key };

  const assets = (await call(api, 'GET', '/rest/v2/assets/?pageSize=10')).json as {
    assets: Array<{ name: string; token: string }>;
  };
  const asset = assets.assets.find((a) => a.name === '127.0.0.1');
  if (asset === undefined) throw new Error('the asset 127.0.0.1 is not listed');
  const smallProfile = await createProfile(api, asset.token, small, `small-${smallSitePages}`);
  const bigProfiles: string[] = [];
  for (const [i, site] of bigSites.entries()) bigProfiles.push(await createProfile(api, asset.token, site, `big-${i}`));

  // (a) scan vs plain loop, interleaved; unmeasured pairs first unless BENCH_WARMUP=0.
  const scans: ScanRun[] = [];
  const loops: LoopRun[] = [];
  /** The crawl floor: the plain loop that also parses each HTML page with the scan's link extractor. */
  const parseLoops: LoopRun[] = [];
  const cpu: PairCpu[] = [];
  let nonGet = 0;
  let urlCount = 0;
  // Endpoint validation at profile creation reached the site too: the scans' requests come after.
  let logged = (await small.requestsFrom(0)).length;
  const pairs = (ctx.warmup === undefined ? 0 : warmupPairs) + rounds;
  for (let round = 0; round < pairs; round++) {
    const isWarmup = round < pairs - rounds;
    const serverBefore = processCpuMs(server.pid);
    const siteBefore = processCpuMs(small.pid);
    const { run: scan, requests } = await timedScan(api, smallProfile, small, logged);
    const serverDuringScanMs = processCpuMs(server.pid) - serverBefore;
    const siteAfterScan = processCpuMs(small.pid);
    logged += requests.length;
    nonGet = requests.filter((r) => r.method !== 'GET').length;
    const urls = requests.filter((r) => r.method === 'GET').map((r) => `${small.origin}${r.path}`);
    urlCount = urls.length;
    const benchBefore = process.cpuUsage();
    const loop = await plainLoop(urls, crawlConcurrency, scanHeaders);
    const benchUsed = process.cpuUsage(benchBefore);
    const pairCpu: PairCpu = {
      serverDuringScanMs,
      siteDuringScanMs: siteAfterScan - siteBefore,
      benchDuringLoopMs: (benchUsed.user + benchUsed.system) / 1000,
      siteDuringLoopMs: processCpuMs(small.pid) - siteAfterScan,
    };
    const received = (await small.requestsFrom(logged)).length;
    logged += received;
    if (received !== urls.length)
      throw new Error(`the plain loop sent ${urls.length} requests but the target received ${received}`);
    const parseLoop = await plainLoop(urls, crawlConcurrency, scanHeaders, (html) => void extractPageLinks(html));
    const parsedReceived = (await small.requestsFrom(logged)).length;
    logged += parsedReceived;
    if (parsedReceived !== urls.length)
      throw new Error(`the parsing loop sent ${urls.length} requests but the target received ${parsedReceived}`);
    const tag = isWarmup ? 'warm-up' : `round ${round - (pairs - rounds) + 1}/${rounds}`;
    ctx.log(
      `${tag}: scan ${scan.durationMs.toFixed(0)} ms, ${scan.requestsReceived} requests received (${scan.requestsSent} sent per progress), ${scan.requestsPerSecond.toFixed(0)} req/s ` +
        `[start→first ${scan.startToFirstRequestMs.toFixed(0)} ms, crawl ${scan.crawlMs.toFixed(0)} ms, last→completed ${scan.lastRequestToCompletedMs.toFixed(0)} ms]; ` +
        `plain loop ${loop.durationMs.toFixed(0)} ms, ${loop.requestsPerSecond.toFixed(0)} req/s; loop + link parse ${parseLoop.durationMs.toFixed(0)} ms; ` +
        `CPU: server ${pairCpu.serverDuringScanMs.toFixed(0)} ms during the scan, bench ${pairCpu.benchDuringLoopMs.toFixed(0)} ms during the loop`,
    );
    if (isWarmup) continue;
    scans.push(scan);
    loops.push(loop);
    parseLoops.push(parseLoop);
    cpu.push(pairCpu);
  }
  const mismatched = scans.filter((s) => s.requestsSent !== s.requestsReceived);
  if (mismatched.length > 0)
    ctx.log(
      `note: progress.requests_sent differs from what the target received in ${mismatched.length} run(s); the target's count is used`,
    );
  const scanRate = stats(scans.map((s) => s.requestsPerSecond));
  const loopRate = stats(loops.map((l) => l.requestsPerSecond));
  const ratio = scanRate.median / loopRate.median;
  const pairRatios = stats(scans.map((s, i) => s.requestsPerSecond / loops[i]!.requestsPerSecond));
  const parseLoopRate = stats(parseLoops.map((l) => l.requestsPerSecond));
  const parseRatio = parseLoopRate.median / loopRate.median;
  const parsePairRatios = stats(parseLoops.map((l, i) => l.requestsPerSecond / loops[i]!.requestsPerSecond));

  // (b) status latency while four scans run, then with none.
  for (const profile of bigProfiles) await startScan(api, profile);
  for (const profile of bigProfiles) await waitForStatus(api, profile, (s) => s === 'running', 'the scan to run');
  ctx.log(`${concurrentScans} scans running`);
  const script = urlCycleScript(
    bigProfiles.map((t) => `/rest/v2/scans/${t}/`),
    { 'X-Service-Key': key },
  );
  const sentBefore = await Promise.all(bigProfiles.map((t) => scanStatus(api, t)));
  const receivedBefore = bigSites.map((s) => s.requests.length);
  const busyStartedAt = performance.now();
  const busy = await measureWrk(ctx, `GET scan status, ${concurrentScans} scans running`, {
    url: server.url,
    ...load,
    script,
  });
  const busySeconds = (performance.now() - busyStartedAt) / 1000;
  const after = await Promise.all(bigProfiles.map((t) => scanStatus(api, t)));
  const notRunning = after.filter((s) => s.status !== 'running');
  if (notRunning.length > 0)
    throw new Error(
      `${notRunning.length} scan(s) were no longer running at the end of the measurement (${notRunning.map((s) => s.status).join(', ')})`,
    );
  const scanRequestsDuring = bigSites.reduce((sum, s, i) => sum + s.requests.length - receivedBefore[i]!, 0);
  const scanTraffic = {
    seconds: busySeconds,
    requestsReceived: scanRequestsDuring,
    requestsPerSecond: scanRequestsDuring / busySeconds,
    pagesCrawledDuring: after.reduce(
      (sum, s, i) => sum + s.progress.pages_crawled - sentBefore[i]!.progress.pages_crawled,
      0,
    ),
  };
  ctx.log(
    `the ${concurrentScans} scans received ${scanTraffic.requestsPerSecond.toFixed(0)} requests/s in total during warm-up and measurement`,
  );
  for (const profile of bigProfiles) await call(api, 'DELETE', `/rest/v2/scans/${profile}/`);
  for (const profile of bigProfiles) await waitForStatus(api, profile, (s) => !isLive(s), 'the scan to stop');
  ctx.log('scans stopped');
  const idle = await measureWrk(ctx, 'GET scan status, no scan running', { url: server.url, ...load, script });
  await server.stop();
  if (cpuProfileDir !== undefined) ctx.log(`CPU profile of the server written under ${cpuProfileDir}`);

  const f0 = (n: number) => n.toFixed(0);
  printTableErr(
    `scans (a): one scan of a ${smallSitePages}-page site, start request → completed (poll ${pollIntervalMs} ms), vs a plain undici loop over the same ${urlCount} GETs, ${crawlConcurrency} in flight`,
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
  const crawlRate = stats(scans.map((s) => s.crawlRequestsPerSecond));
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
  const perRequestUs = (ms: number[], count: (i: number) => number) => stats(ms.map((m, i) => (m * 1000) / count(i)));
  const cpuPerRequest = {
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
  };
  const cpuLine = (what: string, s: { min: number; median: number; max: number }) =>
    console.error(`  ${what.padEnd(36)} ${f0(s.min)} / ${f0(s.median)} / ${f0(s.max)}`);
  console.error("CPU per request, µs min/median/max (/proc, 10 ms resolution per reading; robust to others' load):");
  cpuLine('server, start request → completed', cpuPerRequest.serverDuringScan);
  cpuLine('bench process, plain loop', cpuPerRequest.benchDuringLoop);
  cpuLine('site, during the scan', cpuPerRequest.siteDuringScan);
  cpuLine('site, during the plain loop', cpuPerRequest.siteDuringLoop);

  const ms = (us: number) => (us / 1000).toFixed(2);
  printTableErr(
    `scans (b): GET /rest/v2/scans/{t}/ over ${concurrentScans} profiles, wrk -c ${load.connections} -t ${load.threads}, ${ctx.duration}`,
    ['state', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'requests'],
    [
      [`${concurrentScans} scans running`, busy],
      ['no scan running', idle],
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
    `the ${concurrentScans} scans received ${f0(scanTraffic.requestsPerSecond)} requests/s in total at the targets during the busy run (warm-up included)`,
  );

  const path = writeResult(ctx.outDir, 'scans', {
    parameters: {
      smallSitePages,
      rounds,
      warmupPairs: ctx.warmup === undefined ? 0 : warmupPairs,
      pollIntervalMs,
      crawlConcurrency,
      bigSitePages,
      concurrentScans,
      ...load,
      duration: ctx.duration,
      warmup: ctx.warmup ?? null,
      serverEnv,
    },
    overhead: {
      urls: urlCount,
      nonGetRequests: nonGet,
      scans,
      loops,
      parseLoops,
      parseLoopRequestsPerSecond: parseLoopRate,
      parseLoopRatio: parseRatio,
      parseLoopPairRatios: parsePairRatios,
      scanRequestsPerSecond: scanRate,
      loopRequestsPerSecond: loopRate,
      crawlOnlyRequestsPerSecond: crawlRate,
      ratio,
      pairRatios,
      cpu,
      cpuPerRequestUs: cpuPerRequest,
    },
    statusLatency: { busy, idle, scanTraffic },
  });
  ctx.log(`results written to ${path}`);
}
