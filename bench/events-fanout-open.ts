import { durationSeconds } from './events-fanout-support.ts';
import type { BenchContext } from './support/benchmark.ts';
import type { OpenLoopResult } from './support/open-loop.ts';
import { runOpenLoopOnThread } from './support/open-loop-thread.ts';
import { processCpuMs } from './support/process-cpu.ts';
import type { ServerProcess } from './support/server.ts';

/** One open-loop phase of events-fanout: the list's figures at a fixed rate and the server's CPU time over it. */
export interface OpenPhase {
  label: string;
  open: OpenLoopResult;
  serverCpuMs: number;
}

/** Measures the list at a fixed rate for the bench's duration (after a warm-up at the same rate when `warm`), from a thread of its own. */
export async function measureOpen(
  ctx: BenchContext,
  server: ServerProcess,
  label: string,
  options: { rate: number; paths: string[]; headers: Record<string, string> },
  warm: boolean,
): Promise<OpenPhase> {
  const load = { url: server.url, paths: options.paths, headers: options.headers, rate: options.rate };
  if (warm && ctx.warmup !== undefined) {
    ctx.log(`${label}: warming up for ${ctx.warmup}`);
    await runOpenLoopOnThread({ ...load, seconds: durationSeconds(ctx.warmup) });
  }
  ctx.log(`${label}: measuring for ${ctx.duration} (open loop, ${options.rate} requests/s)`);
  const cpuBefore = processCpuMs(server.pid);
  const open = await runOpenLoopOnThread({ ...load, seconds: durationSeconds(ctx.duration) });
  return { label, open, serverCpuMs: processCpuMs(server.pid) - cpuBefore };
}

/** Prints the open-loop phases and the ratio of B's p99 to the A runs' mean. */
export function printOpen(phases: OpenPhase[], ratio: number, targetRatio: number): void {
  for (const p of phases) {
    const l = p.open.latencyMs;
    console.log(
      `${p.label.padEnd(24)} ${p.open.completed}/${p.open.scheduled} answered (${p.open.errors} errors, ${p.open.non2xx} non-2xx), ` +
        `${p.open.requestsPerSecond.toFixed(0)} req/s; latency from the scheduled time p50 ${l.p50.toFixed(1)}, p90 ${l.p90.toFixed(1)}, ` +
        `p99 ${l.p99.toFixed(1)}, p99.9 ${l.p999.toFixed(1)}, max ${l.max.toFixed(1)} ms; server CPU ${(p.serverCpuMs / p.open.completed).toFixed(2)} ms a request`,
    );
  }
  const [a1, b, a2] = phases as [OpenPhase, OpenPhase, OpenPhase];
  console.log(
    `p99 A ${a1.open.latencyMs.p99.toFixed(1)} / ${a2.open.latencyMs.p99.toFixed(1)} ms (before / after), ` +
      `p99 B ${b.open.latencyMs.p99.toFixed(1)} ms: ratio ${ratio.toFixed(2)} (target ≤ ${targetRatio})`,
  );
}
