import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { median, printRows, requireTool, timeCommand, writeDnsResult } from './dns-support.ts';
import { writeRealisticZone } from './dns-zones.ts';

const origin = 'bench-example.com';
const recordCount = Number(process.env['BENCH_DNS_ZONE_RECORDS'] ?? 120_000);
const runs = 3;
/** Fresh processes for parse + index: each gives one cold time and the peak memory of one upload. */
const indexProcesses = Number(process.env['BENCH_DNS_INDEX_PROCESSES'] ?? 5);
const child = fileURLToPath(new URL('./dns-parse-child.ts', import.meta.url));

interface ChildResult {
  records: number;
  runs: number[];
  peaks: number[];
  baselineRssMb: number;
  peakRssMb: number;
  summary: string;
}

/** Runs the parser child in a fresh process (first run cold, then warm runs). */
function runChild(file: string, mode: 'parse' | 'index', count = runs): ChildResult & { processMs: number } {
  const startedAt = performance.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', child, file, origin, mode, String(count)], {
    encoding: 'utf8',
    env: process.env,
  });
  const processMs = performance.now() - startedAt;
  if (result.status !== 0) throw new Error(`parser child (${mode}) failed:\n${result.stderr}`);
  return { ...(JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as ChildResult), processMs };
}

async function run(ctx: BenchContext): Promise<void> {
  const checkzone = requireTool('named-checkzone', 'bind9-utils');
  const dir = ctx.scope.tempDir('perimeter-bench-zone-');
  const file = join(dir, `${origin}.zone`);
  const generated = await writeRealisticZone(file, origin, recordCount);
  const megabytes = statSync(file).size / 1e6;
  ctx.log(`generated ${file}: ${megabytes.toFixed(2)} MB, ${generated.records.toLocaleString('en')} records`);

  // named-checkzone's default integrity checks look out-of-zone MX/SRV/NS names up on the
  // network; `-i local` keeps them to the zone (offline), `-i none` only loads and checks syntax.
  const tool: Record<string, { ms: number; peakMb: number | undefined }> = {};
  for (const mode of ['local', 'none']) {
    const samples = Array.from({ length: runs }, () => timeCommand(checkzone, ['-q', '-i', mode, origin, file]));
    const failed = samples.find((s) => s.status !== 0);
    if (failed !== undefined)
      throw new Error(`named-checkzone -i ${mode} refused the generated zone:\n${failed.output}`);
    tool[mode] = {
      ms: median(samples.map((s) => s.ms)),
      peakMb: Math.max(...samples.map((s) => s.peakMb ?? 0)) || undefined,
    };
  }
  const parse = runChild(file, 'parse');
  const index = runChild(file, 'index');
  if (parse.records !== index.records) throw new Error('parse and parse + index read different record counts');
  // Cold time and peak of one upload in a fresh process, several times over: the peak varies
  // by tens of MB with when V8 collects, so one sample says little.
  const fresh = Array.from({ length: indexProcesses }, () => runChild(file, 'index', 1));
  // named-checkzone's times are whole processes (start-up, load, exit): ours the same way, a
  // fresh node (with tsx) per run, timed from spawn to exit.
  const parseProcesses = Array.from({ length: runs }, () => runChild(file, 'parse', 1).processMs);
  const parseProcessMs = median(parseProcesses);
  const indexProcessMs = median(fresh.map((f) => f.processMs));
  const freshMs = fresh.map((f) => f.runs[0] ?? 0);
  const freshPeaks = fresh.map((f) => f.peaks[0] ?? f.peakRssMb);

  const reference = tool['local']?.ms ?? 1;
  const referenceNone = tool['none']?.ms ?? 1;
  const ratio = (ms: number) => `${(ms / reference).toFixed(2)}×`;
  const ratioNone = (ms: number) => `${(ms / referenceNone).toFixed(2)}×`;
  const mb = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(0));
  const parseCold = parse.runs[0] ?? 0;
  const indexCold = median(freshMs);
  const indexPeak = median(freshPeaks);
  printRows(
    `dns-zone-parse: ${megabytes.toFixed(2)} MB zone, ${parse.records.toLocaleString('en')} records (times are medians of ${runs} runs; ours cold = first run in a fresh process)`,
    ['target', 'ms', 'vs checkzone -i local', 'vs checkzone -i none', 'peak RSS MB'],
    [
      [
        'named-checkzone -i local (whole process)',
        tool['local']?.ms.toFixed(0) ?? '',
        '1.00×',
        ratioNone(reference),
        mb(tool['local']?.peakMb),
      ],
      [
        'named-checkzone -i none (whole process)',
        tool['none']?.ms.toFixed(0) ?? '',
        ratio(referenceNone),
        '1.00×',
        mb(tool['none']?.peakMb),
      ],
      [
        'perimeter parse, whole fresh process (node + tsx start-up)',
        parseProcessMs.toFixed(0),
        ratio(parseProcessMs),
        ratioNone(parseProcessMs),
        '',
      ],
      [
        `perimeter parse + index, whole fresh process (median of ${indexProcesses})`,
        indexProcessMs.toFixed(0),
        ratio(indexProcessMs),
        ratioNone(indexProcessMs),
        '',
      ],
      [
        'perimeter parse (cold, in process)',
        parseCold.toFixed(0),
        ratio(parseCold),
        ratioNone(parseCold),
        mb(parse.peaks[0]),
      ],
      [
        'perimeter parse (warm, in process)',
        median(parse.runs.slice(1)).toFixed(0),
        ratio(median(parse.runs.slice(1))),
        ratioNone(median(parse.runs.slice(1))),
        '',
      ],
      [
        `perimeter parse + index (cold, in process, median of ${indexProcesses})`,
        indexCold.toFixed(0),
        ratio(indexCold),
        ratioNone(indexCold),
        `${mb(indexPeak)} (${freshPeaks.map((p) => p.toFixed(0)).join(', ')})`,
      ],
      [
        'perimeter parse + index (warm, in process)',
        median(index.runs.slice(1)).toFixed(0),
        ratio(median(index.runs.slice(1))),
        ratioNone(median(index.runs.slice(1))),
        '',
      ],
    ],
  );
  console.log(
    `index step: ${index.summary}; node baseline RSS before parsing ${parse.baselineRssMb.toFixed(0)} MB (tsx and node); cold parse + index runs ${freshMs.map((m) => m.toFixed(0)).join(', ')} ms`,
  );
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log(
    `targets: parse ≤ 1.0× ${verdict(parseCold <= reference)} in process, ${verdict(parseProcessMs <= reference)} as a whole process (${verdict(parseProcessMs <= referenceNone)} against -i none); parse + index ≤ 2.0× ${verdict(indexCold <= 2 * reference)} in process (median of ${indexProcesses} cold runs), ${verdict(indexProcessMs <= 2 * reference)} as a whole process (${verdict(indexProcessMs <= 2 * referenceNone)} against -i none); peak memory ≤ 200 MB ${verdict(indexPeak <= 200)} (median; highest ${Math.max(...freshPeaks).toFixed(0)} MB)`,
  );
  const path = writeDnsResult(ctx.outDir, 'zoneParse', {
    file: { megabytes, records: parse.records },
    namedCheckzone: tool,
    parse: {
      runsMs: parse.runs,
      coldMs: parseCold,
      peakRssMb: parse.peakRssMb,
      baselineRssMb: parse.baselineRssMb,
      wholeProcessMs: parseProcesses,
    },
    parseAndIndex: {
      runsMs: index.runs,
      coldMs: indexCold,
      coldRunsMs: freshMs,
      peakRssMb: indexPeak,
      peaksMb: freshPeaks,
      indexer: index.summary,
      wholeProcessMs: fresh.map((f) => f.processMs),
    },
    ratios: {
      parse: parseCold / reference,
      parseAndIndex: indexCold / reference,
      parseWholeProcess: { local: parseProcessMs / reference, none: parseProcessMs / referenceNone },
      parseAndIndexWholeProcess: { local: indexProcessMs / reference, none: indexProcessMs / referenceNone },
    },
  });
  ctx.log(`results in ${path}`);
}

/** (a) Parse and parse + index of a realistic 5 MB zone, next to named-checkzone on the same file. */
export const benchmark: Benchmark = {
  name: 'dns-zone-parse',
  description: `parse and parse + index of a generated ${recordCount.toLocaleString('en')}-record zone file (about 5 MB) in a fresh process, next to named-checkzone`,
  run,
};
