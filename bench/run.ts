import { join } from 'node:path';
import { parseDuration, repoRoot, type Benchmark, type BenchContext } from './support/benchmark.ts';
import { Scope } from './support/scope.ts';
import { ensureWrk } from './support/wrk.ts';

/**
 * Every benchmark, by name, in the order `npm run bench` runs them. Adding one is a
 * `<name>.bench.ts` file exporting `benchmark` and one line here.
 */
const registry: Record<string, () => Promise<Benchmark>> = {
  'assets-list': async () => (await import('./assets-list.bench.ts')).benchmark,
  'assets-list-postgres': async () => (await import('./assets-list.bench.ts')).assetsListBenchmark('postgres'),
  'vulnerabilities-sqlite': async () => (await import('./vulnerabilities.bench.ts')).vulnerabilityBenchmark('sqlite'),
  'vulnerabilities-postgres': async () =>
    (await import('./vulnerabilities.bench.ts')).vulnerabilityBenchmark('postgres'),
  'console-findings': async () => (await import('./console.bench.ts')).benchmark,
  'ips-sqlite': async () => (await import('./ips.bench.ts')).ipsBenchmark('sqlite'),
  'ips-postgres': async () => (await import('./ips.bench.ts')).ipsBenchmark('postgres'),
  'zone-lookup-memory': async () => (await import('./zone-lookup-memory.bench.ts')).benchmark,
  'dns-zone-parse': async () => (await import('./dns-zone-parse.bench.ts')).benchmark,
  'dns-lookup': async () => (await import('./dns-lookup.bench.ts')).benchmark,
  'dns-axfr': async () => (await import('./dns-axfr.bench.ts')).benchmark,
  discovery: async () => (await import('./discovery.bench.ts')).benchmark,
  scans: async () => (await import('./scans.bench.ts')).benchmark,
  'app-scanner': async () => (await import('./app-scanner.bench.ts')).benchmark,
  'app-scanner-realistic': async () => (await import('./app-scanner-realistic.bench.ts')).benchmark,
  ports: async () => (await import('./ports.bench.ts')).benchmark,
  tls: async () => (await import('./tls.bench.ts')).benchmark,
  fingerprint: async () => (await import('./fingerprint.bench.ts')).benchmark,
  'inventory-lists-sqlite': async () => (await import('./inventory-lists.bench.ts')).inventoryListsBenchmark('sqlite'),
  'inventory-lists-postgres': async () =>
    (await import('./inventory-lists.bench.ts')).inventoryListsBenchmark('postgres'),
  'events-fanout': async () => (await import('./events-fanout.bench.ts')).benchmark,
  exports: async () => (await import('./exports.bench.ts')).benchmark,
};

const usage = `usage: npm run bench [-- <name> …]   run all benchmarks, or the named ones
       npm run bench -- --list          list them
environment: BENCH_DURATION (measured run, default 10s), BENCH_WARMUP (default 3s, 0 skips),
             BENCH_CPU_PROF=1 (CPU profile of the server under .bench/profiles/),
             BENCH_SERVER_NODE_ARGS (extra node flags of the server, e.g. --trace-gc),
             BENCH_SERVER_LOG (a file the server's output is appended to)
benchmarks: ${Object.keys(registry).join(', ')}`;

let current: Scope | undefined;

async function runOne(
  name: string,
  load: () => Promise<Benchmark>,
  settings: Omit<BenchContext, 'scope' | 'log'>,
): Promise<boolean> {
  const scope = new Scope();
  current = scope;
  const startedAt = performance.now();
  const log = (message: string) => console.error(`[${name}] ${message}`);
  try {
    const benchmark = await load();
    log(benchmark.description);
    await benchmark.run({ ...settings, scope, log });
    log(`done in ${((performance.now() - startedAt) / 1000).toFixed(0)} s`);
    return true;
  } catch (err) {
    log(`FAILED: ${(err as Error).stack ?? String(err)}`);
    return false;
  } finally {
    await scope.close();
    current = undefined;
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage);
    return 0;
  }
  if (argv.includes('--list')) {
    for (const [name, load] of Object.entries(registry))
      console.log(`${name.padEnd(24)} ${(await load()).description}`);
    return 0;
  }
  const unknown = argv.filter((name) => !(name in registry));
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}\n${usage}`);
    return 2;
  }
  const warmup = process.env['BENCH_WARMUP'] ?? '3s';
  const settings = {
    duration: parseDuration(process.env['BENCH_DURATION'] ?? '10s', 'BENCH_DURATION'),
    warmup: /^0+[smh]?$/.test(warmup.trim()) ? undefined : parseDuration(warmup, 'BENCH_WARMUP'),
    outDir: join(repoRoot, '.bench'),
  };
  ensureWrk();
  const names = argv.length > 0 ? argv : Object.keys(registry);
  const failed: string[] = [];
  for (const name of names) if (!(await runOne(name, registry[name]!, settings))) failed.push(name);
  if (failed.length > 0) console.error(`\nfailed: ${failed.join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

// Ctrl-C or a kill still stops the servers and removes the temp directories.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: cleaning up`);
    void (current?.close() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
}
