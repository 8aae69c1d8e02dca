import { join } from 'node:path';
import { crawlConcurrency } from '../src/engine/http-scan/site-crawler.ts';
import { realisticAccounts, realisticManifest } from '../test/support/realistic-app/manifest.ts';
import { startGeneratedSite, type TargetServer } from '../test/support/target-site.ts';
import {
  printRealisticScans,
  printStatusLatency,
  summariseRealisticScans,
  type RealisticScan,
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
} from './scans-support.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { processCpuMs } from './support/process-cpu.ts';
import { writeResult } from './support/report.ts';
import { startRealisticAppProcess } from './support/site-process.ts';
import { startPerimeter, type ServerProcess } from './support/server.ts';
import { runWrk, urlCycleScript, type WrkOptions, type WrkResult } from './support/wrk.ts';

/**
 * (a) scans of the realistic application's vulnerable twin (test/support/realistic-app: a
 * login, 10–50 ms answers), each of a fresh twin, timed start request → completed.
 */
const rounds = countFromEnv('BENCH_SCAN_ROUNDS', 3, 1);
/** A scan of the realistic application may take minutes; beyond this it is a failure. */
const realisticScanTimeoutMs = 15 * 60_000;
/** The server's scan threads when set (0: scans on its event loop, as before scan threads); else the server's default. */
const scanThreads =
  process.env['BENCH_SCAN_THREADS'] === undefined ? undefined : countFromEnv('BENCH_SCAN_THREADS', 1, 0);
/** (b) four larger sites, big enough that unlimited scans are still crawling when wrk ends. */
const bigSitePages = 20_000;
const concurrentScans = 4;
/** Status poll of (a): the resolution of "completed seen". */
const pollIntervalMs = 100;
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

/**
 * The profile settings of (a): the scanner's account logs in, no browser (the scripted menu's
 * pages are given as start URLs instead), unlimited rate: the crawler's fixed concurrency
 * (`crawlConcurrency` requests in flight) is the only bound, so the wall time is comparable
 * from run to run.
 */
const realisticSettings = {
  requests_per_second: 0,
  render_javascript: false,
  start_urls: [...new Set(realisticManifest.filter((s) => s.needsJs).map((s) => s.path))],
  login: {
    url: '/login',
    fields: [
      { name: 'username', value: realisticAccounts.user.username },
      { name: 'password', value: realisticAccounts.user.password },
    ],
    logged_in_text: 'Logout',
    logged_in_selector: null,
    logged_out_text: null,
    logged_out_selector: 'input[name="Login"]',
  },
};

/** The scan's wall time on the realistic application, and scan-status latency while four scans run. */
export const benchmark: Benchmark = {
  name: 'scans',
  description:
    `(a) one scan of the realistic application (logged in, 10–50 ms answers) through the API, start to completed, ${crawlConcurrency} requests in flight, ` +
    `${rounds} rounds, a fresh application each; (b) GET /rest/v2/scans/{t}/ latency while ${concurrentScans} unlimited scans run, and with none`,
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

/** The server and what it scans: the big sites of (b) with a profile on each; (a) makes its own. */
interface Setup {
  api: Api;
  server: ServerProcess;
  serverEnv: Record<string, string>;
  cpuProfileDir: string | undefined;
  assetToken: string;
  bigSites: TargetServer[];
  bigProfiles: string[];
}

/** Seeds the store, starts the sites and the server (every role), and creates the profiles. */
async function setUp(ctx: BenchContext): Promise<Setup> {
  const dataDir = ctx.scope.tempDir('perimeter-bench-scans-');
  const key = await seed(ctx, dataDir);

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
  // the scans busy (neither limit is reached by the realistic application).
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
  const bigProfiles: string[] = [];
  for (const [i, site] of bigSites.entries()) bigProfiles.push(await createProfile(api, asset.token, site, `big-${i}`));
  return { api, server, serverEnv, cpuProfileDir, assetToken: asset.token, bigSites, bigProfiles };
}

/** (a) each round: a fresh vulnerable twin of the realistic application, a profile on it, one scan timed to `completed`. */
async function measureRealisticScans(
  ctx: BenchContext,
  api: Api,
  serverPid: number,
  assetToken: string,
): Promise<RealisticScan[]> {
  const scans: RealisticScan[] = [];
  for (let round = 1; round <= rounds; round++) {
    const site = await startRealisticAppProcess(ctx.scope, 'vulnerable');
    try {
      const profile = await createProfile(api, assetToken, site, `realistic-${round}`, realisticSettings);
      // Endpoint validation at profile creation reached the site too: the scan's requests come after.
      const logged = (await site.requestsFrom(0)).length;
      const serverBefore = processCpuMs(serverPid);
      const { run: scan } = await timedScan(api, profile, site, logged, pollIntervalMs, realisticScanTimeoutMs);
      const serverCpuMs = processCpuMs(serverPid) - serverBefore;
      const counters = await site.counters();
      scans.push({ ...scan, serverCpuMs, counters });
      ctx.log(
        `round ${round}/${rounds}: ${(scan.durationMs / 1000).toFixed(1)} s, ${scan.requestsReceived} requests received, ${scan.requestsPerSecond.toFixed(0)} req/s, ` +
          `${scan.findings} findings, ${counters['logins'] ?? 0} logins, ${counters['expired'] ?? 0} sessions expired, server CPU ${serverCpuMs.toFixed(0)} ms`,
      );
    } finally {
      await site.stop();
    }
  }
  return scans;
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
  const { api, server, serverEnv, cpuProfileDir, assetToken, bigSites, bigProfiles } = await setUp(ctx);
  const scans = await measureRealisticScans(ctx, api, server.pid, assetToken);
  const mismatched = scans.filter((s) => s.requestsSent !== s.requestsReceived);
  if (mismatched.length > 0)
    ctx.log(
      `note: progress.requests_sent differs from what the target received in ${mismatched.length} run(s); the target's count is used`,
    );
  const summary = summariseRealisticScans(scans);

  const { busy, idle, scanTraffic } = await measureStatusLatency(ctx, api, bigProfiles, bigSites);
  await server.stop();
  if (cpuProfileDir !== undefined) ctx.log(`CPU profile of the server written under ${cpuProfileDir}`);

  printRealisticScans(
    `scans (a): one scan of the realistic application (logged in, no browser, its scripted pages as start URLs), start request → completed (poll ${pollIntervalMs} ms), ${crawlConcurrency} requests in flight`,
    scans,
    summary,
  );
  printStatusLatency(
    `scans (b): GET /rest/v2/scans/{t}/ over ${concurrentScans} profiles, wrk -c ${load.connections} -t ${load.threads}, ${ctx.duration}`,
    concurrentScans,
    { busy, idle, scanTraffic },
  );

  const path = writeResult(ctx.outDir, 'scans', {
    parameters: {
      rounds,
      pollIntervalMs,
      crawlConcurrency,
      realisticSettings,
      bigSitePages,
      concurrentScans,
      ...load,
      duration: ctx.duration,
      warmup: ctx.warmup ?? null,
      serverEnv,
    },
    realisticScan: { scans, ...summary },
    statusLatency: { busy, idle, scanTraffic },
  });
  ctx.log(`results written to ${path}`);
}
