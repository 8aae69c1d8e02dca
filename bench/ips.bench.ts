import type { Runtime } from '../src/runtime.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { ipDocument } from '../src/http/v3/inventory.render.ts';
import {
  createInventoryTeam,
  day,
  iso,
  measureInventoryMixes,
  seededInventory,
  seedEnd,
  seedSpan,
  type InventoryTeam,
} from './support/inventory-store.ts';
import { insertInBatches } from './support/seed.ts';

const count = Number(process.env['BENCH_IPS'] ?? 1_000_000);
const otherTeamCount = Math.round(count / 20);
const pagesPerMix = 10;
const latencyDuration = process.env['BENCH_LATENCY_DURATION'] ?? '5s';

/** One row of the seed: addresses first seen in index order over two years, a quarter gone since. */
function ipRow(team: InventoryTeam, i: number, offset: number) {
  const n = i + offset;
  const asset = n % team.assetIds.length;
  const firstSeen = seedEnd - seedSpan + Math.floor((i / count) * seedSpan) + (n % 3600) * 1000;
  const hash = (n * 2654435761) % 4294967296;
  const isGone = hash % 4 === 0;
  const disappeared = isGone ? firstSeen + Math.floor(((hash >>> 8) / 16777216) * (seedEnd - firstSeen)) : null;
  const countries = [
    ['US', 'United States', 'NA', 'North America'],
    ['DE', 'Germany', 'EU', 'Europe'],
    ['JP', 'Japan', 'AS', 'Asia'],
  ] as const;
  const c = countries[hash % 3]!;
  const ipAddress = `${11 + ((n >>> 24) & 127)}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  const domainName = `h${n}.bench${asset}.example`;
  const enrichment = {
    asNumber: 64_500 + (hash % 400),
    asName: `Bench Network ${hash % 400}`,
    asDomain: null,
    continent: c[2],
    continentName: c[3],
    country: c[0],
    countryName: c[1],
  };
  return {
    team_id: team.teamId,
    asset_id: team.assetIds[asset]!,
    ip_address: ipAddress,
    ip_version: 'IPv4' as const,
    domain_name: domainName,
    active: isGone ? 0 : 1,
    first_seen_at: firstSeen,
    last_seen_at: disappeared ?? seedEnd,
    disappeared_at: disappeared,
    enriched: 1,
    as_number: enrichment.asNumber,
    as_name: enrichment.asName,
    as_domain: null,
    continent: enrichment.continent,
    continent_name: enrichment.continentName,
    country: enrichment.country,
    country_name: enrichment.countryName,
    document: ipDocument(
      { ipAddress, ipVersion: 'IPv4', domainName, firstSeenAt: firstSeen, enrichment },
      team.tokens[asset]!,
    ),
  };
}

async function seedTeamIps(
  runtime: Runtime,
  name: string,
  rows: number,
  offset: number,
  log: (m: string) => void,
): Promise<string> {
  const team = await createInventoryTeam(runtime, name);
  const started = performance.now();
  await insertInBatches(
    runtime,
    { count: rows, batchSize: 1000, batchesPerTransaction: 20 },
    (i) => ipRow(team, i, offset),
    (db, batch) => db.insertInto('ip_addresses').values(batch).execute(),
  );
  log(
    `seeded ${rows.toLocaleString('en')} addresses for team ${name} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  return team.key;
}

/** The filtered pages measured: a recent window, a wide window, a disappeared bound, and both kinds at once. */
const mixes = [
  { name: 'first_seen_after 30 days', query: `first_seen_after=${iso(seedEnd - 30 * day)}&limit=100` },
  { name: 'first_seen_after 1 year', query: `first_seen_after=${iso(seedEnd - 365 * day)}&limit=100` },
  { name: 'disappeared_after 60 days', query: `disappeared_after=${iso(seedEnd - 60 * day)}&limit=100` },
  {
    name: 'first_seen_before + disappeared_before',
    query: `first_seen_before=${iso(seedEnd - 365 * day)}&disappeared_before=${iso(seedEnd - 300 * day)}&limit=100`,
  },
  { name: 'no filter', query: 'limit=100' },
];

async function runStore(ctx: BenchContext, store: 'sqlite' | 'postgres'): Promise<void> {
  const seeded = await seededInventory(
    {
      name: 'ips',
      store,
      count,
      sources: [ipRow.toString(), seedTeamIps.toString()],
      migrations: ['010-ip-inventory.ts', '014-inventory-documents.ts'],
      seed: async (runtime) => {
        const key = await seedTeamIps(runtime, 'bench', count, 0, ctx.log);
        await seedTeamIps(runtime, 'neighbour', otherTeamCount, count, ctx.log);
        return key;
      },
    },
    ctx.log,
  );
  await measureInventoryMixes(ctx, seeded, {
    resultName: `ips-${store}`,
    title: `v3 /ips on ${store}: ${count.toLocaleString('en')} addresses in one team (+${otherTeamCount.toLocaleString('en')} in another), pages of 100, ${pagesPerMix} pages per mix`,
    mixes: mixes.map((m) => ({ name: m.name, path: `/rest/v3/ips?${m.query}` })),
    pagesPerMix,
    latencyDuration,
    parameters: { store, count, otherTeamCount },
    floor: {
      mix: mixes[0]!.name,
      list: {
        table: 'ip_addresses',
        columns: 'r.first_seen_at, r.id, r.active, r.disappeared_at, r.document',
        order: 'first_seen_at',
        from: seedEnd - 30 * day,
        pages: pagesPerMix,
      },
    },
  });
}

/** A million addresses in one team: filtered v3 /ips pages under 50 connections, on one store. */
export function ipsBenchmark(store: 'sqlite' | 'postgres'): Benchmark {
  return {
    name: `ips-${store}`,
    description: `v3 /ips at ${count.toLocaleString('en')} addresses on ${store}: p99 of filtered pages at 50 connections (target ≤ 25 ms)`,
    run: (ctx) => runStore(ctx, store),
  };
}
