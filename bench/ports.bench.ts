import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { EgressGuard } from '../src/engine/net/egress-guard.ts';
import { defaultScanThreads } from '../src/engine/ports/parallel-connect-scan.ts';
import { createPortScanner, type PortScannerDeps } from '../src/engine/ports/port-scanner.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { writeResult } from './support/report.ts';
import { printRows, requireTool } from './dns-support.ts';

const listenerCount = Number(process.env['BENCH_PORTS_LISTENERS'] ?? 300);
const rounds = Number(process.env['BENCH_PORTS_ROUNDS'] ?? 5);
const allPorts = Array.from({ length: 65535 }, (_, i) => i + 1);

/**
 * The listeners live in a child process, so neither scanner shares its event loop with them:
 * `count` servers on 127.0.0.1, kernel-chosen ports, each closing what it accepts.
 */
async function startListeners(ctx: BenchContext, count: number): Promise<number[]> {
  const code = `const net=require('net');const ports=[];let left=${count};
for(let i=0;i<${count};i++){const s=net.createServer((c)=>{c.on('error',()=>{});c.destroy()});s.listen(0,'127.0.0.1',()=>{ports.push(s.address().port);if(--left===0)process.stdout.write(JSON.stringify(ports)+'\\n')})}`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  ctx.scope.defer('stop the listeners', () => child.kill());
  const text = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (data: Buffer) => {
      out += data.toString();
      if (out.endsWith('\n')) resolve(out);
    });
    child.once('error', reject);
    child.once('exit', (status) => reject(new Error(`listener process exited (${status})`)));
  });
  return (JSON.parse(text) as number[]).sort((a, b) => a - b);
}

/** TCP ports in LISTEN that accept connections to 127.0.0.1 (bound to it, to 0.0.0.0, or to a dual-stack ::), from /proc/net/tcp{,6}. */
function listeningPorts(): Set<number> {
  const ports = new Set<number>();
  const accepts = new Set([
    '0100007F',
    '00000000',
    '00000000000000000000000000000000',
    '0000000000000000FFFF00000100007F',
  ]);
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== '0A') continue;
      const [address, port] = (fields[1] ?? '').split(':');
      if (address !== undefined && port !== undefined && accepts.has(address)) ports.add(parseInt(port, 16));
    }
  }
  return ports;
}

interface Run {
  ms: number;
  open: number[];
  /** nmap: its own "scanned in" time; ours: CPU time (user + system). */
  note: string;
}

/** The variants measured: the default, then one thread, then one thread with net.Socket (what each step brings). */
const variants: Array<{ label: string; deps: Partial<PortScannerDeps> }> = [
  { label: `perimeter (default: bare handles, ${defaultScanThreads()} threads)`, deps: {} },
  { label: 'perimeter (bare handles, 1 thread)', deps: { threads: 1 } },
  { label: 'perimeter (net.Socket, 1 thread)', deps: { threads: 1, dialer: 'socket' } },
];

async function runOurs(deps: Partial<PortScannerDeps>): Promise<Run> {
  const scanner = createPortScanner({ guard: new EgressGuard(['127.0.0.0/8']), ...deps });
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  const report = await scanner.scan({
    addresses: ['127.0.0.1'],
    ports: allPorts,
    identify: false,
    signal: AbortSignal.timeout(300_000),
  });
  const ms = performance.now() - startedAt;
  const used = process.cpuUsage(cpu);
  if (report.probed !== allPorts.length) throw new Error(`probed ${report.probed} of ${allPorts.length} ports`);
  return {
    ms,
    open: report.open.map((o) => o.port),
    note: `CPU ${((used.user + used.system) / 1000).toFixed(0)} ms; warnings ${JSON.stringify(report.warnings)}`,
  };
}

/** `nmap -sT -T4 -p- -n 127.0.0.1` (no reverse DNS), grepable output on stdout; wall time of the whole process. */
async function runNmap(nmap: string): Promise<Run> {
  const startedAt = performance.now();
  const child = spawn(nmap, ['-sT', '-T4', '-p-', '-n', '-oG', '-', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (data: Buffer) => (out += data.toString()));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const ms = performance.now() - startedAt;
  if (status !== 0) throw new Error(`nmap exited with ${status}`);
  const open = [...out.matchAll(/(\d+)\/open\/tcp/g)].map((m) => Number(m[1]));
  const own = /scanned in ([\d.]+) seconds/.exec(out)?.[1];
  return { ms, open, note: `nmap's own time ${own ?? '?'} s` };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

async function run(ctx: BenchContext): Promise<void> {
  const nmap = requireTool('nmap', 'nmap');
  const listeners = await startListeners(ctx, listenerCount);
  ctx.log(
    `${listeners.length} listeners on 127.0.0.1 (${listeners[0]}–${listeners.at(-1)}); ${rounds} rounds after one warm-up each`,
  );
  await runNmap(nmap);
  for (const variant of variants) await runOurs(variant.deps);
  const theirs: Run[] = [];
  const ours: Run[][] = variants.map(() => []);
  const listening = listeningPorts();
  for (let round = 0; round < rounds; round += 1) {
    // Alternate who goes first, so neither always meets the other's TIME_WAIT leftovers.
    if (round % 2 === 0) theirs.push(await runNmap(nmap));
    for (let v = 0; v < variants.length; v += 1)
      (ours[v] as Run[]).push(await runOurs((variants[v] as (typeof variants)[number]).deps));
    if (round % 2 === 1) theirs.push(await runNmap(nmap));
    ctx.log(
      `round ${round + 1}: nmap ${theirs.at(-1)?.ms.toFixed(0)} ms; ${variants.map((v, i) => `${v.label} ${ours[i]?.at(-1)?.ms.toFixed(0)} ms`).join('; ')}`,
    );
  }
  for (const port of listeningPorts()) listening.add(port);

  const listenerSet = new Set(listeners);
  const recallOf = (r: Run): number => r.open.filter((p) => listenerSet.has(p)).length / listeners.length;
  const nmapSeen = new Set(theirs.flatMap((r) => r.open));
  // A port we call open is a false positive when no scan by nmap saw it and /proc shows no listener on it.
  const falsePositives = [...new Set(ours.flat().flatMap((r) => r.open))].filter(
    (p) => !nmapSeen.has(p) && !listening.has(p),
  );
  const nmapMedian = median(theirs.map((r) => r.ms));
  const best = ours[0] as Run[];
  const ratio = median(best.map((r) => r.ms)) / nmapMedian;
  const minRecall = (runs: Run[]): number => Math.min(...runs.map(recallOf));
  const diff = (a: Run, b: Run): string => {
    const bs = new Set(b.open);
    return a.open.filter((p) => !bs.has(p)).join(',') || '-';
  };
  const row = (label: string, runs: Run[], notes: string): string[] => [
    label,
    median(runs.map((r) => r.ms)).toFixed(0),
    Math.min(...runs.map((r) => r.ms)).toFixed(0),
    Math.max(...runs.map((r) => r.ms)).toFixed(0),
    (median(runs.map((r) => r.ms)) / nmapMedian).toFixed(2),
    `${(minRecall(runs) * 100).toFixed(1)} %`,
    notes,
  ];
  printRows(
    `ports: all 65,535 TCP ports of 127.0.0.1, ${listeners.length} listeners (plus the machine's own), ${rounds} rounds`,
    ['scanner', 'median ms', 'min ms', 'max ms', 'vs nmap', 'recall', 'notes'],
    [
      row('nmap -sT -T4 -p- -n', theirs, theirs.map((r) => r.note.replace("nmap's own time ", '')).join(', ')),
      ...variants.map((v, i) =>
        row(v.label, ours[i] as Run[], (ours[i] as Run[]).map((r) => r.note.split(';')[0]).join(', ')),
      ),
    ],
  );
  console.log(
    `open in the last round, ours not nmap: ${diff(best.at(-1) as Run, theirs.at(-1) as Run)}; nmap not ours: ${diff(theirs.at(-1) as Run, best.at(-1) as Run)}; false positives: ${falsePositives.join(',') || 'none'}`,
  );
  console.log(
    `target ≤ 1.0× nmap: ${ratio <= 1 ? 'met' : 'MISSED'} (${ratio.toFixed(2)}×); recall 100 %: ${minRecall(best) === 1 ? 'met' : 'MISSED'}`,
  );
  const summary = (runs: Run[]) => ({
    medianMs: median(runs.map((r) => r.ms)),
    runs: runs.map((r) => ({ ms: r.ms, open: r.open.length, recall: recallOf(r), note: r.note })),
  });
  const path = writeResult(ctx.outDir, 'ports', {
    listeners: listeners.length,
    rounds,
    nmap: summary(theirs),
    ours: variants.map((v, i) => ({ label: v.label, ...summary(ours[i] as Run[]) })),
    ratio,
    falsePositives,
  });
  ctx.log(`results in ${path}`);
}

/** A full TCP connect scan of 127.0.0.1 with a few hundred listeners, next to nmap -sT -T4 -p- in the same run. */
export const benchmark: Benchmark = {
  name: 'ports',
  description: `TCP connect scan of all 65,535 ports of 127.0.0.1 with ${listenerCount} listeners: time and recall vs nmap -sT -T4 -p- (and one thread, and net.Socket, for reference)`,
  run,
};
