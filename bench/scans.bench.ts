import { join } from 'node:path';
import { extractPageLinks } from '../src/engine/http-scan/check-kit/html-links.ts';
import { crawlConcurrency } from '../src/engine/http-scan/site-crawler.ts';
import { startGeneratedSite, type TargetServer } from '../test/support/target-site.ts';
import {
  printOverhead,
  printStatusLatency,
  summariseOverhead,
  type OverheadRuns,
  type PairCpu,
  type ScanTraffic,
} from './scans-report.ts';
import {
  call,
  createProfile,
  isLive,
  scanStatus,
  seed,
  startScan,
  timedScan,
  waitForStatus,
  type Api,
  type ScanRun,
} from './scans-support.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { plainLoop, type LoopRun } from './support/plain-loop.ts';
import { processCpuMs } from './support/process-cpu.ts';
import { writeResult } from './support/report.ts';
import { startSiteProcess, type SiteProcess } from './support/site-process.ts';
import { startPerimeter, type ServerProcess } from './support/server.ts';
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

/** A whole number from the environment, at least `min`, else `fallback`; anything else stops the run. */
function countFromEnv(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be a whole number ≥ ${min}, not ${JSON.stringify(text)}`);
  return value;
}

/** What the scanner sends besides host and connection (scan-session.ts), so both sides send alike. */
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

async function measureWrk(ctx: BenchContext, label: string, options: Omit<WrkOptions, 'duration'>): Promise<WrkResult> {
  if (ctx.warmup !== undefined) {
    ctx.log(`${label}: warming up for ${ctx.warmup}`);
    await runWrk(ctx.scope, { ...options, duration: ctx.warmup });
  }
  ctx.log(`${label}: measuring for ${ctx.duration} (${load.connections} connections, ${load.threads} threads)`);
  return runWrk(ctx.scope, { ...options, duration: ctx.duration });
}

/** The server and what it scans: the small site of (a), the big sites of (b), a profile on each. */
interface Setup {
  api: Api;
  server: ServerProcess;
  serverEnv: Record<string, string>;
  cpuProfileDir: string | undefined;
  small: SiteProcess;
  smallProfile: string;
  bigSites: TargetServer[];
  bigProfiles: string[];
}

/** Seeds the store, starts the sites and the server (every role), and creates the profiles. */
async function setUp(ctx: BenchContext): Promise<Setup> {
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
  return { api, server, serverEnv, cpuProfileDir, small, smallProfile, bigSites, bigProfiles };
}

/** (a) scan vs plain loop, interleaved; unmeasured pairs first unless BENCH_WARMUP=0. */
async function measureOverhead(
  ctx: BenchContext,
  api: Api,
  serverPid: number,
  small: SiteProcess,
  smallProfile: string,
): Promise<OverheadRuns> {
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
    const serverBefore = processCpuMs(serverPid);
    const siteBefore = processCpuMs(small.pid);
    const { run: scan, requests } = await timedScan(api, smallProfile, small, logged, pollIntervalMs);
    const serverDuringScanMs = processCpuMs(serverPid) - serverBefore;
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
  return { scans, loops, parseLoops, cpu, nonGet, urlCount };
}

/** (b) status latency while four scans run, then with none (the scans stopped in between). */
async function measureStatusLatency(
  ctx: BenchContext,
  api: Api,
  bigProfiles: string[],
  bigSites: TargetServer[],
): Promise<{ busy: WrkResult; idle: WrkResult; scanTraffic: ScanTraffic }> {
  for (const profile of bigProfiles) await startScan(api, profile);
  for (const profile of bigProfiles)
    await waitForStatus(api, profile, (s) => s === 'running', 'the scan to run', waitPollMs);
  ctx.log(`${concurrentScans} scans running`);
  const script = urlCycleScript(
    bigProfiles.map((t) => `/rest/v2/scans/${t}/`),
    { 'X-Service-Key': api.key },
  );
  const sentBefore = await Promise.all(bigProfiles.map((t) => scanStatus(api, t)));
  const receivedBefore = bigSites.map((s) => s.requests.length);
  const busyStartedAt = performance.now();
  const busy = await measureWrk(ctx, `GET scan status, ${concurrentScans} scans running`, {
    url: api.url,
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
  for (const profile of bigProfiles)
    await waitForStatus(api, profile, (s) => !isLive(s), 'the scan to stop', waitPollMs);
  ctx.log('scans stopped');
  const idle = await measureWrk(ctx, 'GET scan status, no scan running', { url: api.url, ...load, script });
  return { busy, idle, scanTraffic };
}

async function run(ctx: BenchContext): Promise<void> {
  const { api, server, serverEnv, cpuProfileDir, small, smallProfile, bigSites, bigProfiles } = await setUp(ctx);
  const runs = await measureOverhead(ctx, api, server.pid, small, smallProfile);
  const { scans, loops, parseLoops, cpu, nonGet, urlCount } = runs;
  const mismatched = scans.filter((s) => s.requestsSent !== s.requestsReceived);
  if (mismatched.length > 0)
    ctx.log(
      `note: progress.requests_sent differs from what the target received in ${mismatched.length} run(s); the target's count is used`,
    );
  const summary = summariseOverhead(runs);
  const { scanRate, loopRate, ratio, pairRatios, parseLoopRate, parseRatio, parsePairRatios, crawlRate } = summary;

  const { busy, idle, scanTraffic } = await measureStatusLatency(ctx, api, bigProfiles, bigSites);
  await server.stop();
  if (cpuProfileDir !== undefined) ctx.log(`CPU profile of the server written under ${cpuProfileDir}`);

  printOverhead(
    `scans (a): one scan of a ${smallSitePages}-page site, start request → completed (poll ${pollIntervalMs} ms), vs a plain undici loop over the same ${urlCount} GETs, ${crawlConcurrency} in flight`,
    runs,
    summary,
  );
  printStatusLatency(
    `scans (b): GET /rest/v2/scans/{t}/ over ${concurrentScans} profiles, wrk -c ${load.connections} -t ${load.threads}, ${ctx.duration}`,
    concurrentScans,
    { busy, idle, scanTraffic },
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
      cpuPerRequestUs: summary.cpuPerRequest,
    },
    statusLatency: { busy, idle, scanTraffic },
  });
  ctx.log(`results written to ${path}`);
}
