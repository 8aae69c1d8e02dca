import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBulkResolver, type BulkStats } from '../src/engine/dns/bulk-resolver.ts';
import type { ZoneRecord } from '../src/engine/dns/zone-record.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { freePort } from './support/server.ts';
import {
  canUsePort53,
  findProgram,
  loadIndexer,
  printRows,
  requireTool,
  startAuthoritative,
  writeDnsResult,
} from './dns-support.ts';
import {
  readNames,
  runAdnshostStream,
  runDnsperf,
  withDefaultSocketBuffers,
  writeDnsperfInput,
  type AdnshostResult,
  type DnsperfResult,
} from './dns-tools.ts';
import { writeLookupZone } from './dns-zones.ts';

const origin = 'lookup-bench.test';
const nameCount = Number(process.env['BENCH_DNS_NAMES'] ?? 200_000);
const types = ['A', 'AAAA'];
/** The receive buffer the bulk resolver asks for (bulk-transport.ts); adnshost gets the same. */
const socketBufferBytes = 4 << 20;
/** Names outstanding at once: the bulk resolver's concurrency, and the window adnshost is fed with. */
const window = 256;
/** adnshost gives up after this long (lost answers cost it 2 s retries each). */
const adnsTimeoutMs = 180_000;
const dnsperfShapes = [
  ['-c', '1', '-q', '256'],
  ['-c', '2', '-T', '2', '-q', '256'],
];

/** One run of our bulk resolver over the list file, the records going through the indexing callback. */
async function runOurs(
  address: string,
  namesPath: string,
): Promise<{ stats: BulkStats; namesPerSecond: number; indexed: string }> {
  const resolver = createBulkResolver({
    servers: [address],
    concurrency: window,
    timeoutMs: 1000,
    retries: 2,
    isRecursionDesired: false,
  });
  const indexer = await loadIndexer(origin);
  let batch: ZoneRecord[] = [];
  try {
    // The clock runs from the first query to the commit of the last write, not to the last answer.
    const startedAt = performance.now();
    const stats = await resolver.resolveAll(
      readNames(namesPath),
      (result) => {
        for (const record of result.records) batch.push(record);
        if (batch.length >= 1000) {
          const full = batch;
          batch = [];
          return indexer.add(full);
        }
        return undefined;
      },
      { types },
    );
    await indexer.add(batch);
    await indexer.finish();
    const durationMs = performance.now() - startedAt;
    return {
      stats: { ...stats, durationMs },
      namesPerSecond: (stats.names / durationMs) * 1000,
      indexed: indexer.summary(),
    };
  } finally {
    resolver.close();
  }
}

async function run(ctx: BenchContext): Promise<void> {
  const dnsperf = requireTool('dnsperf', 'dnsperf');
  const adnshost = findProgram('adnshost');
  const dir = ctx.scope.tempDir('perimeter-bench-lookup-');
  const zonePath = join(dir, 'zone');
  const namesPath = join(dir, 'names.txt');
  const { zoneRecords } = await writeLookupZone(zonePath, namesPath, origin, nameCount);
  const port53 = await canUsePort53();
  const port = port53 ? 53 : await freePort();
  const server = await startAuthoritative(ctx.scope, origin, readFileSync(zonePath, 'latin1'), port);
  ctx.log(
    `${server.kind} serves ${origin} (${zoneRecords.toLocaleString('en')} records) on ${server.address}; ${nameCount.toLocaleString('en')} names, 1 in 10 absent, types ${types.join('+')}`,
  );

  const perfInput = join(dir, 'dnsperf.txt');
  writeDnsperfInput(namesPath, perfInput);
  const perf: DnsperfResult[] = dnsperfShapes.map((shape) => runDnsperf(dnsperf, perfInput, port, shape));
  const bestPerf = perf.reduce((a, b) => (b.queriesPerSecond > a.queriesPerSecond ? b : a));
  ctx.log(`dnsperf: ${perf.map((p) => `[${p.args}] ${p.queriesPerSecond.toFixed(0)} q/s`).join(', ')}`);

  const adns: Array<AdnshostResult & { window: number; isComplete: boolean; socketBuffersSet: boolean }> = [];
  if (adnshost !== undefined && port53) {
    // One process for the whole list, its default socket buffers those the bulk resolver asks for.
    const result = await withDefaultSocketBuffers(socketBufferBytes, async (isSet) => ({
      ...(await runAdnshostStream(adnshost, namesPath, window, adnsTimeoutMs)),
      socketBuffersSet: isSet,
    }));
    adns.push(result);
    ctx.log(
      `adnshost, one process reading stdin, ${result.window} names outstanding${result.socketBuffersSet ? ', 4 MiB socket buffers' : ' (default socket buffers: could not set them)'}: ${result.namesPerSecond.toFixed(0)} names/s${result.isComplete ? '' : ` (stopped after ${adnsTimeoutMs / 1000} s)`}`,
    );
  } else {
    ctx.log(
      adnshost === undefined
        ? 'adnshost not installed (apt-get install adns-tools): its row is skipped'
        : 'port 53 unavailable (adns cannot use another port, needs root): adnshost row skipped',
    );
  }
  const bestAdns = adns.length > 0 ? adns.reduce((a, b) => (b.namesPerSecond > a.namesPerSecond ? b : a)) : undefined;

  const ours = [await runOurs(server.address, namesPath), await runOurs(server.address, namesPath)];
  const bestOurs = ours.reduce((a, b) => (b.namesPerSecond > a.namesPerSecond ? b : a));
  // Nine names in ten exist: a run that got anything else measured failures, not lookups.
  const expected = { answer: nameCount - Math.floor(nameCount / 10), nxdomain: Math.floor(nameCount / 10) };
  for (const o of ours) {
    if (o.stats.outcomes.answer !== expected.answer || o.stats.outcomes.nxdomain !== expected.nxdomain)
      throw new Error(`unexpected outcomes ${JSON.stringify(o.stats.outcomes)}`);
  }
  const perfNames = bestPerf.queriesPerSecond / types.length;
  const rows = [
    [
      'dnsperf (the limit)',
      `${perfNames.toFixed(0)}`,
      `${bestPerf.queriesPerSecond.toFixed(0)}`,
      '1.00',
      `best of ${perf.length}: ${bestPerf.args}`,
    ],
    ...(bestAdns === undefined
      ? []
      : [
          [
            'adnshost, one process (stdin)',
            bestAdns.namesPerSecond.toFixed(0),
            (bestAdns.namesPerSecond * 2).toFixed(0),
            (bestAdns.namesPerSecond / perfNames).toFixed(2),
            `${bestAdns.window} outstanding, ${bestAdns.socketBuffersSet ? '4 MiB socket buffers' : 'default socket buffers'}${bestAdns.isComplete ? '' : ', stopped at the time limit'}; ${JSON.stringify(bestAdns.statuses)}`,
          ],
        ]),
    [
      'perimeter bulk resolver, to the last commit',
      bestOurs.namesPerSecond.toFixed(0),
      ((bestOurs.stats.queries / bestOurs.stats.durationMs) * 1000).toFixed(0),
      (bestOurs.namesPerSecond / perfNames).toFixed(2),
      `best of 2; ${JSON.stringify(bestOurs.stats.outcomes)} retries ${bestOurs.stats.retries}`,
    ],
  ];
  printRows(
    `dns-lookup: ${nameCount.toLocaleString('en')} names (${types.join('+')}) against ${server.kind} on ${server.address}`,
    ['client', 'names/s', 'queries/s', 'vs dnsperf', 'notes'],
    rows,
  );
  const aheadOfAdns =
    bestAdns === undefined
      ? 'n/a (adnshost not run)'
      : bestOurs.namesPerSecond > bestAdns.namesPerSecond
        ? 'met'
        : 'MISSED';
  console.log(
    `targets: ahead of adnshost ${aheadOfAdns}; moonshot 0.8× dnsperf ${bestOurs.namesPerSecond >= 0.8 * perfNames ? 'met' : 'missed'} (${(bestOurs.namesPerSecond / perfNames).toFixed(2)}×)`,
  );
  console.log(`index step: ${bestOurs.indexed}`);
  const path = writeDnsResult(ctx.outDir, 'lookup', {
    server: server.kind,
    names: nameCount,
    types,
    dnsperf: perf,
    adnshost: adns,
    ours: ours.map((o) => ({ ...o.stats, namesPerSecond: o.namesPerSecond })),
    indexed: bestOurs.indexed,
  });
  ctx.log(`results in ${path}`);
}

/** (b) A lookup job's resolving of 200,000 names against a local authoritative server, next to adnshost and dnsperf. */
export const benchmark: Benchmark = {
  name: 'dns-lookup',
  description: `resolving ${nameCount.toLocaleString('en')} names (A+AAAA) with the bulk resolver against a local NSD (or BIND), next to one adnshost process (same socket buffers) and dnsperf`,
  run,
};
