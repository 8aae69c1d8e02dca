import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { shippedWordList } from '../src/engine/discovery/candidate-names.ts';
import { discoverSurface, type DiscoveryReport } from '../src/engine/discovery/surface-discovery.ts';
import { createBulkResolver, type BulkResolver, type LookupResult } from '../src/engine/dns/bulk-resolver.ts';
import { createDnsResolver } from '../src/engine/dns/resolver.ts';
import { udpBatch } from '../src/engine/dns/udp-batch.ts';
import { EgressGuard } from '../src/engine/net/egress-guard.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { canUsePort53, findProgram, printRows, startAuthoritative, writeDnsResult } from './dns-support.ts';

const origin = 'discovery-bench.test';
const zoneNames = Number(process.env['BENCH_DISCOVERY_NAMES'] ?? 100_000);
/**
 * Outstanding names for both clients (ours: concurrency = 2 × window queries, A+AAAA). A single
 * authoritative process drops queries past some depth and both clients then wait for timeouts,
 * so each client runs every window and the fastest is kept, as dns-lookup does for its tools.
 */
const windows = [32, 64, 128];
/** Rounds over the windows; each round runs ours and adnshost in turn, the first alternating, so neither always runs first. */
const rounds = Number(process.env['BENCH_DISCOVERY_ROUNDS'] ?? 2);
const receiveBuffer = 4 << 20;

/**
 * The zone: every other word of the shipped list (5,000 of 10,000) and hosts `host-N` up to
 * `zoneNames`, addresses in TEST-NET-2 and 2001:db8::/32 (the egress guard refuses them, so no
 * page or certificate is fetched: the run measures DNS discovery, nothing leaves the machine).
 */
function writeZone(path: string, words: readonly string[]): { known: string[]; wordHits: number } {
  const lines = [
    `$TTL 300`,
    `@ SOA ns1.${origin}. hostmaster.${origin}. ( 1 3600 600 86400 60 )`,
    `  NS ns1`,
    `ns1 A 127.0.0.1`,
  ];
  let count = 1;
  let wordHits = 0;
  for (let i = 0; i < words.length; i += 2) {
    lines.push(`${words[i]} A 198.51.100.${(i % 250) + 1}`);
    wordHits += 1;
    count += 1;
  }
  const known: string[] = [];
  for (let i = 0; count < zoneNames; i += 1, count += 1) {
    const name = `host-${i}`;
    lines.push(`${name} A 198.51.100.${(i % 250) + 1}`);
    if (i % 4 === 0) lines.push(`${name} AAAA 2001:db8::${(i % 65535).toString(16)}`);
    known.push(`${name}.${origin}`);
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { known, wordHits };
}

/**
 * A bulk resolver that writes down every candidate handed to resolveAll (the candidate list):
 * the names of the A streams. The engine asks AAAA in a second stream for the names whose A
 * query was not NXDOMAIN; those are the same candidates again, so they are not recorded.
 */
function recording(bulk: BulkResolver, names: string[]): BulkResolver {
  return {
    lookup: (name, types, signal) => bulk.lookup(name, types, signal),
    resolveAll: (input, onResult, options) => {
      const source = input;
      if (options?.types !== undefined && !options.types.includes('A'))
        return bulk.resolveAll(source, onResult, options);
      async function* recorded(): AsyncGenerator<string> {
        for await (const name of source) {
          names.push(name);
          yield name;
        }
      }
      return bulk.resolveAll(recorded(), onResult as (r: LookupResult) => void | Promise<void>, options);
    },
    close: () => bulk.close(),
  };
}

/** Memory samples every 100 ms while a run lasts. */
function sampleMemory(): { stop(): Array<{ ms: number; rssMb: number; heapMb: number }> } {
  const startedAt = performance.now();
  const samples: Array<{ ms: number; rssMb: number; heapMb: number }> = [];
  const take = (): void => {
    const usage = process.memoryUsage();
    samples.push({ ms: performance.now() - startedAt, rssMb: usage.rss / 2 ** 20, heapMb: usage.heapUsed / 2 ** 20 });
  };
  take();
  const timer = setInterval(take, 100);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** What the benchmark keeps of a run: the stats and counts, not the report (100,000 names held by the bench would blur the memory samples of the next runs). */
interface OursResult {
  window: number;
  report: Pick<DiscoveryReport, 'stats'> & { live: number };
  memory: Array<{ ms: number; rssMb: number; heapMb: number }>;
  /** Process CPU (GC threads included) per candidate, µs. */
  cpuMicrosPerName: number;
}

async function runOurs(
  address: string,
  known: string[],
  window: number,
  names?: string[],
  udpSockets: 'batch' | 'dgram' = 'batch',
): Promise<OursResult> {
  const base = createBulkResolver({
    servers: [address],
    concurrency: window * 2,
    timeoutMs: 1000,
    retries: 2,
    isRecursionDesired: false,
    udpSockets,
  });
  const bulk = names === undefined ? base : recording(base, names);
  const memory = sampleMemory();
  const cpu = process.cpuUsage();
  let live = 0;
  try {
    // As the core runs it: live names streamed in batches (counted and dropped here; the core writes them).
    const report = await discoverSurface(
      { guard: new EgressGuard([]), resolver: createDnsResolver([address]), bulk },
      {
        root: origin,
        knownNames: known,
        scrape: true,
        bruteForce: true,
        takeoverTests: false,
        requestsPerSecond: 0,
        customHeaders: [],
        signal: AbortSignal.timeout(600_000),
        onNames: (batch) => {
          live += batch.length;
          return Promise.resolve();
        },
      },
    );
    if (report.names.length !== 0) throw new Error('names were streamed, the report should list none');
    const used = process.cpuUsage(cpu);
    return {
      window,
      report: { stats: report.stats, live },
      memory: memory.stop(),
      cpuMicrosPerName: (used.user + used.system) / report.stats.candidates,
    };
  } finally {
    memory.stop();
    base.close();
  }
}

/**
 * The bulk resolver alone over the candidate list (A and AAAA for every name, nothing done with
 * the answers), same options and window as the discovery run: the floor the engine's resolving
 * builds on, to tell the engine's own cost from the resolver's. CPU is the process's (GC threads
 * included) per name.
 */
async function runBare(
  address: string,
  names: string[],
  window: number,
): Promise<{ window: number; ms: number; namesPerSecond: number; cpuMicrosPerName: number }> {
  const bulk = createBulkResolver({
    servers: [address],
    concurrency: window * 2,
    timeoutMs: 1000,
    retries: 2,
    isRecursionDesired: false,
  });
  try {
    const cpu = process.cpuUsage();
    const startedAt = performance.now();
    await bulk.resolveAll(names, () => undefined, { types: ['A', 'AAAA'] });
    const ms = performance.now() - startedAt;
    const used = process.cpuUsage(cpu);
    return {
      window,
      ms,
      namesPerSecond: (names.length / ms) * 1000,
      cpuMicrosPerName: (used.user + used.system) / names.length,
    };
  } finally {
    bulk.close();
  }
}

/** CPU time (user + system) of a live process so far, in µs, from /proc; undefined when it cannot be read. */
function processCpuMicros(pid: number | undefined): number | undefined {
  try {
    // Fields 14 and 15 (utime, stime) in clock ticks (100 per second on Linux), after the command in parentheses.
    const fields = readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

interface AdnsResult {
  window: number;
  ms: number;
  namesPerSecond: number;
  /** adnshost's own CPU per name (from /proc when its last answer is read), µs. */
  cpuMicrosPerName: number | undefined;
  statuses: Record<string, number>;
}

/**
 * One long-lived adnshost reading names from stdin (`-a -f`: asynchronous pipe mode; its default
 * query asks A and AAAA), fed with at most `window` names outstanding, like the bulk resolver's
 * window, so neither client overflows the server or its own socket. Its stdin is closed once
 * the last answer is read (its CPU time is read just before), which ends it.
 */
async function runAdnshost(adnshost: string, names: string[], window: number): Promise<AdnsResult> {
  const statuses: Record<string, number> = {};
  const child = spawn(adnshost, ['--config', 'nameserver 127.0.0.1', '-a', '-f'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const startedAt = performance.now();
  let sent = 0;
  let answered = 0;
  let cpuMicros: number | undefined;
  const feed = (count: number): void => {
    const end = Math.min(names.length, sent + count);
    if (end > sent) child.stdin.write(`${names.slice(sent, end).join('\n')}\n`);
    sent = end;
  };
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => resolve());
  });
  let carry = '';
  child.stdout.setEncoding('latin1');
  child.stdout.on('data', (data: string) => {
    const lines = (carry + data).split('\n');
    carry = lines.pop() ?? '';
    let fresh = 0;
    for (const line of lines) {
      const match = /^\d+ \d+ (\S+) /.exec(line);
      if (match === null) continue;
      statuses[match[1] as string] = (statuses[match[1] as string] ?? 0) + 1;
      fresh += 1;
    }
    answered += fresh;
    if (fresh > 0 && sent < names.length) feed(fresh);
    if (answered === names.length && cpuMicros === undefined) {
      cpuMicros = processCpuMicros(child.pid);
      child.stdin.end();
    }
  });
  feed(window);
  await done;
  const ms = performance.now() - startedAt;
  if (answered !== names.length) throw new Error(`adnshost answered ${answered} of ${names.length} names`);
  return {
    window,
    ms,
    namesPerSecond: (names.length / ms) * 1000,
    cpuMicrosPerName: cpuMicros === undefined ? undefined : cpuMicros / names.length,
    statuses,
  };
}

/** Sets the kernel's default UDP receive buffer (what adnshost gets) for the adnshost run; returns the restore. */
function setDefaultReceiveBuffer(bytes: number): (() => void) | undefined {
  const path = '/proc/sys/net/core/rmem_default';
  try {
    const before = readFileSync(path, 'utf8').trim();
    writeFileSync(path, String(bytes));
    return () => writeFileSync(path, before);
  } catch {
    return undefined;
  }
}

/** RSS and heap at each tenth of the run, with the range: flat memory shows as no trend from start to end. */
function memorySummary(samples: Array<{ ms: number; rssMb: number; heapMb: number }>): string {
  const at = (fraction: number) =>
    samples[Math.min(samples.length - 1, Math.round(fraction * (samples.length - 1)))] as {
      rssMb: number;
      heapMb: number;
    };
  const tenths = Array.from({ length: 11 }, (_, i) => at(i / 10));
  const range = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
  return (
    `RSS ${tenths.map((s) => s.rssMb.toFixed(0)).join(' ')} MB (range ${range(samples.map((s) => s.rssMb))}); ` +
    `heap ${tenths.map((s) => s.heapMb.toFixed(0)).join(' ')} MB (range ${range(samples.map((s) => s.heapMb))}); ${samples.length} samples`
  );
}

async function run(ctx: BenchContext): Promise<void> {
  const adnshost = findProgram('adnshost');
  if (adnshost === undefined) throw new Error('adnshost is needed by this benchmark: apt-get install adns-tools');
  if (!(await canUsePort53()))
    throw new Error(
      'this benchmark serves the zone on 127.0.0.1:53 (adns has no port setting): run it as root with port 53 free',
    );
  const dir = ctx.scope.tempDir('perimeter-bench-discovery-');
  const words = shippedWordList();
  const zonePath = join(dir, 'zone');
  const { known, wordHits } = writeZone(zonePath, words);
  const server = await startAuthoritative(ctx.scope, origin, readFileSync(zonePath, 'latin1'), 53);
  const sockets = udpBatch();
  ctx.log(
    sockets.binding === undefined
      ? `the batch UDP sockets are not in use (${sockets.reason}): "ours" runs on dgram sockets too`
      : 'ours: the native batch UDP sockets (sendmmsg/recvmmsg)',
  );
  ctx.log(
    `${server.kind} serves ${origin}: ${zoneNames.toLocaleString('en')} names (${wordHits.toLocaleString('en')} of them words of the list); ${known.length.toLocaleString('en')} known names, ${words.length.toLocaleString('en')} words`,
  );

  // An unmeasured run records the candidate list (every name the engine resolved) and warms the JIT.
  const candidates: string[] = [];
  const first = await runOurs(server.address, known, 64, candidates);
  const expectedLive = zoneNames; // every zone name but ns1 is a host or a word; plus the root (nodata) and ns1
  ctx.log(
    `recording run: ${candidates.length.toLocaleString('en')} candidates, ${first.report.live.toLocaleString('en')} live names in ${first.report.stats.durationMs.toFixed(0)} ms`,
  );
  if (first.report.live < expectedLive - 1) throw new Error(`only ${first.report.live} live names of ${expectedLive}`);

  const ours: OursResult[] = [];
  const oursDgram: OursResult[] = [];
  const adns: AdnsResult[] = [];
  const bare: Array<Awaited<ReturnType<typeof runBare>>> = [];
  const load: Array<{ round: number; window: number; loadAverage: number }> = [];
  const restore = setDefaultReceiveBuffer(receiveBuffer);
  // Also undone when the run is interrupted (Ctrl-C closes the scope).
  if (restore !== undefined) ctx.scope.defer('restore net.core.rmem_default', restore);
  const cpu = (micros: number | undefined) => (micros === undefined ? 'CPU ?' : `CPU ${micros.toFixed(1)} µs/name`);
  try {
    for (let round = 1; round <= rounds; round += 1) {
      for (const window of windows) {
        const loadAverage = loadavg()[0] as number;
        load.push({ round, window, loadAverage });
        const runOursNow = async () => void ours.push(await runOurs(server.address, known, window));
        const runAdnsNow = async () => void adns.push(await runAdnshost(adnshost, candidates, window));
        for (const step of round % 2 === 1 ? [runOursNow, runAdnsNow] : [runAdnsNow, runOursNow]) await step();
        bare.push(await runBare(server.address, candidates, window));
        oursDgram.push(await runOurs(server.address, known, window, undefined, 'dgram'));
        const o = ours[ours.length - 1] as OursResult;
        const d = oursDgram[oursDgram.length - 1] as OursResult;
        const a = adns[adns.length - 1] as AdnsResult;
        const b = bare[bare.length - 1] as Awaited<ReturnType<typeof runBare>>;
        ctx.log(
          `round ${round}, window ${window} (load average ${loadAverage.toFixed(2)}): ours ${((o.report.stats.candidates / o.report.stats.durationMs) * 1000).toFixed(0)} names/s (${cpu(o.cpuMicrosPerName)}), ` +
            `adnshost ${a.namesPerSecond.toFixed(0)} names/s (${cpu(a.cpuMicrosPerName)}), bare bulk resolver ${b.namesPerSecond.toFixed(0)} names/s (${cpu(b.cpuMicrosPerName)}), ` +
            `ours on dgram sockets ${((d.report.stats.candidates / d.report.stats.durationMs) * 1000).toFixed(0)} names/s (${cpu(d.cpuMicrosPerName)})`,
        );
      }
    }
  } finally {
    restore?.();
  }
  const bestOurs = ours.reduce((a, b) => (b.report.stats.durationMs < a.report.stats.durationMs ? b : a));
  const bestAdns = adns.reduce((a, b) => (b.ms < a.ms ? b : a));
  const bestBare = bare.reduce((a, b) => (b.ms < a.ms ? b : a));
  const bestDgram = oursDgram.reduce((a, b) => (b.report.stats.durationMs < a.report.stats.durationMs ? b : a));
  const dgramRate = (bestDgram.report.stats.candidates / bestDgram.report.stats.durationMs) * 1000;
  const oursRate = (bestOurs.report.stats.candidates / bestOurs.report.stats.durationMs) * 1000;
  const s = bestOurs.report.stats;
  printRows(
    `discovery: ${zoneNames.toLocaleString('en')}-name zone, ${words.length.toLocaleString('en')}-word list, ${candidates.length.toLocaleString('en')} candidates (A+AAAA) on ${server.kind} ${server.address}`,
    ['client', 'names/s', 'ms', 'vs adnshost', 'notes'],
    [
      [
        'adnshost, one process, stdin',
        bestAdns.namesPerSecond.toFixed(0),
        bestAdns.ms.toFixed(0),
        '1.00',
        `best of ${adns.length}: window ${bestAdns.window} names; ${(candidates.length * 2).toLocaleString('en')} queries (A and AAAA for every name); ${cpu(bestAdns.cpuMicrosPerName)}; rmem_default ${restore === undefined ? 'unchanged (not writable)' : `${receiveBuffer >> 20} MiB as ours`}; ${JSON.stringify(bestAdns.statuses)}`,
      ],
      [
        'perimeter discovery (whole run)',
        oursRate.toFixed(0),
        s.durationMs.toFixed(0),
        (oursRate / bestAdns.namesPerSecond).toFixed(2),
        `best of ${ours.length}: window ${bestOurs.window} names; ${bestOurs.report.live} live; brute force ${s.bruteForceCandidates}, permutations ${s.permutationCandidates}${s.isPermutationCapped ? ' (capped)' : ''}; ${s.queries} queries (AAAA only when A was not NXDOMAIN), ${s.retries} retries, ${s.timeouts} timeouts; resolving ${s.resolveMs.toFixed(0)} ms; CPU ${bestOurs.cpuMicrosPerName.toFixed(1)} µs/name`,
      ],
      [
        'discovery on dgram sockets (reference)',
        dgramRate.toFixed(0),
        bestDgram.report.stats.durationMs.toFixed(0),
        (dgramRate / bestAdns.namesPerSecond).toFixed(2),
        `best of ${oursDgram.length}: window ${bestDgram.window} names; the same run with Node's dgram sockets (a datagram per call) instead of the batch sockets; CPU ${bestDgram.cpuMicrosPerName.toFixed(1)} µs/name`,
      ],
      [
        'bulk resolver alone (reference)',
        bestBare.namesPerSecond.toFixed(0),
        bestBare.ms.toFixed(0),
        (bestBare.namesPerSecond / bestAdns.namesPerSecond).toFixed(2),
        `best of ${bare.length}: window ${bestBare.window} names; resolveAll A+AAAA over the candidate list, answers dropped; CPU ${bestBare.cpuMicrosPerName.toFixed(1)} µs/name`,
      ],
    ],
  );
  for (const o of ours) console.log(`memory, window ${o.window}: ${memorySummary(o.memory)}`);
  console.log(
    `target ≥ 1.0× adnshost: ${oursRate >= bestAdns.namesPerSecond ? 'met' : 'MISSED'} (${(oursRate / bestAdns.namesPerSecond).toFixed(2)}×)`,
  );
  const path = writeDnsResult(ctx.outDir, 'discovery', {
    server: server.kind,
    zoneNames,
    words: words.length,
    candidates: candidates.length,
    loadAverage: load,
    adnshost: adns,
    bareBulkResolver: bare,
    udpSockets: udpBatch().reason,
    oursOnDgram: oursDgram.map((o) => ({
      window: o.window,
      cpuMicrosPerName: o.cpuMicrosPerName,
      namesPerSecond: (o.report.stats.candidates / o.report.stats.durationMs) * 1000,
    })),
    ours: ours.map((o) => ({
      window: o.window,
      ...o.report.stats,
      live: o.report.live,
      cpuMicrosPerName: o.cpuMicrosPerName,
      namesPerSecond: (o.report.stats.candidates / o.report.stats.durationMs) * 1000,
      memory: memorySummary(o.memory),
    })),
  });
  ctx.log(`results in ${path}`);
}

/** Discovery of a 100,000-name zone with the 10,000-word list, next to adnshost resolving the same candidates. */
export const benchmark: Benchmark = {
  name: 'discovery',
  description: `subdomain discovery over a ${zoneNames.toLocaleString('en')}-name zone with the 10,000-word list (known names, brute force, permutations) vs one adnshost process on the same candidate list (and the bare bulk resolver for reference); memory sampled`,
  run,
};
