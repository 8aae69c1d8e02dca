import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { freePort } from './support/server.ts';
import { median, printRows, requireTool, startAuthoritative, timeCommand, writeDnsResult } from './dns-support.ts';
import { storeUpsertFloor } from './dns-store-floor.ts';
import { writeLookupZone } from './dns-zones.ts';

const origin = 'lookup-bench.test';
const nameCount = Number(process.env['BENCH_DNS_NAMES'] ?? 200_000);
const runs = 5;

const child = fileURLToPath(new URL('./dns-axfr-child.ts', import.meta.url));

/** Our transfers in a fresh child process: `runs` of them, plain or with the indexing callback. */
function runChild(
  port: number,
  mode: 'plain' | 'index',
): { records: number; runs: number[]; peakRssMb: number; summary: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', child, String(port), origin, mode, String(runs)], {
    encoding: 'utf8',
    env: process.env,
  });
  if (result.status !== 0) throw new Error(`transfer child (${mode}) failed:\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as {
    records: number;
    runs: number[];
    peakRssMb: number;
    summary: string;
  };
}

async function run(ctx: BenchContext): Promise<void> {
  const dig = requireTool('dig', 'bind9-dnsutils');
  const dir = ctx.scope.tempDir('perimeter-bench-axfr-');
  const zonePath = join(dir, 'zone');
  const { zoneRecords } = await writeLookupZone(zonePath, join(dir, 'names.txt'), origin, nameCount);
  const port = await freePort();
  const server = await startAuthoritative(ctx.scope, origin, readFileSync(zonePath, 'latin1'), port);
  ctx.log(`${server.kind} serves ${origin} (${zoneRecords.toLocaleString('en')} records) on ${server.address}`);

  // dig prints every record (to /dev/null here): its formatting is its share of the work, as
  // producing ZoneRecords (and indexing them) is ours.
  const digRuns = Array.from({ length: runs }, () =>
    timeCommand(dig, ['@127.0.0.1', '-p', String(port), origin, 'AXFR'], { discardStdout: true }),
  );
  const failed = digRuns.find((r) => r.status !== 0);
  if (failed !== undefined) throw new Error(`dig AXFR failed:\n${failed.output}`);
  const plain = runChild(port, 'plain');
  const indexed = runChild(port, 'index');
  const records = indexed.records;
  if (records !== zoneRecords || plain.records !== zoneRecords)
    throw new Error(`transferred ${records} records, the zone has ${zoneRecords}`);
  const digMs = median(digRuns.map((r) => r.ms));
  const ratio = (ms: number) => `${(ms / digMs).toFixed(2)}×`;
  const plainMs = median(plain.runs);
  const indexedMs = median(indexed.runs);
  // The store's upsert alone for as many names as were indexed: what no indexing can go below.
  const indexedNames = Number(/([\d,]+) names indexed/.exec(indexed.summary)?.[1]?.replaceAll(',', '') ?? 0);
  const floorMs =
    indexedNames > 0
      ? median([
          await storeUpsertFloor(indexedNames),
          await storeUpsertFloor(indexedNames),
          await storeUpsertFloor(indexedNames),
        ])
      : undefined;
  printRows(
    `dns-axfr: ${records.toLocaleString('en')} records from ${server.kind} (medians of ${runs} runs; ours in a fresh process, its first run cold)`,
    ['client', 'ms', 'vs dig', 'records/s'],
    [
      ['dig AXFR (output to /dev/null)', digMs.toFixed(0), '1.00×', ((records / digMs) * 1000).toFixed(0)],
      ['perimeter transfer', plainMs.toFixed(0), ratio(plainMs), ((records / plainMs) * 1000).toFixed(0)],
      ['perimeter transfer + index', indexedMs.toFixed(0), ratio(indexedMs), ((records / indexedMs) * 1000).toFixed(0)],
      ...(floorMs === undefined
        ? []
        : [
            [
              `store upsert alone, ${indexedNames.toLocaleString('en')} names (floor)`,
              floorMs.toFixed(0),
              ratio(floorMs),
              '',
            ],
          ]),
    ],
  );
  console.log(
    `target: transfer + index ≤ 2× dig ${indexedMs <= 2 * digMs ? 'met' : 'MISSED'}; cold (first) runs: transfer ${(plain.runs[0] ?? 0).toFixed(0)} ms, transfer + index ${(indexed.runs[0] ?? 0).toFixed(0)} ms; index step: ${indexed.summary}`,
  );
  const path = writeDnsResult(ctx.outDir, 'axfr', {
    server: server.kind,
    records,
    digMs: digRuns.map((r) => r.ms),
    transferMs: plain.runs,
    transferAndIndexMs: indexed.runs,
    ratio: indexedMs / digMs,
    upsertFloorMs: floorMs,
    indexed: indexed.summary,
    peakRssMb: indexed.peakRssMb,
  });
  ctx.log(`results in ${path}`);
}

/** (c) AXFR of the 200,000-name zone, including the indexing step, next to dig. */
export const benchmark: Benchmark = {
  name: 'dns-axfr',
  description: `AXFR of a ${nameCount.toLocaleString('en')}-name zone from a local NSD (or BIND) with the indexing step, next to dig AXFR`,
  run,
};
