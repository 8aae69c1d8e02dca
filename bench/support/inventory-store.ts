import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { defaultConfig } from '../../src/config/config.ts';
import { newToken, newUuid } from '../../src/core/shared/ids.ts';
import type { DocumentTokens } from '../../src/core/surface/inventory-renderer.ts';
import { createApiKey } from '../../src/core/teams/api-key.service.ts';
import { createTeam } from '../../src/core/teams/team.service.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import type { BenchContext } from './benchmark.ts';
import { printTable, writeResult, type TableRow } from './report.ts';
import { floorName, floorStoreOf, keysetPages, startFloor, type KeysetList } from './floor.ts';
import { startPerimeter } from './server.ts';
import { benchDatabaseUrl, recreateBenchDatabase } from './vulnerability-store.ts';
import { runWrk, urlCycleScript, type WrkResult } from './wrk.ts';

/**
 * What the v3 inventory list benchmarks (ips-*, inventory-lists-*) share: a seeded store cached
 * under .bench/cache, teams of root assets with a v3 key, and the wrk measurement of filtered
 * pages (cold: page cache off, every request reads the store; cached: the default).
 */

export const day = 86_400_000;
/** The seed's clock: two years of monitoring ending here (fixed, so cached stores stay comparable). */
export const seedEnd = Date.UTC(2026, 10, 1);
export const seedSpan = 730 * day;
/** Root assets of each seeded team. */
export const assetsPerTeam = 200;

/** A wire time of whole seconds. */
export const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** A seeded store: where it lives, the environment a server needs to open it, and the main team's v3 key. */
export interface SeededInventory {
  dataDir: string;
  env: Record<string, string>;
  key: string;
}

/** What decides a seeded store: a change of any part (row makers, migrations) seeds again. */
export interface SeedSpec {
  /** Names the cache folder and database (`ips`, `inventory-lists`). */
  name: string;
  store: 'sqlite' | 'postgres';
  count: number;
  /** Texts hashed into the fingerprint: row makers' sources, paths of migration files under src/storage/migrations. */
  sources: string[];
  migrations: string[];
  /** Seeds the opened store; answers the main team's v3 key. */
  seed(runtime: Runtime): Promise<string>;
}

/** A store seeded by `spec.seed`, cached under .bench/cache (PostgreSQL: a database of its own), statistics taken. */
export async function seededInventory(spec: SeedSpec, log: (m: string) => void): Promise<SeededInventory> {
  const hash = createHash('sha1').update(String(spec.count));
  for (const source of spec.sources) hash.update(source);
  for (const file of spec.migrations)
    hash.update(readFileSync(join(import.meta.dirname, '../../src/storage/migrations', file)));
  const fingerprint = hash.digest('hex').slice(0, 10);
  const dataDir = join(
    import.meta.dirname,
    '..',
    '..',
    '.bench',
    'cache',
    `${spec.name}-${spec.store}-${spec.count}-${fingerprint}`,
  );
  const metaPath = join(dataDir, 'meta.json');
  const databaseName = `perimeter_bench_${spec.name.replace(/-/g, '_')}_${fingerprint}`;
  const databaseUrl = benchDatabaseUrl(spec.store, databaseName);
  const env = (secretKey: string) => ({
    PERIMETER_SECRET_KEY: secretKey,
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
  });
  if (existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { key: string; secretKey: string };
    log(`reusing the seeded ${spec.store} store in ${dataDir}`);
    return { dataDir, key: meta.key, env: env(meta.secretKey) };
  }
  mkdirSync(dataDir, { recursive: true });
  if (databaseUrl !== undefined) await recreateBenchDatabase(databaseName);
  const secretKey = randomBytes(32).toString('base64');
  const runtime = await openRuntime(
    { ...defaultConfig, dataDir, databaseUrl, secretKey, logLevel: 'warn' },
    { log: pino({ level: 'warn' }) },
  );
  try {
    const key = await spec.seed(runtime);
    // What autovacuum would do in a running deployment: statistics and a visibility map (index-only scans).
    await sql`${sql.raw(spec.store === 'postgres' ? 'vacuum analyze' : 'analyze')}`.execute(runtime.database.db);
    // And the seed's writes flushed now (a PostgreSQL checkpoint, a SQLite WAL checkpoint), not
    // over the first minutes of measurement.
    await sql`${sql.raw(spec.store === 'postgres' ? 'checkpoint' : 'pragma wal_checkpoint(truncate)')}`.execute(
      runtime.database.db,
    );
    writeFileSync(metaPath, JSON.stringify({ key, secretKey }));
    return { dataDir, key, env: env(secretKey) };
  } finally {
    await runtime.close();
  }
}

/** A seeded team: its id, v3 key, root assets, and the tokens the rows' stored documents name. */
export interface InventoryTeam {
  teamId: number;
  key: string;
  assetIds: number[];
  /** The document tokens of assetIds[i]. */
  tokens: DocumentTokens[];
}

/** An enterprise team with `assetsPerTeam` verified, monitored root assets and a v3 key. */
export async function createInventoryTeam(runtime: Runtime, name: string): Promise<InventoryTeam> {
  const team = await createTeam(runtime.store, name, 'enterprise');
  const { key } = await createApiKey(runtime.store, runtime.box, {
    teamName: name,
    kind: 'v3',
    signing: false,
    permissions: [],
  });
  const assetIds: number[] = [];
  const tokens: DocumentTokens[] = [];
  const at = new Date(seedEnd - seedSpan);
  for (let a = 0; a < assetsPerTeam; a++) {
    const asset = await runtime.store.assets.insert({
      teamId: team.id,
      token: newToken(),
      uuid: newUuid(),
      name: `bench${a}-${name}.example`,
      kind: 'domain',
      port: null,
      isRoot: true,
      rootId: null,
      status: 'verified',
      addedBy: ['manual'],
      monitored: true,
      settings: null,
      created: at,
      updated: at,
      discovered: at,
      lastSeen: at,
      verifiedAt: at,
      checkedAt: at,
    });
    assetIds.push(asset.id);
    tokens.push({ assetToken: asset.token, teamToken: team.token });
  }
  return { teamId: team.id, key, assetIds, tokens };
}

/** A measured page mix: the first page's path and query, followed through `next`. */
export interface PageMix {
  name: string;
  /** `/rest/v3/ips?limit=100&…` */
  path: string;
}

/** Follows `next` from the first page of a mix for at most `pages` pages; the paths of those pages. */
async function collect(url: string, key: string, first: string, pages: number): Promise<string[]> {
  const paths: string[] = [];
  let path: string | undefined = first;
  while (path !== undefined && paths.length < pages) {
    const res = await fetch(url + path, { headers: { authorization: key } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
    const page = JSON.parse(text) as { items: unknown[]; pagination: { next?: string } };
    if (page.items.length === 0) throw new Error(`${path}: an empty page (the seed does not fit the mix)`);
    paths.push(path);
    path =
      page.pagination.next === undefined
        ? undefined
        : new URL(page.pagination.next).pathname + new URL(page.pagination.next).search;
  }
  return paths;
}

/** How one store's lists are measured. */
export interface MeasureSpec {
  /** Result file name and table title. */
  resultName: string;
  title: string;
  mixes: PageMix[];
  pagesPerMix: number;
  /** wrk duration of the 1-connection runs. */
  latencyDuration: string;
  parameters: Record<string, unknown>;
  /**
   * The floor of one mix (floor.ts), the same rows read through the same index range of the
   * same store, measured at 50 connections before and after our cold 50-connection runs.
   */
  floor?: { mix: string; list: KeysetList } | undefined;
}

/**
 * Measures every mix at 1 and 50 connections, cold (page cache off, a server of its own) then
 * cached, prints the table and the worst filtered p99 per phase against the 25 ms target, and
 * writes the results. A mix named `no filter` is measured but left out of the worst p99.
 */
export async function measureInventoryMixes(
  ctx: BenchContext,
  seeded: SeededInventory,
  spec: MeasureSpec,
): Promise<Record<string, WrkResult>> {
  const headers = { Authorization: seeded.key };
  const rows: TableRow[] = [];
  const results: Record<string, WrkResult> = {};
  const measure = async (url: string, label: string, paths: string[], connections: number) => {
    const result = await runWrk(ctx.scope, {
      url,
      connections,
      threads: connections === 1 ? 1 : 2,
      duration: connections === 1 ? spec.latencyDuration : ctx.duration,
      script: urlCycleScript(paths, headers),
    });
    rows.push({ label, result });
    results[label] = result;
  };
  const collected: Array<{ mix: PageMix; paths: string[] }> = [];
  const store = floorStoreOf(seeded.dataDir, seeded.env);
  const floor =
    spec.floor === undefined ? undefined : { mix: spec.floor.mix, pages: await keysetPages(store, spec.floor.list) };
  const measureFloor = async (when: string) => {
    if (floor === undefined) return;
    const server = await startFloor(ctx.scope, { store, pages: floor.pages, limit: 100 });
    try {
      await runWrk(ctx.scope, {
        url: server.url,
        connections: 50,
        threads: 2,
        duration: '2s',
        script: urlCycleScript(server.paths, headers),
      });
      await measure(server.url, `floor 50 conn (${when}): ${floor.mix}`, server.paths, 50);
    } finally {
      await server.close();
    }
  };
  for (const cacheMb of [0, 64]) {
    const phase = cacheMb === 0 ? 'cold' : 'cached';
    const server = await startPerimeter(ctx.scope, {
      dataDir: seeded.dataDir,
      env: {
        ...seeded.env,
        PERIMETER_ROLES: 'api',
        PERIMETER_DNS_RESOLVERS: '127.0.0.1:1',
        PERIMETER_PAGE_CACHE_MB: String(cacheMb),
      },
    });
    try {
      if (collected.length === 0)
        for (const mix of spec.mixes)
          collected.push({ mix, paths: await collect(server.url, seeded.key, mix.path, spec.pagesPerMix) });
      const allPaths = collected.flatMap((c) => c.paths);
      // A fresh process: let it compile its hot paths (and fill its cache) before anything is measured.
      await runWrk(ctx.scope, {
        url: server.url,
        connections: 1,
        threads: 1,
        duration: '2s',
        script: urlCycleScript(allPaths, headers),
      });
      if (ctx.warmup !== undefined)
        await runWrk(ctx.scope, {
          url: server.url,
          connections: 50,
          threads: 2,
          duration: ctx.warmup,
          script: urlCycleScript(allPaths, headers),
        });
      for (const { mix, paths } of collected) await measure(server.url, `${phase} 1 conn: ${mix.name}`, paths, 1);
      if (phase === 'cold') await measureFloor('before');
      for (const { mix, paths } of collected) await measure(server.url, `${phase} 50 conn: ${mix.name}`, paths, 50);
      if (phase === 'cold') await measureFloor('after');
    } finally {
      await server.stop();
    }
  }
  printTable(spec.title, rows);
  for (const phase of ['cold 1 conn', 'cold 50 conn', 'cached 50 conn']) {
    const worst =
      Math.max(
        ...Object.entries(results)
          .filter(([label]) => label.startsWith(phase) && !label.endsWith('no filter'))
          .map(([, r]) => r.latencyUs.p99),
      ) / 1000;
    console.log(
      `worst filtered p99, ${phase}: ${worst.toFixed(1)} ms (target ≤ 25 ms: ${worst <= 25 ? 'met' : 'NOT met'})`,
    );
  }
  if (floor !== undefined) {
    const ours = results[`cold 50 conn: ${floor.mix}`]!;
    const floors = Object.entries(results)
      .filter(([label]) => label.startsWith('floor 50 conn'))
      .map(([, r]) => r);
    const best = Math.min(...floors.map((r) => r.latencyUs.p99)) / 1000;
    console.log(
      `${floorName(store)}, same index range, documents joined, ${floor.mix}: p99 ${floors.map((r) => (r.latencyUs.p99 / 1000).toFixed(1)).join(' / ')} ms at ${floors.map((r) => r.requestsPerSecond.toFixed(0)).join(' / ')} req/s; ours cold p99 ${(ours.latencyUs.p99 / 1000).toFixed(1)} ms at ${ours.requestsPerSecond.toFixed(0)} req/s; the floor ${best <= 25 ? 'meets' : 'misses'} 25 ms`,
    );
  }
  writeResult(ctx.outDir, spec.resultName, {
    parameters: {
      ...spec.parameters,
      pagesPerMix: spec.pagesPerMix,
      duration: ctx.duration,
      latencyDuration: spec.latencyDuration,
      mixes: spec.mixes,
    },
    results,
  });
  return results;
}
