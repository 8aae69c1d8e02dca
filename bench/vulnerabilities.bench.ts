import { startBareServer } from './support/bare-server.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { printTable, writeResult, type TableRow } from './support/report.ts';
import { startPerimeter, type ServerProcess } from './support/server.ts';
import { seededVulnerabilities } from './support/vulnerability-store.ts';
import { requestCycleScript, runWrk, urlCycleScript, type WrkResult } from './support/wrk.ts';

const count = Number(process.env['BENCH_VULNS'] ?? 1_000_000);
const pagesPerMix = 10;
const latencyDuration = process.env['BENCH_LATENCY_DURATION'] ?? '5s';

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
  total: number;
  firstPage: Buffer;
}

/** Follows next_marker from the first page of a mix for a few pages. */
async function collect(url: string, key: string, mix: Mix): Promise<Collected> {
  const paths: string[] = [];
  let marker: string | undefined;
  let total = 0;
  let firstPage = Buffer.alloc(0);
  while (paths.length < pagesPerMix) {
    const path = `/rest/v2/vulnerabilities/?pageSize=100${mix.query}${marker === undefined ? '' : `&marker=${encodeURIComponent(marker)}`}`;
    const res = await fetch(url + path, { headers: { 'x-service-key': key } });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.toString().slice(0, 300)}`);
    const page = JSON.parse(body.toString()) as { total_vulnerabilities: number; has_more: boolean; next_marker?: string };
    if (paths.length === 0) firstPage = body;
    paths.push(path);
    total = page.total_vulnerabilities;
    if (!page.has_more || page.next_marker === undefined) break;
    marker = page.next_marker;
  }
  return { mix, paths, total, firstPage };
}

async function uuids(url: string, key: string): Promise<string[]> {
  const res = await fetch(`${url}/rest/v2/vulnerabilities/?pageSize=100&status[]=new`, { headers: { 'x-service-key': key } });
  const page = (await res.json()) as { vulnerabilities: Array<{ uuid: string }> };
  return page.vulnerabilities.map((v) => v.uuid);
}

const ms = (us: number) => us / 1000;

async function runStore(ctx: BenchContext, store: 'sqlite' | 'postgres'): Promise<void> {
  const seeded = await seededVulnerabilities(store, count, ctx.log);
  const start = async (pageCacheMb: number): Promise<ServerProcess> =>
    startPerimeter(ctx.scope, { dataDir: seeded.dataDir, env: { ...seeded.env, PERIMETER_ROLES: 'api', PERIMETER_DNS_RESOLVERS: '127.0.0.1:1', PERIMETER_PAGE_CACHE_MB: String(pageCacheMb) } });
  const headers = { 'X-Service-Key': seeded.key };
  const load = { connections: 50, threads: 2 };
  const single = { connections: 1, threads: 1 };
  const rows: TableRow[] = [];
  const results: Record<string, WrkResult> = {};
  const record = (label: string, result: WrkResult) => {
    rows.push({ label, result });
    results[label] = result;
  };

  // Cold: no page cache, so every request plans, reads and assembles its page.
  let server = await start(0);
  const collected: Collected[] = [];
  for (const mix of mixes(seeded.assetToken)) collected.push(await collect(server.url, seeded.key, mix));
  for (const c of collected) ctx.log(`${c.mix.name}: ${c.total.toLocaleString('en')} matches, ${c.paths.length} pages, first page ${c.firstPage.length} B`);
  const allPaths = collected.flatMap((c) => c.paths);
  for (const c of collected) record(`cold 1 conn: ${c.mix.name}`, await runWrk(ctx.scope, { url: server.url, ...single, duration: latencyDuration, script: urlCycleScript(c.paths, headers) }));
  const ids = await uuids(server.url, seeded.key);
  record('cold 1 conn: single read', await runWrk(ctx.scope, { url: server.url, ...single, duration: latencyDuration, script: urlCycleScript(ids.map((u) => `/rest/v2/vulnerabilities/uuid/${u}/`), headers) }));
  const toggles = ids.flatMap((u) => [`/rest/v2/vulnerabilities/uuid/${u}/setacceptedriskstatus/`, `/rest/v2/vulnerabilities/uuid/${u}/unsetacceptedriskstatus/`]).map((path) => ({ method: 'POST', path }));
  record('1 conn: status change', await runWrk(ctx.scope, { url: server.url, ...single, duration: latencyDuration, script: requestCycleScript(toggles, headers) }));
  record('cold 50 conn: all mixes', await runWrk(ctx.scope, { url: server.url, ...load, duration: ctx.duration, script: urlCycleScript(allPaths, headers) }));
  await server.stop();

  // Warm: the page cache on (the default), the same requests.
  server = await start(64);
  // A fresh process: let it compile its hot paths and count once before anything is measured.
  await runWrk(ctx.scope, { url: server.url, ...single, duration: '2s', script: urlCycleScript(allPaths, headers) });
  for (const c of collected) record(`cached 1 conn: ${c.mix.name}`, await runWrk(ctx.scope, { url: server.url, ...single, duration: latencyDuration, script: urlCycleScript(c.paths, headers) }));
  if (ctx.warmup !== undefined) await runWrk(ctx.scope, { url: server.url, ...load, duration: ctx.warmup, script: urlCycleScript(allPaths, headers) });
  record('cached 50 conn: all mixes', await runWrk(ctx.scope, { url: server.url, ...load, duration: ctx.duration, script: urlCycleScript(allPaths, headers) }));
  await server.stop();

  const first = collected[0]!.firstPage;
  const bare = await startBareServer(ctx.scope, first, { 'content-type': 'application/json; charset=utf-8' });
  record('bare node:http, 50 conn', await runWrk(ctx.scope, { url: bare.url, ...load, duration: ctx.duration, script: urlCycleScript(allPaths, headers) }));
  await bare.close();

  printTable(`vulnerabilities on ${store}: ${count.toLocaleString('en')} rows, pages of 100 (${first.length} B first page)`, rows);
  const bareRps = results['bare node:http, 50 conn']!.requestsPerSecond;
  for (const label of ['cold 50 conn: all mixes', 'cached 50 conn: all mixes']) {
    console.log(`${label} / bare: ${(results[label]!.requestsPerSecond / bareRps).toFixed(3)}`);
  }
  const p99 = Object.entries(results).filter(([l]) => l.startsWith('cold 1 conn') || l.startsWith('cached 1 conn')).map(([l, r]) => `${l} ${ms(r.latencyUs.p99).toFixed(1)} ms`);
  console.log(`p99 per query: ${p99.join('; ')}`);
  writeResult(ctx.outDir, `vulnerabilities-${store}`, {
    parameters: { store, count, pagesPerMix, latencyDuration, duration: ctx.duration, mixes: collected.map((c) => ({ name: c.mix.name, total: c.total, firstPageBytes: c.firstPage.length })) },
    results,
  });
}

/** One team with a million vulnerabilities: list, single read and status change, on one store. */
export function vulnerabilityBenchmark(store: 'sqlite' | 'postgres'): Benchmark {
  return {
    name: `vulnerabilities-${store}`,
    description: `vulnerability list at ${count.toLocaleString('en')} rows on ${store}: p50/p99 per query, throughput at 50 connections vs a bare node:http server`,
    run: (ctx) => runStore(ctx, store),
  };
}
