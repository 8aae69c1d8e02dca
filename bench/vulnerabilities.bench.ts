import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { startBareServer } from './support/bare-server.ts';
import { BareSeries, measured } from './support/interleave.ts';
import { floorName, floorStoreOf, keysetPages, startFloor } from './support/floor.ts';
import { printTable, writeResult, type TableRow } from './support/report.ts';
import { startPerimeter, type ServerProcess } from './support/server.ts';
import { seededVulnerabilities } from './support/vulnerability-store.ts';
import { requestCycleScript, runWrk, urlCycleScript, type WrkResult } from './support/wrk.ts';

const count = Number(process.env['BENCH_VULNS'] ?? 1_000_000);
/** Distinct pages of the working set: more bytes than the 64 MB page cache holds. */
const workingSetPages = Number(process.env['BENCH_VULN_PAGES'] ?? 500);
/** The hot set of the cached figure: the first pages of each mix. */
const hotPagesPerMix = 10;
const writesPerSecond = 20;
const freshStarts = 3;
const afterWriteSamples = 60;
const latencyDuration = process.env['BENCH_LATENCY_DURATION'] ?? '5s';
const pageCacheMb = 64;

interface Mix {
  name: string;
  query: string;
}

function mixes(assetToken: string): Mix[] {
  const window = new Date(Date.now() - 35 * 86_400_000).toISOString().slice(0, 19) + 'Z';
  return [
    { name: 'no filter', query: '' },
    { name: 'high+critical, active', query: '&severity[]=high&severity[]=critical&status[]=active' },
    { name: 'one asset', query: `&asset_token[]=${assetToken}` },
    { name: 'updated_after window', query: `&updated_after=${window}` },
  ];
}

interface Collected {
  mix: Mix;
  paths: string[];
  bytes: number;
  total: number;
  firstPage: Buffer;
}

/** Follows next_marker from the first page of a mix for up to `pages` pages. */
async function collect(url: string, key: string, mix: Mix, pages: number): Promise<Collected> {
  const paths: string[] = [];
  let marker: string | undefined;
  let total = 0;
  let bytes = 0;
  let firstPage = Buffer.alloc(0);
  while (paths.length < pages) {
    const path = `/rest/v2/vulnerabilities/?pageSize=100${mix.query}${marker === undefined ? '' : `&marker=${encodeURIComponent(marker)}`}`;
    const res = await fetch(url + path, { headers: { 'x-service-key': key } });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.toString().slice(0, 300)}`);
    const page = JSON.parse(body.toString()) as {
      total_vulnerabilities: number;
      has_more: boolean;
      next_marker?: string;
    };
    if (paths.length === 0) firstPage = body;
    paths.push(path);
    bytes += body.length;
    total = page.total_vulnerabilities;
    if (!page.has_more || page.next_marker === undefined) break;
    marker = page.next_marker;
  }
  return { mix, paths, bytes, total, firstPage };
}

async function uuids(url: string, key: string): Promise<string[]> {
  const res = await fetch(`${url}/rest/v2/vulnerabilities/?pageSize=100&status[]=new`, {
    headers: { 'x-service-key': key },
  });
  const page = (await res.json()) as { vulnerabilities: Array<{ uuid: string }> };
  return page.vulnerabilities.map((v) => v.uuid);
}

/** Status changes (set/unset accepted risk, alternating over `ids`), one at a time. */
class StatusChanges {
  private next = 0;
  constructor(
    private readonly url: string,
    private readonly key: string,
    private readonly ids: string[],
  ) {}

  async one(): Promise<number> {
    const i = this.next++;
    const uuid = this.ids[Math.floor(i / 2) % this.ids.length]!;
    const action = i % 2 === 0 ? 'setacceptedriskstatus' : 'unsetacceptedriskstatus';
    const started = performance.now();
    const res = await fetch(`${this.url}/rest/v2/vulnerabilities/uuid/${uuid}/${action}/`, {
      method: 'POST',
      headers: { 'x-service-key': this.key },
    });
    await res.arrayBuffer();
    if (res.status >= 300) throw new Error(`status change answered ${res.status}`);
    return performance.now() - started;
  }

  /**
   * Sends `perSecond` changes a second until stopped, on schedule whether or not the earlier
   * ones have been answered (open loop, at most `perSecond` in flight): a slow server gets the
   * load it was promised, not less. Resolves with what was sent and answered.
   */
  steady(perSecond: number): {
    stop(): Promise<{ writes: number; seconds: number; latenciesMs: number[]; skipped: number }>;
  } {
    const latenciesMs: number[] = [];
    const inFlight = new Set<Promise<void>>();
    let skipped = 0;
    let failure: unknown;
    const started = performance.now();
    const timer = setInterval(() => {
      if (inFlight.size >= perSecond) {
        skipped++;
        return;
      }
      const write: Promise<void> = this.one().then(
        (ms) => void latenciesMs.push(ms),
        (error: unknown) => void (failure ??= error),
      );
      inFlight.add(write);
      void write.finally(() => inFlight.delete(write));
    }, 1000 / perSecond);
    return {
      stop: async () => {
        clearInterval(timer);
        const seconds = (performance.now() - started) / 1000;
        await Promise.all(inFlight);
        if (failure !== undefined) throw failure;
        return { writes: latenciesMs.length, seconds, latenciesMs, skipped };
      },
    };
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const ms = (us: number) => us / 1000;

async function runStore(ctx: BenchContext, store: 'sqlite' | 'postgres'): Promise<void> {
  const seeded = await seededVulnerabilities(store, count, ctx.log);
  const start = (cacheMb = pageCacheMb): Promise<ServerProcess> =>
    startPerimeter(ctx.scope, {
      dataDir: seeded.dataDir,
      env: {
        ...seeded.env,
        PERIMETER_ROLES: 'api',
        PERIMETER_DNS_RESOLVERS: '127.0.0.1:1',
        PERIMETER_PAGE_CACHE_MB: String(cacheMb),
      },
    });
  const headers = { 'X-Service-Key': seeded.key };
  const load = { connections: 50, threads: 2 };
  const single = { connections: 1, threads: 1 };
  const rows: TableRow[] = [];
  const results: Record<string, WrkResult> = {};
  const record = (label: string, result: WrkResult) => {
    rows.push({ label, result });
    results[label] = result;
  };
  const firstPath = '/rest/v2/vulnerabilities/?pageSize=100';

  // The first page a freshly started process serves (the store file is in the OS cache: the
  // seed or the previous process read it).
  const freshMs: number[] = [];
  for (let i = 0; i < freshStarts; i++) {
    const fresh = await start();
    const started = performance.now();
    const res = await fetch(fresh.url + firstPath, { headers: { 'x-service-key': seeded.key } });
    await res.arrayBuffer();
    freshMs.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`first page answered ${res.status}`);
    await fresh.stop();
  }
  ctx.log(`first page of a fresh process: ${freshMs.map((m) => m.toFixed(0)).join(', ')} ms`);

  const server = await start();
  const perMix = Math.ceil(workingSetPages / 4);
  const collected: Collected[] = [];
  for (const mix of mixes(seeded.assetToken)) collected.push(await collect(server.url, seeded.key, mix, perMix));
  for (const c of collected)
    ctx.log(
      `${c.mix.name}: ${c.total.toLocaleString('en')} matches, ${c.paths.length} pages, ${(c.bytes / 2 ** 20).toFixed(1)} MB`,
    );
  const workingSet = collected.flatMap((c) => c.paths);
  const workingSetMb = collected.reduce((sum, c) => sum + c.bytes, 0) / 2 ** 20;
  const hotSet = collected.flatMap((c) => c.paths.slice(0, hotPagesPerMix));
  const ids = await uuids(server.url, seeded.key);
  const changes = new StatusChanges(server.url, seeded.key, ids);

  // One connection: the first page of each mix right after a status change, which pays the
  // plan, the read and the count of a new data version (no cached page, no cached count).
  const afterWrite: Record<string, { p50: number; p99: number; max: number }> = {};
  for (const c of collected) {
    const samples: number[] = [];
    for (let i = 0; i < afterWriteSamples; i++) {
      await changes.one();
      const started = performance.now();
      const res = await fetch(server.url + c.paths[0]!, { headers: { 'x-service-key': seeded.key } });
      await res.arrayBuffer();
      samples.push(performance.now() - started);
    }
    afterWrite[c.mix.name] = { p50: percentile(samples, 50), p99: percentile(samples, 99), max: Math.max(...samples) };
  }
  record(
    '1 conn: single read',
    await runWrk(ctx.scope, {
      url: server.url,
      ...single,
      duration: latencyDuration,
      script: urlCycleScript(
        ids.map((u) => `/rest/v2/vulnerabilities/uuid/${u}/`),
        headers,
      ),
    }),
  );
  const toggles = ids
    .flatMap((u) => [
      `/rest/v2/vulnerabilities/uuid/${u}/setacceptedriskstatus/`,
      `/rest/v2/vulnerabilities/uuid/${u}/unsetacceptedriskstatus/`,
    ])
    .map((path) => ({ method: 'POST', path }));
  record(
    '1 conn: status change',
    await runWrk(ctx.scope, {
      url: server.url,
      ...single,
      duration: latencyDuration,
      script: requestCycleScript(toggles, headers),
    }),
  );

  // Fifty connections, each of our runs between two bare runs.
  const first = collected[0]!.firstPage;
  const bare = await startBareServer(ctx.scope, first, { 'content-type': 'application/json; charset=utf-8' });
  const bareSeries = new BareSeries(ctx, { url: bare.url, ...load, script: urlCycleScript(workingSet, headers) });
  const ratios: Record<string, { ratio: number; bareRps: number }> = {};
  /** One run at 50 connections against `url` (with `during` running beside it), then a bare run. */
  const againstBare = async (
    label: string,
    url: string,
    paths: string[],
    during?: () => { stop(): Promise<unknown> },
  ) => {
    const background = during?.();
    const result = await measured(ctx, label, { url, ...load, script: urlCycleScript(paths, headers) });
    await background?.stop();
    record(label, result);
    record(`bare node:http after "${label}"`, await bareSeries.measure());
    ratios[label] = bareSeries.ratio(result);
  };
  const ours = (label: string, paths: string[], during?: () => { stop(): Promise<unknown> }) =>
    againstBare(label, server.url, paths, during);
  record('bare node:http (first)', await bareSeries.measure());
  await ours(`50 conn: ${workingSet.length} distinct pages`, workingSet);
  let writes: { writes: number; seconds: number; latenciesMs: number[]; skipped: number } | undefined;
  await ours(`50 conn: ${workingSet.length} distinct pages + ${writesPerSecond} status changes/s`, workingSet, () => {
    const steady = changes.steady(writesPerSecond);
    return { stop: async () => (writes = await steady.stop()) };
  });
  await ours(`50 conn: ${hotSet.length} hot pages (cached)`, hotSet);
  await server.stop();
  // The unfiltered mix's pages alone, read from the store on every request (a server with its
  // page cache off: the 125 pages would fit in it), then the floor's (a plain node:http server
  // reading the same rows from the same store, no count), each between bare runs.
  const floorStore = floorStoreOf(seeded.dataDir, seeded.env);
  const unfiltered = collected[0]!.paths;
  const floor = await startFloor(ctx.scope, {
    store: floorStore,
    pages: await keysetPages(floorStore, {
      table: 'vulnerabilities',
      columns: 'r.id, r.status, r.modified_at, r.tags_json, r.document',
      order: 'id',
      pages: unfiltered.length,
    }),
    limit: 100,
  });
  const uncached = await start(0);
  await againstBare(
    `50 conn: ${unfiltered.length} distinct pages, no filter, page cache off`,
    uncached.url,
    unfiltered,
  );
  await uncached.stop();
  await againstBare(`${floorName(floorStore)}, 50 conn: the same ${floor.paths.length} pages`, floor.url, floor.paths);
  await floor.close();
  await bare.close();

  printTable(
    `vulnerabilities on ${store}: ${count.toLocaleString('en')} rows, pages of 100 (${first.length} B first page), working set ${workingSetMb.toFixed(0)} MB, page cache ${pageCacheMb} MB`,
    rows,
  );
  for (const [label, { ratio, bareRps }] of Object.entries(ratios))
    console.log(`${label}: ${ratio.toFixed(3)} × bare (bare around it: ${bareRps.toFixed(0)} req/s)`);
  for (const [mix, r] of Object.entries(afterWrite))
    console.log(
      `first page after a status change, ${mix}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms (${afterWriteSamples} samples)`,
    );
  if (writes !== undefined)
    console.log(
      `status changes during the load: ${(writes.writes / writes.seconds).toFixed(1)}/s (${writes.skipped} skipped with ${writesPerSecond} in flight), p50 ${percentile(writes.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(writes.latenciesMs, 99).toFixed(1)} ms`,
    );
  console.log(`first page of a fresh process: ${freshMs.map((m) => `${m.toFixed(0)} ms`).join(', ')}`);
  const p99 = Object.entries(results)
    .filter(([l]) => l.startsWith('1 conn'))
    .map(([l, r]) => `${l} ${ms(r.latencyUs.p99).toFixed(1)} ms`);
  console.log(`p99: ${p99.join('; ')}`);
  writeResult(ctx.outDir, `vulnerabilities-${store}`, {
    parameters: {
      store,
      count,
      workingSetPages: workingSet.length,
      workingSetMb,
      hotPages: hotSet.length,
      pageCacheMb,
      writesPerSecond,
      latencyDuration,
      duration: ctx.duration,
      mixes: collected.map((c) => ({
        name: c.mix.name,
        total: c.total,
        pages: c.paths.length,
        firstPageBytes: c.firstPage.length,
      })),
    },
    results,
    ratios,
    firstPageAfterWriteMs: afterWrite,
    statusChangesDuringLoad:
      writes === undefined
        ? null
        : {
            perSecond: writes.writes / writes.seconds,
            skipped: writes.skipped,
            p50Ms: percentile(writes.latenciesMs, 50),
            p99Ms: percentile(writes.latenciesMs, 99),
          },
    freshProcessFirstPageMs: freshMs,
  });
}

/** One team with a million vulnerabilities: list, single read and status change, on one store. */
export function vulnerabilityBenchmark(store: 'sqlite' | 'postgres'): Benchmark {
  return {
    name: `vulnerabilities-${store}`,
    description: `vulnerability list at ${count.toLocaleString('en')} rows on ${store}: ${workingSetPages} distinct pages (cold working set), with ${writesPerSecond} status changes/s, the cached hot set, first page after a write and of a fresh process; bare node:http interleaved`,
    run: (ctx) => runStore(ctx, store),
  };
}
