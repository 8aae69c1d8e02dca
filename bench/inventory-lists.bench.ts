import type { Runtime } from '../src/runtime.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { portDocument, technologyDocument } from '../src/http/v3/inventory.render.ts';
import {
  createInventoryTeam,
  day,
  iso,
  measureInventoryMixes,
  seededInventory,
  seedEnd,
  seedSpan,
  type InventoryTeam,
  type PageMix,
} from './support/inventory-store.ts';
import { insertInBatches } from './support/seed.ts';

const count = Number(process.env['BENCH_INVENTORY_ROWS'] ?? 1_000_000);
const otherTeamCount = Math.round(count / 20);
const pagesPerMix = 10;
const latencyDuration = process.env['BENCH_LATENCY_DURATION'] ?? '5s';

/** Port numbers of the seed with their share of rows (60 % in all); the other 40 % spread over 1024–65535 (about 6 rows each a million). */
const commonPorts: ReadonlyArray<readonly [port: number, percent: number]> = [
  [443, 20],
  [80, 15],
  [22, 8],
  [8080, 5],
  [8443, 4],
  [25, 2],
  [3306, 1],
  [5432, 1],
  [21, 1],
  [3389, 1],
  [6379, 1],
  [9200, 1],
];

/** Spread of a row: first seen in index order over two years, a quarter gone (CLOSED / inactive) at a random later time. */
function lifeOf(i: number, n: number) {
  const firstSeen = seedEnd - seedSpan + Math.floor((i / count) * seedSpan) + (n % 3600) * 1000;
  const hash = (n * 2654435761) % 4294967296;
  const isGone = hash % 4 === 0;
  const disappeared = isGone ? firstSeen + Math.floor(((hash >>> 8) / 16777216) * (seedEnd - firstSeen)) : null;
  return { hash, firstSeen, disappeared };
}

function portRow(team: InventoryTeam, i: number, offset: number) {
  const n = i + offset;
  const asset = n % team.assetIds.length;
  const { firstSeen, disappeared } = lifeOf(i, n);
  const pick = ((n * 40503 + 977) % 65521) % 100;
  let port = 1024 + ((n * 7919) % 64512);
  let sum = 0;
  for (const [p, percent] of commonPorts) {
    sum += percent;
    if (pick < sum) {
      port = p;
      break;
    }
  }
  const ipAddress = `${11 + ((n >>> 24) & 127)}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  const domainName = `h${n}.bench${asset}.example`;
  return {
    team_id: team.teamId,
    asset_id: team.assetIds[asset]!,
    ip_address: ipAddress,
    port,
    domain_name: domainName,
    status: disappeared === null ? ('OPEN' as const) : ('CLOSED' as const),
    service: port === 22 ? 'ssh' : 'http',
    is_tls: port === 443 || port === 8443 ? 1 : 0,
    is_http: port === 22 ? 0 : 1,
    banner: null,
    product: null,
    version: null,
    first_seen_at: firstSeen,
    last_seen_at: disappeared ?? seedEnd,
    disappeared_at: disappeared,
    document: portDocument({ ipAddress, port, domainName, firstSeenAt: firstSeen }, team.tokens[asset]!),
  };
}

const technologyNames: ReadonlyArray<readonly [name: string, category: string]> = [
  ['Nginx', 'Web servers'],
  ['Apache HTTP Server', 'Web servers'],
  ['WordPress', 'CMS'],
  ['PHP', 'Programming languages'],
  ['jQuery', 'JavaScript libraries'],
  ['React', 'JavaScript frameworks'],
  ['Cloudflare', 'CDN'],
  ['Bootstrap', 'UI frameworks'],
  ['Google Analytics', 'Analytics'],
  ['Varnish', 'Caching'],
];

function technologyRow(team: InventoryTeam, i: number, offset: number) {
  const n = i + offset;
  const asset = n % team.assetIds.length;
  const { hash, firstSeen, disappeared } = lifeOf(i, n);
  const [name, category] = technologyNames[(hash >>> 4) % technologyNames.length]!;
  const isHttps = n % 3 !== 0;
  const fields = {
    domainName: `h${n}.bench${asset}.example`,
    port: isHttps ? 443 : 80,
    name,
    version: hash % 5 === 0 ? null : `${hash % 7}.${hash % 13}.${hash % 29}`,
    serviceProtocol: isHttps ? 'https' : 'http',
    categories: [category],
    firstSeenAt: firstSeen,
  };
  return {
    team_id: team.teamId,
    asset_id: team.assetIds[asset]!,
    domain_name: fields.domainName,
    port: fields.port,
    name,
    version: fields.version,
    service_protocol: fields.serviceProtocol,
    categories: JSON.stringify(fields.categories),
    active: disappeared === null ? 1 : 0,
    first_seen_at: firstSeen,
    last_seen_at: disappeared ?? seedEnd,
    disappeared_at: disappeared,
    document: technologyDocument(fields, team.tokens[asset]!),
  };
}

async function seedTeam(
  runtime: Runtime,
  name: string,
  rows: number,
  offset: number,
  log: (m: string) => void,
): Promise<string> {
  const team = await createInventoryTeam(runtime, name);
  const batches = { count: rows, batchSize: 1000, batchesPerTransaction: 20 };
  let started = performance.now();
  await insertInBatches(
    runtime,
    batches,
    (i) => portRow(team, i, offset),
    (db, batch) => db.insertInto('ports').values(batch).execute(),
  );
  log(
    `seeded ${rows.toLocaleString('en')} ports for team ${name} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  started = performance.now();
  await insertInBatches(
    runtime,
    batches,
    (i) => technologyRow(team, i, offset),
    (db, batch) => db.insertInto('technologies').values(batch).execute(),
  );
  log(
    `seeded ${rows.toLocaleString('en')} technologies for team ${name} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  return team.key;
}

const recent = `first_seen_after=${iso(seedEnd - 30 * day)}`;
const yearAgo = iso(seedEnd - 365 * day);

/** /ports pages: time windows, dense and sparse status and port filters, and combinations (cursor pages follow `next`). */
const portMixes: PageMix[] = [
  { name: 'ports first_seen_after 30 days', path: `/rest/v3/ports?${recent}&limit=100` },
  { name: 'ports status=CLOSED', path: '/rest/v3/ports?status=CLOSED&limit=100' },
  { name: 'ports status=OPEN port=22', path: '/rest/v3/ports?status=OPEN&port=22&limit=100' },
  { name: 'ports port=3306,5432 (2 %)', path: '/rest/v3/ports?port=3306,5432&limit=100' },
  {
    name: 'ports port=6379 first_seen_after 1 year',
    path: `/rest/v3/ports?port=6379&first_seen_after=${yearAgo}&limit=100`,
  },
  { name: 'ports 3 rare ports (a few rows)', path: '/rest/v3/ports?port=31337&port=40000,50000&limit=100' },
  {
    name: 'ports disappeared_after 60 days port=443,8443',
    path: `/rest/v3/ports?disappeared_after=${iso(seedEnd - 60 * day)}&port=443,8443&limit=100`,
  },
  {
    name: 'ports status=CLOSED first_seen_before 1 year',
    path: `/rest/v3/ports?status=CLOSED&first_seen_before=${yearAgo}&limit=100`,
  },
  {
    name: 'ports status=OPEN port=80,443 first_seen_after 1 year',
    path: `/rest/v3/ports?status=OPEN&port=80,443&first_seen_after=${yearAgo}&limit=100`,
  },
];

/** /technologies pages: the four time filters. */
const technologyMixes: PageMix[] = [
  { name: 'technologies first_seen_after 30 days', path: `/rest/v3/technologies?${recent}&limit=100` },
  { name: 'technologies first_seen_after 1 year', path: `/rest/v3/technologies?first_seen_after=${yearAgo}&limit=100` },
  {
    name: 'technologies disappeared_after 60 days',
    path: `/rest/v3/technologies?disappeared_after=${iso(seedEnd - 60 * day)}&limit=100`,
  },
  {
    name: 'technologies first_seen_before + disappeared_before',
    path: `/rest/v3/technologies?first_seen_before=${yearAgo}&disappeared_before=${iso(seedEnd - 300 * day)}&limit=100`,
  },
];

async function runStore(ctx: BenchContext, store: 'sqlite' | 'postgres'): Promise<void> {
  const seeded = await seededInventory(
    {
      name: 'inventory-lists',
      store,
      count,
      sources: [
        lifeOf.toString(),
        portRow.toString(),
        technologyRow.toString(),
        seedTeam.toString(),
        JSON.stringify([commonPorts, technologyNames]),
      ],
      migrations: ['013-port-technology-inventory.ts', '014-inventory-documents.ts'],
      seed: async (runtime) => {
        const key = await seedTeam(runtime, 'bench', count, 0, ctx.log);
        await seedTeam(runtime, 'neighbour', otherTeamCount, count, ctx.log);
        return key;
      },
    },
    ctx.log,
  );
  await measureInventoryMixes(ctx, seeded, {
    resultName: `inventory-lists-${store}`,
    title: `v3 /ports and /technologies on ${store}: ${count.toLocaleString('en')} of each in one team (+${otherTeamCount.toLocaleString('en')} in another), pages of 100, up to ${pagesPerMix} pages per mix`,
    mixes: [...portMixes, ...technologyMixes],
    pagesPerMix,
    latencyDuration,
    parameters: { store, count, otherTeamCount },
    floor: {
      mix: technologyMixes[0]!.name,
      list: {
        table: 'technologies',
        columns: 'r.first_seen_at, r.id, r.active, r.disappeared_at, r.document',
        order: 'first_seen_at',
        from: seedEnd - 30 * day,
        pages: pagesPerMix,
      },
    },
  });
}

/** A million ports and a million technologies in one team: filtered v3 pages under 50 connections, on one store. */
export function inventoryListsBenchmark(store: 'sqlite' | 'postgres'): Benchmark {
  return {
    name: `inventory-lists-${store}`,
    description: `v3 /ports and /technologies at ${count.toLocaleString('en')} rows each on ${store}: p99 of filtered pages at 50 connections (target ≤ 25 ms)`,
    run: (ctx) => runStore(ctx, store),
  };
}
