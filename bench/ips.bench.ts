import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { defaultConfig } from '../src/config/config.ts';
import { newToken, newUuid } from '../src/core/shared/ids.ts';
import { createApiKey } from '../src/core/teams/api-key.service.ts';
import { createTeam } from '../src/core/teams/team.service.ts';
import { openRuntime, type Runtime } from '../src/runtime.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { printTable, writeResult, type TableRow } from './support/report.ts';
import { insertInBatches } from './support/seed.ts';
import { startPerimeter } from './support/server.ts';
import { benchDatabaseUrl, recreateBenchDatabase } from './support/vulnerability-store.ts';
import { runWrk, urlCycleScript, type WrkResult } from './support/wrk.ts';

const count = Number(process.env['BENCH_IPS'] ?? 1_000_000);
const otherTeamCount = Math.round(count / 20);
const assetsPerTeam = 200;
const pagesPerMix = 10;
const latencyDuration = process.env['BENCH_LATENCY_DURATION'] ?? '5s';
const day = 86_400_000;
/** The seed's clock: two years of monitoring ending here (fixed, so cached stores stay comparable). */
const seedEnd = Date.UTC(2026, 10, 1);
const seedSpan = 730 * day;

interface SeededIps {
  dataDir: string;
  env: Record<string, string>;
  key: string;
}

/** One row of the seed: addresses first seen in index order over two years, a quarter gone since. */
function ipRow(teamId: number, assetIds: number[], i: number, offset: number) {
  const n = i + offset;
  const firstSeen = seedEnd - seedSpan + Math.floor((i / count) * seedSpan) + (n % 3600) * 1000;
  const hash = (n * 2654435761) % 4294967296;
  const isGone = hash % 4 === 0;
  const disappeared = isGone ? firstSeen + Math.floor(((hash >>> 8) / 16777216) * (seedEnd - firstSeen)) : null;
  const countries = [['US', 'United States', 'NA', 'North America'], ['DE', 'Germany', 'EU', 'Europe'], ['JP', 'Japan', 'AS', 'Asia']] as const;
  const c = countries[hash % 3]!;
  return {
    team_id: teamId,
    asset_id: assetIds[n % assetIds.length]!,
    ip_address: `${11 + ((n >>> 24) & 127)}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`,
    ip_version: 'IPv4' as const,
    domain_name: `h${n}.bench${n % assetIds.length}.example`,
    active: isGone ? 0 : 1,
    first_seen_at: firstSeen,
    last_seen_at: disappeared ?? seedEnd,
    disappeared_at: disappeared,
    enriched: 1,
    as_number: 64_500 + (hash % 400),
    as_name: `Bench Network ${hash % 400}`,
    as_domain: null,
    continent: c[2],
    continent_name: c[3],
    country: c[0],
    country_name: c[1],
  };
}

async function seedTeamIps(runtime: Runtime, name: string, rows: number, offset: number, log: (m: string) => void): Promise<string> {
  const team = await createTeam(runtime.store, name, 'enterprise');
  const { key } = await createApiKey(runtime.store, runtime.box, { teamName: name, kind: 'v3', signing: false, permissions: [] });
  const assetIds: number[] = [];
  const at = new Date(seedEnd - seedSpan);
  for (let a = 0; a < assetsPerTeam; a++) {
    const asset = await runtime.store.assets.insert({
      teamId: team.id, token: newToken(), uuid: newUuid(), name: `bench${a}-${name}.example`, kind: 'domain', port: null, isRoot: true, rootId: null,
      status: 'verified', addedBy: ['manual'], monitored: true, settings: null, created: at, updated: at, discovered: at, lastSeen: at, verifiedAt: at, checkedAt: at,
    });
    assetIds.push(asset.id);
  }
  const started = performance.now();
  await insertInBatches(runtime, { count: rows, batchSize: 1000, batchesPerTransaction: 20 }, (i) => ipRow(team.id, assetIds, i, offset), (db, batch) => db.insertInto('ip_addresses').values(batch).execute());
  log(`seeded ${rows.toLocaleString('en')} addresses for team ${name} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return key;
}

/** A store with `count` addresses in one team and a twentieth of that in another, cached under .bench/cache. */
async function seededIps(store: 'sqlite' | 'postgres', log: (m: string) => void): Promise<SeededIps> {
  // What shapes the seed: the row maker (this file) and the table's migration; a change re-seeds.
  const fingerprint = createHash('sha1').update(String(count)).update(ipRow.toString()).update(seedTeamIps.toString()).update(readFileSync(join(import.meta.dirname, '../src/storage/migrations/010-ip-inventory.ts'))).digest('hex').slice(0, 10);
  const dataDir = join(import.meta.dirname, '..', '.bench', 'cache', `ips-${store}-${count}-${fingerprint}`);
  const metaPath = join(dataDir, 'meta.json');
  const databaseName = `perimeter_bench_ips_${fingerprint}`;
  const databaseUrl = benchDatabaseUrl(store, databaseName);
  const env = (secretKey: string) => ({ PERIMETER_SECRET_KEY: secretKey, ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) });
  if (existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { key: string; secretKey: string };
    log(`reusing the seeded ${store} store in ${dataDir}`);
    return { dataDir, key: meta.key, env: env(meta.secretKey) };
  }
  mkdirSync(dataDir, { recursive: true });
  if (databaseUrl !== undefined) await recreateBenchDatabase(databaseName);
  const secretKey = randomBytes(32).toString('base64');
  const runtime = await openRuntime({ ...defaultConfig, dataDir, databaseUrl, secretKey, logLevel: 'warn' }, { log: pino({ level: 'warn' }) });
  try {
    const key = await seedTeamIps(runtime, 'bench', count, 0, log);
    await seedTeamIps(runtime, 'neighbour', otherTeamCount, count, log);
    // What autovacuum would do in a running deployment: statistics and a visibility map (index-only scans).
    await sql`${sql.raw(store === 'postgres' ? 'vacuum analyze' : 'analyze')}`.execute(runtime.database.db);
    writeFileSync(metaPath, JSON.stringify({ key, secretKey }));
    return { dataDir, key, env: env(secretKey) };
  } finally {
    await runtime.close();
  }
}

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** The filtered pages measured: a recent window, a wide window, a disappeared bound, and both kinds at once. */
const mixes = [
  { name: 'first_seen_after 30 days', query: `first_seen_after=${iso(seedEnd - 30 * day)}&limit=100` },
  { name: 'first_seen_after 1 year', query: `first_seen_after=${iso(seedEnd - 365 * day)}&limit=100` },
  { name: 'disappeared_after 60 days', query: `disappeared_after=${iso(seedEnd - 60 * day)}&limit=100` },
  { name: 'first_seen_before + disappeared_before', query: `first_seen_before=${iso(seedEnd - 365 * day)}&disappeared_before=${iso(seedEnd - 300 * day)}&limit=100` },
  { name: 'no filter', query: 'limit=100' },
];

/** Follows `next` from the first page of a mix for a few pages; the paths of those pages. */
async function collect(url: string, key: string, query: string): Promise<string[]> {
  const paths: string[] = [];
  let path: string | undefined = `/rest/v3/ips?${query}`;
  while (path !== undefined && paths.length < pagesPerMix) {
    const res = await fetch(url + path, { headers: { authorization: key } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
    const page = JSON.parse(text) as { items: unknown[]; pagination: { next?: string } };
    if (page.items.length === 0) throw new Error(`${path}: an empty page (the seed does not fit the mix)`);
    paths.push(path);
    path = page.pagination.next === undefined ? undefined : new URL(page.pagination.next).pathname + new URL(page.pagination.next).search;
  }
  return paths;
}

async function runStore(ctx: BenchContext, store: 'sqlite' | 'postgres'): Promise<void> {
  const seeded = await seededIps(store, ctx.log);
  const headers = { Authorization: seeded.key };
  const rows: TableRow[] = [];
  const results: Record<string, WrkResult> = {};
  const measure = async (url: string, label: string, paths: string[], connections: number) => {
    const result = await runWrk(ctx.scope, { url, connections, threads: connections === 1 ? 1 : 2, duration: connections === 1 ? latencyDuration : ctx.duration, script: urlCycleScript(paths, headers) });
    rows.push({ label, result });
    results[label] = result;
  };
  const collected: Array<{ mix: (typeof mixes)[number]; paths: string[] }> = [];
  // Cold: no page cache, every request reads its page from the store; then the page cache on (the default).
  for (const cacheMb of [0, 64]) {
    const phase = cacheMb === 0 ? 'cold' : 'cached';
    const server = await startPerimeter(ctx.scope, { dataDir: seeded.dataDir, env: { ...seeded.env, PERIMETER_ROLES: 'api', PERIMETER_DNS_RESOLVERS: '127.0.0.1:1', PERIMETER_PAGE_CACHE_MB: String(cacheMb) } });
    try {
      if (collected.length === 0) for (const mix of mixes) collected.push({ mix, paths: await collect(server.url, seeded.key, mix.query) });
      const allPaths = collected.flatMap((c) => c.paths);
      // A fresh process: let it compile its hot paths (and fill its cache) before anything is measured.
      await runWrk(ctx.scope, { url: server.url, connections: 1, threads: 1, duration: '2s', script: urlCycleScript(allPaths, headers) });
      if (ctx.warmup !== undefined) await runWrk(ctx.scope, { url: server.url, connections: 50, threads: 2, duration: ctx.warmup, script: urlCycleScript(allPaths, headers) });
      for (const { mix, paths } of collected) await measure(server.url, `${phase} 1 conn: ${mix.name}`, paths, 1);
      for (const { mix, paths } of collected) await measure(server.url, `${phase} 50 conn: ${mix.name}`, paths, 50);
    } finally {
      await server.stop();
    }
  }
  printTable(`v3 /ips on ${store}: ${count.toLocaleString('en')} addresses in one team (+${otherTeamCount.toLocaleString('en')} in another), pages of 100, ${pagesPerMix} pages per mix`, rows);
  for (const phase of ['cold 1 conn', 'cold 50 conn', 'cached 50 conn']) {
    const worst = Math.max(...Object.entries(results).filter(([label]) => label.startsWith(phase) && !label.endsWith('no filter')).map(([, r]) => r.latencyUs.p99)) / 1000;
    console.log(`worst filtered p99, ${phase}: ${worst.toFixed(1)} ms (target ≤ 25 ms: ${worst <= 25 ? 'met' : 'NOT met'})`);
  }
  writeResult(ctx.outDir, `ips-${store}`, { parameters: { store, count, otherTeamCount, pagesPerMix, duration: ctx.duration, latencyDuration, mixes }, results });
}

/** A million addresses in one team: filtered v3 /ips pages under 50 connections, on one store. */
export function ipsBenchmark(store: 'sqlite' | 'postgres'): Benchmark {
  return {
    name: `ips-${store}`,
    description: `v3 /ips at ${count.toLocaleString('en')} addresses on ${store}: p99 of filtered pages at 50 connections (target ≤ 25 ms)`,
    run: (ctx) => runStore(ctx, store),
  };
}
