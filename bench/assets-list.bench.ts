import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { sql, type Insertable } from 'kysely';
import type { AssetsTable } from '../src/storage/schema.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { startBareServer } from './support/bare-server.ts';
import { printTable, writeResult } from './support/report.ts';
import { insertInBatches, seedTeam } from './support/seed.ts';
import { startPerimeter } from './support/server.ts';
import { BareSeries, measured } from './support/interleave.ts';
import { urlCycleScript } from './support/wrk.ts';
import { benchDatabaseUrl, recreateBenchDatabase } from './support/vulnerability-store.ts';

const assetCount = 100_000;
const pageSize = 100;
const pageCount = 100;
const load = { connections: 50, threads: 2 } as const;

/** Root asset listing (`GET /rest/v2/assets/`) of a team with 100,000 root assets, against a bare Node server. */
export const benchmark: Benchmark = assetsListBenchmark('sqlite');

/** The same on either store: `assets-list` (the embedded store) and `assets-list-postgres`. */
export function assetsListBenchmark(store: 'sqlite' | 'postgres'): Benchmark {
  const name = store === 'sqlite' ? 'assets-list' : 'assets-list-postgres';
  return {
    name,
    description: `GET /rest/v2/assets/?pageSize=${pageSize} over ${pageCount} keyset pages of a team with ${assetCount.toLocaleString('en')} root assets (${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}), against a bare node:http server answering one page`,
    run: (ctx) => run(ctx, store, name),
  };
}

function assetRow(teamId: number, index: number, start: number): Insertable<AssetsTable> {
  const at = start + index * 1000;
  return {
    team_id: teamId,
    token: randomBytes(16).toString('hex'),
    uuid: randomUUID(),
    name: `host-${String(index).padStart(6, '0')}.example-bench.com`,
    kind: 'domain',
    port: null,
    is_root: 1,
    root_id: null,
    status: 'unverified',
    added_by: '["manual"]',
    monitored: 0,
    settings: null,
    created: at,
    updated: at,
    discovered: at,
    last_seen: at,
    verified_at: null,
    checked_at: null,
  };
}

/** Seeds the store and returns the v2 key of the team. */
async function seed(ctx: BenchContext, dataDir: string, databaseUrl: string | undefined): Promise<string> {
  const startedAt = performance.now();
  const { runtime, teamId, v2Key } = await seedTeam(dataDir, 'bench', databaseUrl);
  try {
    const start = Date.now() - assetCount * 1000;
    await insertInBatches(
      runtime,
      { count: assetCount, batchSize: 1000, batchesPerTransaction: 10 },
      (i) => assetRow(teamId, i, start),
      (db, rows) => db.insertInto('assets').values(rows).execute(),
    );
    // What autovacuum would have done in a running deployment by then: statistics (and on
    // PostgreSQL a visibility map for index-only scans).
    await sql`${sql.raw(databaseUrl === undefined ? 'analyze' : 'vacuum analyze')}`.execute(runtime.database.db);
  } finally {
    await runtime.close();
  }
  ctx.log(
    `seeded ${assetCount.toLocaleString('en')} root assets in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
  );
  return v2Key;
}

interface Page {
  path: string;
  body: Buffer;
  contentType: string;
}

/** Walks the listing from the start, following next_marker, and returns the path of each page. */
async function collectPages(baseUrl: string, key: string): Promise<Page[]> {
  const pages: Page[] = [];
  let marker: string | undefined;
  while (pages.length < pageCount) {
    const path = `/rest/v2/assets/?pageSize=${pageSize}${marker === undefined ? '' : `&marker=${encodeURIComponent(marker)}`}`;
    const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-service-key': key } });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200)
      throw new Error(`GET ${path} answered ${response.status}: ${body.toString('utf8').slice(0, 500)}`);
    const page = JSON.parse(body.toString('utf8')) as { assets?: unknown[]; has_more?: boolean; next_marker?: string };
    if (page.assets?.length !== pageSize)
      throw new Error(`GET ${path} listed ${page.assets?.length ?? 0} assets, expected ${pageSize}`);
    pages.push({ path, body, contentType: response.headers.get('content-type') ?? 'application/json' });
    if (page.has_more !== true || page.next_marker === undefined) break;
    marker = page.next_marker;
  }
  if (pages.length < pageCount)
    throw new Error(`the listing had ${pages.length} pages of ${pageSize}, expected ${pageCount}`);
  return pages;
}

async function run(ctx: BenchContext, store: 'sqlite' | 'postgres', name: string): Promise<void> {
  const dataDir = ctx.scope.tempDir('perimeter-bench-assets-');
  // PostgreSQL: a database of its own beside BENCH_DATABASE_URL's, made afresh for each run.
  const databaseName = 'perimeter_bench_assets_list';
  const databaseUrl = benchDatabaseUrl(store, databaseName);
  if (databaseUrl !== undefined) await recreateBenchDatabase(databaseName);
  const key = await seed(ctx, dataDir, databaseUrl);
  const cpuProfileDir = process.env['BENCH_CPU_PROF'] === '1' ? join(ctx.outDir, 'profiles', name) : undefined;
  // API role only, and a resolver on the loopback: nothing here may reach outside the machine.
  const server = await startPerimeter(ctx.scope, {
    dataDir,
    cpuProfileDir,
    env: {
      PERIMETER_ROLES: 'api',
      PERIMETER_DNS_RESOLVERS: '127.0.0.1:1',
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    },
  });
  ctx.log(`perimeter ready at ${server.url} (pid ${server.pid})`);

  const pages = await collectPages(server.url, key);
  const first = pages[0]!;
  ctx.log(`collected ${pages.length} page URLs; one page is ${first.body.length} bytes`);
  const script = urlCycleScript(
    pages.map((p) => p.path),
    { 'X-Service-Key': key },
  );
  // The bare server runs between ours: bare, perimeter, bare; the ratio is against the mean of both bare runs.
  const bare = await startBareServer(ctx.scope, first.body, { 'content-type': first.contentType });
  const bareSeries = new BareSeries(ctx, { url: bare.url, ...load, script });
  const bareBefore = await bareSeries.measure();
  const perimeter = await measured(ctx, 'perimeter', { url: server.url, ...load, script });
  const bareAfter = await bareSeries.measure();
  await bare.close();
  await server.stop();
  if (cpuProfileDir !== undefined) ctx.log(`CPU profile of the server written under ${cpuProfileDir}`);
  const baseline = bareSeries.ratio(perimeter);

  const ratio = baseline.ratio;
  printTable(
    `${name}: ${pageCount} pages of ${pageSize} from ${assetCount.toLocaleString('en')} root assets, ${first.body.length} B per page, ${ctx.duration}`,
    [
      { label: 'bare node:http (before)', result: bareBefore },
      { label: 'perimeter', result: perimeter },
      { label: 'bare node:http (after)', result: bareAfter },
    ],
  );
  console.log(`throughput perimeter/bare: ${ratio.toFixed(3)} (${(ratio * 100).toFixed(1)} %)`);
  const path = writeResult(ctx.outDir, name, {
    parameters: {
      store,
      assets: assetCount,
      pageSize,
      pages: pageCount,
      pageBytes: first.body.length,
      ...load,
      duration: ctx.duration,
      warmup: ctx.warmup ?? null,
    },
    results: { perimeter, bareBefore, bareAfter },
    throughputRatio: ratio,
  });
  ctx.log(`results written to ${path}`);
}
