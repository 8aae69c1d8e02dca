import type { BenchContext } from './benchmark.ts';
import { runWrk, type WrkOptions, type WrkResult } from './wrk.ts';

/**
 * The bare server measured between our runs, not once at the end: on shared cores the floor
 * moves by ±25 % between runs, so each of our figures is set against the bare runs just before
 * and just after it.
 */
export class BareSeries {
  readonly runs: WrkResult[] = [];

  constructor(
    private readonly ctx: BenchContext,
    private readonly options: Omit<WrkOptions, 'duration'>,
  ) {}

  /** One measured bare run (warmed up like ours); call it before our first run and after each. */
  async measure(): Promise<WrkResult> {
    const result = await measured(this.ctx, 'bare node:http', this.options);
    this.runs.push(result);
    return result;
  }

  /** Our throughput over the mean of the two bare runs around it (the last two measured). */
  ratio(ours: WrkResult): { ratio: number; bareRps: number } {
    const around = this.runs.slice(-2);
    const bareRps = around.reduce((sum, r) => sum + r.requestsPerSecond, 0) / around.length;
    return { ratio: ours.requestsPerSecond / bareRps, bareRps };
  }
}

/** A warm-up run (BENCH_WARMUP) then the measured one (BENCH_DURATION). */
export async function measured(
  ctx: BenchContext,
  label: string,
  options: Omit<WrkOptions, 'duration'>,
): Promise<WrkResult> {
  if (ctx.warmup !== undefined) {
    ctx.log(`${label}: warming up for ${ctx.warmup}`);
    await runWrk(ctx.scope, { ...options, duration: ctx.warmup });
  }
  ctx.log(`${label}: measuring for ${ctx.duration} (${options.connections} connections)`);
  return runWrk(ctx.scope, { ...options, duration: ctx.duration });
}
