import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import type { WrkResult } from './wrk.ts';

/** One line of a result table. */
export interface TableRow {
  label: string;
  result: WrkResult;
}

function ms(us: number): string {
  return (us / 1000).toFixed(2);
}

/** Prints requests/s, p50, p99 (and p90, max) of each target as an aligned table on stdout. */
export function printTable(title: string, rows: TableRow[]): void {
  const header = ['target', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'requests'];
  const lines = rows.map(({ label, result }) => [
    label,
    result.requestsPerSecond.toFixed(0),
    ms(result.latencyUs.p50),
    ms(result.latencyUs.p90),
    ms(result.latencyUs.p99),
    ms(result.latencyUs.max),
    String(result.requests),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(format(line));
}

/** The machine a result was measured on, stored with it. */
export function machineInfo(): Record<string, unknown> {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** Writes `<outDir>/<name>.json` (the folder is git-ignored) and returns its path. */
export function writeResult(outDir: string, name: string, data: Record<string, unknown>): string {
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, `${name}.json`);
  writeFileSync(
    path,
    `${JSON.stringify({ benchmark: name, measuredAt: new Date().toISOString(), machine: machineInfo(), ...data }, null, 2)}\n`,
  );
  return path;
}
