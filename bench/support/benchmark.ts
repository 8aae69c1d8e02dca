import { fileURLToPath } from 'node:url';
import type { Scope } from './scope.ts';

/** Root of the repository: the server is started from here and results go to `.bench/` in it. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** What the runner hands a benchmark. */
export interface BenchContext {
  /** Cleanup registry; the runner closes it after the benchmark, also on failure or Ctrl-C. */
  scope: Scope;
  /** wrk duration of a measured run (`10s` unless BENCH_DURATION says otherwise). */
  duration: string;
  /** wrk duration of the unmeasured warm-up before each measured run; undefined skips it. */
  warmup: string | undefined;
  /** Folder of the JSON results (`.bench/`, git-ignored). */
  outDir: string;
  /** Progress line on stderr, prefixed with the benchmark name. */
  log(message: string): void;
}

/** A named benchmark: one `*.bench.ts` file exports one, and bench/run.ts lists it. */
export interface Benchmark {
  name: string;
  /** One line: what is measured. */
  description: string;
  run(ctx: BenchContext): Promise<void>;
}

/** Parses a wrk duration (`30`, `30s`, `2m`); a bare number means seconds. */
export function parseDuration(raw: string, variable: string): string {
  const text = raw.trim();
  if (!/^\d+[smh]?$/.test(text) || /^0+[smh]?$/.test(text))
    throw new Error(`${variable} must be a duration such as 10s, 30 or 2m, got "${raw}"`);
  return /\d$/.test(text) ? `${text}s` : text;
}
