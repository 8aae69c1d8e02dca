import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createWebhooks,
  durationSeconds,
  listPages,
  prepareFanoutStore,
  startProducer,
  type FanoutStore,
  type ProducerReport,
} from './events-fanout-support.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { FanoutReceiver, percentile, type ReceiverTally } from './support/fanout-receivers.ts';
import { processCpuMs } from './support/process-cpu.ts';
import { printTable, writeResult } from './support/report.ts';
import { startPerimeter, type ServerProcess } from './support/server.ts';
import { runWrk, urlCycleScript, type WrkResult } from './support/wrk.ts';
import { measureOpen, printOpen, type OpenPhase } from './events-fanout-open.ts';

/** A whole number from the environment, at least `min`, else `fallback`; anything else stops the run. */
function countFromEnv(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be a whole number ≥ ${min}, not ${JSON.stringify(text)}`);
  return value;
}

const vulnerabilities = countFromEnv('BENCH_FANOUT_VULNS', 50_000, 1000);
const eventsPerMinute = countFromEnv('BENCH_FANOUT_EVENTS_PER_MINUTE', 10_000, 1);
const pageCacheMb = countFromEnv('BENCH_FANOUT_PAGE_CACHE_MB', 0, 0);
const drainTimeoutMs = countFromEnv('BENCH_FANOUT_DRAIN_TIMEOUT_S', 300, 1) * 1000;
/** Webhooks (and receivers); 0 measures the producer's appends alone (a diagnostic run). */
const webhookCount = countFromEnv('BENCH_FANOUT_WEBHOOKS', 5, 0);
/** Distinct pages wrk cycles through: with the page cache off, each request reads its page from the store. */
const listPageCount = 100;
const load = { connections: 10, threads: 2 } as const;
/** `open` (default): the list at a fixed rate (BENCH_FANOUT_RATE), open loop; `wrk`: closed loop at 10 connections. */
const mode = process.env['BENCH_FANOUT_MODE'] ?? 'open';
if (mode !== 'open' && mode !== 'wrk')
  throw new Error(`BENCH_FANOUT_MODE must be open or wrk, not ${JSON.stringify(mode)}`);
/** Requests a second of the open-loop phases: well below the list's saturation (about 600–1,000/s here). */
const openRate = countFromEnv('BENCH_FANOUT_RATE', 200, 1);
/** The target: the list's p99 with the fan-out running at most this many times the p99 without. */
const targetRatio = 1.2;

/** The list's p99 and throughput without and with 10,000 events a minute fanned out to five webhooks. */
export const benchmark: Benchmark = {
  name: 'events-fanout',
  description:
    `GET /rest/v2/vulnerabilities/ (${vulnerabilities.toLocaleString('en')} vulnerabilities, page cache ${pageCacheMb} MB) ` +
    `${mode === 'open' ? `at a fixed ${openRate} requests/s (open loop)` : `at ${load.connections} connections (wrk, closed loop)`}, ` +
    `without events (before and after) and while ${eventsPerMinute.toLocaleString('en')} events a minute fan out to ${webhookCount} json webhooks on loopback receivers`,
  run,
};

/** One wrk phase: the list's figures and the server's CPU time over it. */
interface Phase {
  label: string;
  wrk: WrkResult;
  serverCpuMs: number;
}

async function measure(
  ctx: BenchContext,
  server: ServerProcess,
  label: string,
  script: string,
  warm: boolean,
): Promise<Phase> {
  const options = { url: server.url, ...load, script };
  if (warm && ctx.warmup !== undefined) {
    ctx.log(`${label}: warming up for ${ctx.warmup}`);
    await runWrk(ctx.scope, { ...options, duration: ctx.warmup });
  }
  ctx.log(`${label}: measuring for ${ctx.duration} (${load.connections} connections, ${load.threads} threads)`);
  const cpuBefore = processCpuMs(server.pid);
  const wrk = await runWrk(ctx.scope, { ...options, duration: ctx.duration });
  return { label, wrk, serverCpuMs: processCpuMs(server.pid) - cpuBefore };
}

/** Waits until every receiver has every producer event; answers when the last first arrival came, or undefined on time-out. */
async function drain(ctx: BenchContext, receivers: FanoutReceiver[], appended: number): Promise<number | undefined> {
  const deadline = Date.now() + drainTimeoutMs;
  let nextLog = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const tallies = receivers.map((r) => r.update());
    if (tallies.every((t) => t.distinct >= appended)) return Math.max(...tallies.map((t) => t.lastFirstArrivalMs));
    if (Date.now() >= nextLog) {
      nextLog += 10_000;
      ctx.log(`draining: received ${tallies.map((t) => t.distinct).join(', ')} of ${appended}`);
    }
    await sleep(50);
  }
  return undefined;
}

/** Phase B: the load (`measureB`) and the producer together; then the wait for the backlog to drain. */
async function fanoutPhase<P>(
  ctx: BenchContext,
  server: ServerProcess,
  store: FanoutStore,
  receivers: FanoutReceiver[],
  measureB: () => Promise<P>,
): Promise<{ phase: P; producer: ProducerReport; drainedAtMs: number | undefined; cpuToDrainMs: number }> {
  const producer = await startProducer(ctx.scope, store, eventsPerMinute, durationSeconds(ctx.duration));
  for (const r of receivers) r.reset();
  const cpuBefore = processCpuMs(server.pid);
  const [phase, report] = await Promise.all([measureB(), producer.go()]);
  ctx.log(
    `producer: ${report.appended} events in ${report.seconds.toFixed(1)} s (${report.eventsPerMinute.toFixed(0)}/min), append p99 ${report.appendMs.p99.toFixed(1)} ms; draining`,
  );
  const drainedAtMs = await drain(ctx, receivers, report.appended);
  return { phase, producer: report, drainedAtMs, cpuToDrainMs: processCpuMs(server.pid) - cpuBefore };
}

const ms = (us: number) => us / 1000;
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

/** What the receivers got, summed and per receiver, with the lag over all first arrivals. */
function fanoutSummary(tallies: ReceiverTally[], producer: ProducerReport, drainedAtMs: number | undefined) {
  const lags = tallies.flatMap((t) => t.lagsMs);
  return {
    appended: producer.appended,
    perReceiver: tallies.map((t) => ({
      received: t.distinct,
      missing: producer.appended - t.distinct,
      requests: t.requests,
      duplicates: t.duplicates,
      distinctWebhookIds: t.distinctIds,
      badSignatures: t.badSignatures,
      outOfOrder: t.outOfOrder,
      foreign: t.foreign,
      lagMs: { p50: percentile(t.lagsMs, 50), p99: percentile(t.lagsMs, 99) },
    })),
    deliveries: tallies.reduce((sum, t) => sum + t.distinct, 0),
    duplicates: tallies.reduce((sum, t) => sum + t.duplicates, 0),
    lagMs: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: percentile(lags, 100) },
    drainMs: drainedAtMs === undefined ? null : Math.max(0, drainedAtMs - producer.lastAtMs),
    deliveriesPerSecond:
      tallies.reduce((sum, t) => sum + t.distinct, 0) /
      (producer.seconds + (drainedAtMs === undefined ? 0 : Math.max(0, drainedAtMs - producer.lastAtMs)) / 1000),
  };
}

/** Problems that make the figures wrong: any missing, unsigned, foreign-id or out-of-order delivery. */
function fanoutProblems(summary: ReturnType<typeof fanoutSummary>): string[] {
  return summary.perReceiver.flatMap((r, i) => [
    ...(r.missing > 0 ? [`receiver ${i + 1} misses ${r.missing} events`] : []),
    ...(r.badSignatures > 0 ? [`receiver ${i + 1} got ${r.badSignatures} badly signed requests`] : []),
    ...(r.distinctWebhookIds !== r.received ? [`receiver ${i + 1}: webhook-id is not one per event`] : []),
    ...(r.outOfOrder > 0 ? [`receiver ${i + 1} got ${r.outOfOrder} events out of order`] : []),
  ]);
}

/** The fan-out's line of the results. */
function printFanout(summary: ReturnType<typeof fanoutSummary>): void {
  if (webhookCount === 0) {
    console.log(`no webhooks: phase B measured the producer's ${summary.appended} appends alone`);
    return;
  }
  console.log(
    `fan-out: ${summary.appended} events × ${webhookCount} webhooks, ${summary.deliveries} delivered (${summary.deliveriesPerSecond.toFixed(0)}/s from the first append until drained), ${summary.duplicates} duplicates; ` +
      `lag p50 ${summary.lagMs.p50.toFixed(0)} ms, p99 ${summary.lagMs.p99.toFixed(0)} ms, max ${summary.lagMs.max.toFixed(0)} ms; ` +
      `drained ${summary.drainMs === null ? 'NOT within the time-out' : `${(summary.drainMs / 1000).toFixed(1)} s`} after the last append`,
  );
}

function printResults(phases: Phase[], ratio: number, summary: ReturnType<typeof fanoutSummary>): void {
  printTable(
    `GET /rest/v2/vulnerabilities/ (${listPageCount} pages), ${load.connections} connections`,
    phases.map((p) => ({ label: p.label, result: p.wrk })),
  );
  const [a1, b, a2] = phases as [Phase, Phase, Phase];
  console.log(
    `p99 A ${ms(a1.wrk.latencyUs.p99).toFixed(1)} / ${ms(a2.wrk.latencyUs.p99).toFixed(1)} ms (before / after), ` +
      `p99 B ${ms(b.wrk.latencyUs.p99).toFixed(1)} ms: ratio ${ratio.toFixed(2)} (target ≤ ${targetRatio})`,
  );
  console.log(
    `throughput A ${a1.wrk.requestsPerSecond.toFixed(0)} / ${a2.wrk.requestsPerSecond.toFixed(0)} req/s, B ${b.wrk.requestsPerSecond.toFixed(0)} req/s; ` +
      `server CPU per request A ${(a1.serverCpuMs / a1.wrk.requests).toFixed(2)} ms, B ${(b.serverCpuMs / b.wrk.requests).toFixed(2)} ms (B includes the deliveries)`,
  );
  printFanout(summary);
}

async function run(ctx: BenchContext): Promise<void> {
  const store = await prepareFanoutStore(ctx, vulnerabilities);
  const receivers: FanoutReceiver[] = [];
  for (let i = 0; i < webhookCount; i++) receivers.push(await new FanoutReceiver().start(ctx.scope));
  const cpuProfileDir =
    process.env['BENCH_CPU_PROF'] === '1' ? join(ctx.outDir, 'profiles', 'events-fanout') : undefined;
  // Every role (api, worker, scheduler) in one process, as a single-node deployment runs. Egress
  // is opened to the loopback only (the receivers), DNS points at a dead loopback port.
  const serverEnv = {
    ...store.env,
    PERIMETER_EGRESS_ALLOW: '127.0.0.0/8',
    PERIMETER_DNS_RESOLVERS: '127.0.0.1:1',
    PERIMETER_PAGE_CACHE_MB: String(pageCacheMb),
    PERIMETER_WEBHOOK_THREADS: process.env['BENCH_FANOUT_WEBHOOK_THREADS'] ?? '1',
  };
  const server = await startPerimeter(ctx.scope, { dataDir: store.dataDir, cpuProfileDir, env: serverEnv });
  ctx.log(`perimeter ready at ${server.url} (pid ${server.pid}), all roles, page cache ${pageCacheMb} MB`);
  await createWebhooks(server.url, store.v3Key, receivers);
  const paths = await listPages(server.url, store.v2Key, listPageCount);
  if (mode === 'open') return runOpen(ctx, { server, store, receivers, paths });
  const script = urlCycleScript(paths, { 'X-Service-Key': store.v2Key });

  const before = await measure(ctx, server, 'A: no events (before)', script, true);
  const fanout = await fanoutPhase(ctx, server, store, receivers, () =>
    measure(ctx, server, 'B: with the fan-out', script, false),
  );
  const after = await measure(ctx, server, 'A: no events (after)', script, false);
  const phases = [before, fanout.phase, after];
  const summary = fanoutSummary(
    receivers.map((r) => r.update()),
    fanout.producer,
    fanout.drainedAtMs,
  );
  const p99A = (before.wrk.latencyUs.p99 + after.wrk.latencyUs.p99) / 2;
  const ratio = fanout.phase.wrk.latencyUs.p99 / p99A;
  printResults(phases, ratio, summary);
  const problems = fanoutProblems(summary);
  const path = writeResult(ctx.outDir, 'events-fanout', {
    parameters: {
      vulnerabilities,
      listPages: listPageCount,
      pageCacheMb,
      eventsPerMinute,
      webhooks: webhookCount,
      duration: ctx.duration,
      warmup: ctx.warmup ?? null,
      ...load,
    },
    phases: Object.fromEntries(phases.map((p) => [p.label, { ...p.wrk, serverCpuMs: round(p.serverCpuMs, 0) }])),
    p99Ms: {
      before: ms(before.wrk.latencyUs.p99),
      fanout: ms(fanout.phase.wrk.latencyUs.p99),
      after: ms(after.wrk.latencyUs.p99),
    },
    ratio: round(ratio, 3),
    ratioAgainstBefore: round(fanout.phase.wrk.latencyUs.p99 / before.wrk.latencyUs.p99, 3),
    targetRatio,
    producer: fanout.producer,
    fanout: { ...summary, serverCpuMsUntilDrained: round(fanout.cpuToDrainMs, 0) },
    problems,
  });
  ctx.log(`results written to ${path}`);
  if (problems.length > 0) throw new Error(`the fan-out was not complete: ${problems.join('; ')}`);
}

/** The open-loop run: A / B / A at a fixed rate, the ratio of p99s, and the fan-out's figures. */
async function runOpen(
  ctx: BenchContext,
  parts: { server: ServerProcess; store: FanoutStore; receivers: FanoutReceiver[]; paths: string[] },
): Promise<void> {
  const { server, store, receivers } = parts;
  const options = { rate: openRate, paths: parts.paths, headers: { 'X-Service-Key': store.v2Key } };
  const before = await measureOpen(ctx, server, 'A: no events (before)', options, true);
  const fanout = await fanoutPhase(ctx, server, store, receivers, () =>
    measureOpen(ctx, server, 'B: with the fan-out', options, false),
  );
  const after = await measureOpen(ctx, server, 'A: no events (after)', options, false);
  const phases: OpenPhase[] = [before, fanout.phase, after];
  const summary = fanoutSummary(
    receivers.map((r) => r.update()),
    fanout.producer,
    fanout.drainedAtMs,
  );
  const p99A = (before.open.latencyMs.p99 + after.open.latencyMs.p99) / 2;
  const ratio = fanout.phase.open.latencyMs.p99 / p99A;
  printOpen(phases, ratio, targetRatio);
  printFanout(summary);
  const problems = fanoutProblems(summary);
  const path = writeResult(ctx.outDir, 'events-fanout-open', {
    parameters: { vulnerabilities, listPages: listPageCount, pageCacheMb, eventsPerMinute, webhooks: webhookCount },
    mode: 'open',
    rate: openRate,
    duration: ctx.duration,
    phases: Object.fromEntries(phases.map((p) => [p.label, { ...p.open, serverCpuMs: round(p.serverCpuMs, 0) }])),
    ratio: round(ratio, 3),
    ratioAgainstBefore: round(fanout.phase.open.latencyMs.p99 / before.open.latencyMs.p99, 3),
    targetRatio,
    producer: fanout.producer,
    fanout: { ...summary, serverCpuMsUntilDrained: round(fanout.cpuToDrainMs, 0) },
    problems,
  });
  ctx.log(`results written to ${path}`);
  if (problems.length > 0) throw new Error(`the fan-out was not complete: ${problems.join('; ')}`);
}
