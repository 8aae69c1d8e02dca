import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { staticWeight } from '../src/http/console/static-files.ts';
import { launchBrowser } from '../test/support/browser.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { consoleSession, rawGet, type ConsoleSession } from './support/console-session.ts';
import { measured } from './support/interleave.ts';
import { printTable, writeResult, type TableRow } from './support/report.ts';
import { startPerimeter, type ServerProcess } from './support/server.ts';
import { seededVulnerabilities } from './support/vulnerability-store.ts';
import { urlCycleScript, type WrkOptions, type WrkResult } from './support/wrk.ts';

/**
 * The console's findings page (GET /vulnerabilities with the v2 list's filters) on the seeded
 * store of `vulnerabilities-sqlite`: latency at 10 connections beside the API's list of the same
 * filters (its floor: the page does the list's work, then HTML), with the API's page cache on and
 * off, the first rows visible in Chromium, and the weight of what the page loads. See
 * docs/benchmarks.md.
 */

const count = Number(process.env['BENCH_VULNS'] ?? 1_000_000);
/** Pages of each mix, followed by the page's "Next page" link (the API's next_marker). */
const pagesPerMix = 10;
const browserVisits = Math.max(5, Number(process.env['BENCH_BROWSER_VISITS'] ?? 7));
const load = { connections: 10, threads: 2 };
const pageCacheMb = 64;
const team = 'bench';
const member = { email: 'console-bench@example.com', password: 'console benchmark password' };
const targets = { p99Ms: 50, visibleMs: 1000, weightBytes: 250_000 };

interface Mix {
  name: string;
  /** The filter as query parameters (the same names on the page and the API). */
  query: string;
}

function mixes(assetToken: string): Mix[] {
  const window = new Date(Date.now() - 35 * 86_400_000).toISOString().slice(0, 19) + 'Z';
  return [
    { name: 'high+critical, active', query: 'severity[]=high&severity[]=critical&status[]=active' },
    { name: 'one asset', query: `asset_token[]=${assetToken}` },
    { name: 'updated_after window', query: `updated_after=${window}` },
  ];
}

interface Pages {
  mix: Mix;
  paths: string[];
  bytes: number;
  total: number;
  rows: number;
}

const unescapeHtml = (text: string) =>
  text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!,
  );

/** The findings pages of a mix, following each page's "Next page" link, up to `pagesPerMix`. */
async function consolePages(url: string, session: ConsoleSession, mix: Mix): Promise<Pages> {
  const out: Pages = { mix, paths: [], bytes: 0, total: 0, rows: 0 };
  let path: string | undefined = `/vulnerabilities?${mix.query}`;
  while (path !== undefined && out.paths.length < pagesPerMix) {
    const res: Response = await fetch(url + path, { redirect: 'manual', headers: { cookie: session.cookie } });
    const body: string = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`);
    const rows = body.match(/<tr data-uuid="/g)?.length ?? 0;
    if (!body.includes('<table id="findings">') || rows === 0) throw new Error(`${path}: no findings table with rows`);
    if (out.paths.length === 0)
      out.total = Number(/([\d,]+) findings? match/.exec(body)?.[1]?.replace(/,/g, '') ?? NaN);
    out.paths.push(path);
    out.bytes += Buffer.byteLength(body);
    out.rows += rows;
    const next: string | undefined = /<a [^>]*href="([^"]+)" rel="next">/.exec(body)?.[1];
    path = next === undefined ? undefined : unescapeHtml(next);
  }
  return out;
}

/** The API's list of the same filter, following next_marker, as many pages as the console's. */
async function apiPages(url: string, key: string, mix: Mix, pages: number): Promise<Pages> {
  const out: Pages = { mix, paths: [], bytes: 0, total: 0, rows: 0 };
  let marker: string | undefined;
  while (out.paths.length < pages) {
    const path = `/rest/v2/vulnerabilities/?pageSize=100&${mix.query}${marker === undefined ? '' : `&marker=${encodeURIComponent(marker)}`}`;
    const res = await fetch(url + path, { headers: { 'x-service-key': key } });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.toString().slice(0, 300)}`);
    const page = JSON.parse(body.toString()) as {
      total_vulnerabilities: number;
      vulnerabilities: unknown[];
      has_more: boolean;
      next_marker?: string;
    };
    out.paths.push(path);
    out.bytes += body.length;
    out.rows += page.vulnerabilities.length;
    out.total = page.total_vulnerabilities;
    if (!page.has_more || page.next_marker === undefined) break;
    marker = page.next_marker;
  }
  return out;
}

/** What the findings page weighs: its HTML and the CSS and JS it links, on the wire. */
interface Weight {
  html: { encoding: string; wire: number; raw: number; gzip: number; brotli: number };
  assets: Array<{ path: string; raw: number; gzip: number; brotli: number }>;
  /** CSS + JS as served with Accept-Encoding: br, and with gzip only. */
  assetsBrotli: number;
  assetsGzip: number;
  assetsRaw: number;
}

async function pageWeight(url: string, session: ConsoleSession, path: string): Promise<Weight> {
  const page = await rawGet(url + path, { cookie: session.cookie, 'accept-encoding': 'br, gzip' });
  if (page.status !== 200) throw new Error(`${path}: ${page.status}`);
  const encoding = String(page.headers['content-encoding'] ?? 'identity');
  // The HTML is read decompressed below only when the server sent it as it is.
  const html = encoding === 'identity' ? page.body : undefined;
  const plain = html ?? (await rawGet(url + path, { cookie: session.cookie })).body;
  const text = plain.toString('utf8');
  const linked = [
    ...[...text.matchAll(/<link [^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]!),
    ...[...text.matchAll(/<script [^>]*src="([^"]+)"/g)].map((m) => m[1]!),
  ].map(unescapeHtml);
  if (!linked.some((p) => p.endsWith('.css')) || !linked.some((p) => p.endsWith('.js')))
    throw new Error(`${path} links no CSS or no JS: ${linked.join(', ')}`);
  const assets: Weight['assets'] = [];
  for (const asset of linked) {
    const sized = async (acceptEncoding: string | undefined, expected: string | undefined) => {
      const res = await rawGet(url + asset, acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding });
      if (res.status !== 200) throw new Error(`${asset}: ${res.status}`);
      if (res.headers['content-encoding'] !== expected)
        throw new Error(`${asset} with Accept-Encoding ${acceptEncoding}: sent as ${res.headers['content-encoding']}`);
      return res.body.length;
    };
    assets.push({
      path: asset,
      raw: await sized(undefined, undefined),
      gzip: await sized('gzip', 'gzip'),
      brotli: await sized('br', 'br'),
    });
  }
  const sum = (key: 'raw' | 'gzip' | 'brotli') => assets.reduce((s, a) => s + a[key], 0);
  return {
    html: {
      encoding,
      wire: page.body.length,
      raw: plain.length,
      gzip: gzipSync(plain, { level: 6 }).length,
      brotli: brotliCompressSync(plain).length,
    },
    assets,
    assetsBrotli: sum('brotli'),
    assetsGzip: sum('gzip'),
    assetsRaw: sum('raw'),
  };
}

async function launchChromium(ctx: BenchContext): Promise<Browser> {
  // The browser tests' launch: Debian's chromium with the flags this closed network needs.
  const browser = await launchBrowser();
  ctx.scope.defer('close chromium', () => browser.close());
  return browser;
}

/** One navigation: from before goto to the first row visible, and the page's own timings. */
interface Visit {
  visibleMs: number;
  /** The navigation entry's responseStart, domContentLoadedEventEnd, and first-contentful-paint, from its startTime. */
  responseStartMs: number;
  domContentLoadedMs: number;
  firstContentfulPaintMs: number | null;
}

const timingsScript = `JSON.stringify((() => {
  const n = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  return { responseStart: n.responseStart, domContentLoaded: n.domContentLoadedEventEnd, fcp: fcp ? fcp.startTime : null };
})())`;

/**
 * Opens `path` `browserVisits` times, each in a fresh context holding only the session cookie
 * (cold: no cached CSS or JS), then as many times in fresh pages of one context that has loaded
 * it once (warm: the hashed CSS and JS from the browser's cache).
 */
async function browserVisitsOf(
  browser: Browser,
  base: string,
  session: ConsoleSession,
  path: string,
): Promise<{ cold: Visit[]; warm: Visit[] }> {
  const newContext = async () => {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
    await context.addCookies([
      { name: session.name, value: session.value, url: base, httpOnly: true, sameSite: 'Lax' },
    ]);
    return context;
  };
  const visit = async (context: Awaited<ReturnType<typeof newContext>>): Promise<Visit> => {
    const page = await context.newPage();
    try {
      const started = Date.now();
      await page.goto(path, { waitUntil: 'commit', timeout: 30_000 });
      await page.locator('#findings tbody tr').first().waitFor({ state: 'visible', timeout: 30_000 });
      const visibleMs = Date.now() - started;
      if (new URL(page.url()).pathname !== '/vulnerabilities') throw new Error(`the browser landed on ${page.url()}`);
      await page.waitForLoadState('load');
      const t = JSON.parse((await page.evaluate(timingsScript)) as string) as {
        responseStart: number;
        domContentLoaded: number;
        fcp: number | null;
      };
      return {
        visibleMs,
        responseStartMs: t.responseStart,
        domContentLoadedMs: t.domContentLoaded,
        firstContentfulPaintMs: t.fcp,
      };
    } finally {
      await page.close();
    }
  };
  const cold: Visit[] = [];
  for (let i = 0; i < browserVisits; i++) {
    const context = await newContext();
    try {
      cold.push(await visit(context));
    } finally {
      await context.close();
    }
  }
  const warm: Visit[] = [];
  const context = await newContext();
  try {
    await visit(context);
    for (let i = 0; i < browserVisits; i++) warm.push(await visit(context));
  } finally {
    await context.close();
  }
  return { cold, warm };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const ms = (us: number) => us / 1000;
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

function summary(visits: Visit[]) {
  const of = (pick: (v: Visit) => number | null) => {
    const values = visits.map(pick).filter((v): v is number => v !== null);
    return { median: percentile(values, 50), max: Math.max(...values) };
  };
  return {
    visible: of((v) => v.visibleMs),
    responseStart: of((v) => v.responseStartMs),
    domContentLoaded: of((v) => v.domContentLoadedMs),
    firstContentfulPaint: of((v) => v.firstContentfulPaintMs),
    visibleMs: visits.map((v) => v.visibleMs),
  };
}

async function run(ctx: BenchContext): Promise<void> {
  const seeded = await seededVulnerabilities('sqlite', count, ctx.log);
  const cpuProfileDir =
    process.env['BENCH_CPU_PROF'] === '1' ? join(ctx.outDir, 'profiles', 'console-findings') : undefined;
  const start = (cacheMb: number): Promise<ServerProcess> =>
    startPerimeter(ctx.scope, {
      dataDir: seeded.dataDir,
      cpuProfileDir,
      env: {
        ...seeded.env,
        PERIMETER_ROLES: 'api',
        PERIMETER_DNS_RESOLVERS: '127.0.0.1:1',
        PERIMETER_PAGE_CACHE_MB: String(cacheMb),
      },
    });
  const rows: TableRow[] = [];
  const results: Record<string, WrkResult> = {};
  const record = (label: string, result: WrkResult) => {
    rows.push({ label, result });
    results[label] = result;
  };

  let server = await start(pageCacheMb);
  const session = await consoleSession(server.url, seeded, { team, ...member });
  ctx.log(`signed in ${session.email} (Viewer of "${team}")`);
  const consoleSets: Pages[] = [];
  const apiSets: Pages[] = [];
  for (const mix of mixes(seeded.assetToken)) {
    const pages = await consolePages(server.url, session, mix);
    consoleSets.push(pages);
    apiSets.push(await apiPages(server.url, seeded.key, mix, pages.paths.length));
    ctx.log(
      `${mix.name}: ${pages.total.toLocaleString('en')} matches, ${pages.paths.length} pages, ${kb(pages.bytes / pages.paths.length)} of HTML a page`,
    );
  }

  const weight = await pageWeight(server.url, session, consoleSets[0]!.paths[0]!);
  const browser = await launchChromium(ctx);
  const browserPath = consoleSets[0]!.paths[0]!;
  const visits: Record<string, { cold: Visit[]; warm: Visit[] }> = {};
  visits[`page cache ${pageCacheMb} MB`] = await browserVisitsOf(browser, server.url, session, browserPath);

  // wrk takes a 303 for an answer: a session that ended would time redirects to /signin.
  const stillSignedIn = async (path: string) => {
    const res = await fetch(server.url + path, { redirect: 'manual', headers: { cookie: session.cookie } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the session no longer opens ${path}: ${res.status}`);
  };
  // A failed run names the state of the server: a server gone from under wrk (killed from
  // outside) shows as thousands of write errors.
  const measure = async (label: string, options: Omit<WrkOptions, 'duration'>): Promise<WrkResult> => {
    try {
      return await measured(ctx, label, options);
    } catch (err) {
      let running = true;
      try {
        process.kill(server.pid, 0);
      } catch {
        running = false;
      }
      throw new Error(
        `${label}: ${(err as Error).message}\nthe server (pid ${server.pid}) ${running ? 'is still running' : 'is gone: it stopped during the run'}`,
        { cause: err },
      );
    }
  };
  const wrkRuns = async (label: string) => {
    for (const [i, pages] of consoleSets.entries()) {
      const mixName = pages.mix.name;
      const pagesLabel = `${pages.paths.length} pages`;
      record(
        `console ${label}: ${mixName} (${pagesLabel})`,
        await measure(`console ${label}: ${mixName}`, {
          url: server.url,
          ...load,
          script: urlCycleScript(pages.paths, { cookie: session.cookie }),
        }),
      );
      await stillSignedIn(pages.paths.at(-1)!);
      record(
        `API ${label}: ${mixName} (${pagesLabel})`,
        await measure(`API ${label}: ${mixName}`, {
          url: server.url,
          ...load,
          script: urlCycleScript(apiSets[i]!.paths, { 'X-Service-Key': seeded.key }),
        }),
      );
    }
  };
  const cachedLabel = `cache ${pageCacheMb} MB`;
  await wrkRuns(cachedLabel);
  await server.stop();
  // The same pages with the page cache off. The cache is the API route's (whole JSON answers):
  // the console reads its rows from the store either way, so the API without it is the page's
  // floor. The session and the markers are in the store and signed with its key: they hold.
  server = await start(0);
  await wrkRuns('cache off');
  visits['page cache off'] = await browserVisitsOf(browser, server.url, session, browserPath);
  await server.stop();

  const bytesLine = consoleSets
    .map(
      (c, i) =>
        `${c.mix.name} ${kb(c.bytes / c.paths.length)} HTML / ${kb(apiSets[i]!.bytes / apiSets[i]!.paths.length)} JSON`,
    )
    .join('; ');
  printTable(
    `console findings page on sqlite: ${count.toLocaleString('en')} vulnerabilities, ${load.connections} connections, ${pagesPerMix} pages a mix (a page: ${bytesLine})`,
    rows,
  );
  const worst: Record<string, { label: string; p99Ms: number }> = {};
  for (const cache of [cachedLabel, 'cache off']) {
    const consoleRows = Object.entries(results).filter(([l]) => l.startsWith(`console ${cache}:`));
    const [label, result] = consoleRows.reduce((a, b) => (b[1].latencyUs.p99 > a[1].latencyUs.p99 ? b : a));
    worst[cache] = { label, p99Ms: ms(result.latencyUs.p99) };
    console.log(
      `worst filtered console p99, ${cache}: ${ms(result.latencyUs.p99).toFixed(1)} ms (${label}); target ≤ ${targets.p99Ms} ms: ${ms(result.latencyUs.p99) <= targets.p99Ms ? 'met' : 'missed'}`,
    );
    for (const [l, r] of consoleRows) {
      const api = results[l.replace(/^console/, 'API')]!;
      console.log(
        `  ${l}: p50 ${ms(r.latencyUs.p50).toFixed(1)} / p99 ${ms(r.latencyUs.p99).toFixed(1)} ms, ${r.requestsPerSecond.toFixed(0)} req/s; API p99 ${ms(api.latencyUs.p99).toFixed(1)} ms, ${api.requestsPerSecond.toFixed(0)} req/s (${(r.requestsPerSecond / api.requestsPerSecond).toFixed(2)}× the API's throughput)`,
      );
    }
  }
  const browserSummary: Record<string, { cold: ReturnType<typeof summary>; warm: ReturnType<typeof summary> }> = {};
  for (const [label, v] of Object.entries(visits)) {
    const both = { cold: summary(v.cold), warm: summary(v.warm) };
    browserSummary[label] = both;
    for (const kind of ['cold', 'warm'] as const) {
      const s = both[kind];
      console.log(
        `first rows visible in Chromium, ${label}, ${kind} (${browserVisits} visits): median ${s.visible.median} ms, max ${s.visible.max} ms (response start ${s.responseStart.median.toFixed(0)} ms, first contentful paint ${s.firstContentfulPaint.median.toFixed(0)} ms, DOMContentLoaded ${s.domContentLoaded.median.toFixed(0)} ms, medians); target ≤ ${targets.visibleMs} ms: ${s.visible.max <= targets.visibleMs ? 'met' : 'missed'}`,
      );
    }
  }
  const declared = staticWeight();
  if (declared.brotli !== weight.assetsBrotli || declared.gzip !== weight.assetsGzip)
    console.log(`note: the page loads other CSS/JS bytes than staticWeight() counts (${JSON.stringify(declared)})`);
  console.log(
    `page weight: CSS + JS ${kb(weight.assetsBrotli)} brotli, ${kb(weight.assetsGzip)} gzip (${kb(weight.assetsRaw)} raw; ${weight.assets.map((a) => `${a.path} ${a.brotli} B`).join(', ')}); target ≤ ${kb(targets.weightBytes)} compressed: ${Math.max(weight.assetsBrotli, weight.assetsGzip) <= targets.weightBytes ? 'met' : 'missed'}`,
  );
  console.log(
    `  the page's HTML: ${kb(weight.html.wire)} sent (${weight.html.encoding}); ${kb(weight.html.gzip)} gzip, ${kb(weight.html.brotli)} brotli (${kb(weight.html.raw)} raw); staticWeight(): ${kb(declared.brotli)} brotli, ${kb(declared.gzip)} gzip`,
  );
  if (cpuProfileDir !== undefined) ctx.log(`CPU profiles of the servers written under ${cpuProfileDir}`);
  writeResult(ctx.outDir, 'console-findings', {
    parameters: {
      store: 'sqlite',
      count,
      connections: load.connections,
      threads: load.threads,
      pagesPerMix,
      pageCacheMb,
      browserVisits,
      duration: ctx.duration,
      warmup: ctx.warmup ?? null,
      browserPath,
      mixes: consoleSets.map((c, i) => ({
        name: c.mix.name,
        query: c.mix.query,
        total: c.total,
        pages: c.paths.length,
        htmlBytesPerPage: c.bytes / c.paths.length,
        jsonBytesPerPage: apiSets[i]!.bytes / apiSets[i]!.paths.length,
      })),
    },
    targets,
    results,
    worstConsoleP99: worst,
    browser: browserSummary,
    weight: { ...weight, staticWeight: declared },
  });
}

/** The findings page of the console at 1M vulnerabilities: latency, first rows in Chromium, weight. */
export const benchmark: Benchmark = {
  name: 'console-findings',
  description: `console findings page at ${count.toLocaleString('en')} vulnerabilities on sqlite: 3 filtered mixes at ${load.connections} connections beside the API list (page cache on and off), first rows visible in Chromium, page weight`,
  run,
};
