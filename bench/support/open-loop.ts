import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { percentile } from './fanout-receivers.ts';

/**
 * An open-loop load generator: requests leave on a fixed clock (`rate` a second), whatever the
 * server's answers do, and each latency runs from the request's SCHEDULED time, not from when it
 * actually left, so a stall of the server (or of this process) shows in the figures instead of
 * being hidden by requests not sent meanwhile (coordinated omission). Requests cycle through
 * `paths`, each with the headers given.
 */

/** What one open-loop phase measured (latencies in milliseconds). */
export interface OpenLoopResult {
  rate: number;
  seconds: number;
  scheduled: number;
  completed: number;
  errors: number;
  non2xx: number;
  latencyMs: { p50: number; p90: number; p99: number; p999: number; max: number };
  /** Requests answered a second (over the phase). */
  requestsPerSecond: number;
}

/** Options of runOpenLoop. */
export interface OpenLoopOptions {
  url: string;
  paths: readonly string[];
  headers: Record<string, string>;
  rate: number;
  seconds: number;
  /** Connections the generator may open (default 64: enough that the pool never queues at the rate). */
  connections?: number;
}

/** Runs one open-loop phase and answers its figures. */
export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const agent = new Agent({ connections: options.connections ?? 64, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const total = Math.floor(options.rate * options.seconds);
  const intervalMs = 1000 / options.rate;
  const started = performance.now();
  const inFlight: Array<Promise<void>> = [];
  const fire = async (index: number, scheduledAt: number) => {
    try {
      const path = options.paths[index % options.paths.length]!;
      const answer = await request(new URL(path, options.url), {
        method: 'GET',
        headers: options.headers,
        dispatcher: agent,
      });
      await answer.body.dump({ limit: Number.MAX_SAFE_INTEGER });
      if (answer.statusCode < 200 || answer.statusCode >= 300) non2xx += 1;
      latencies.push(performance.now() - scheduledAt);
    } catch {
      errors += 1;
    }
  };
  for (let i = 0; i < total; i += 1) {
    const scheduledAt = started + i * intervalMs;
    const wait = scheduledAt - performance.now();
    if (wait > 1) await sleep(wait);
    inFlight.push(fire(i, scheduledAt));
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return {
    rate: options.rate,
    seconds,
    scheduled: total,
    completed: latencies.length,
    errors,
    non2xx,
    latencyMs: {
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      p999: percentile(latencies, 99.9),
      max: percentile(latencies, 100),
    },
    requestsPerSecond: latencies.length / seconds,
  };
}
