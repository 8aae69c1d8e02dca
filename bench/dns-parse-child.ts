import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { parseZoneBatches } from '../src/engine/dns/zone-parser.ts';
import { drainBatches, loadIndexer } from './dns-support.ts';

/**
 * Child process of the dns-zone-parse benchmark: parses (and with `index`, indexes) a zone file
 * `runs` times in a fresh process, so the first run is cold, with the peak RSS of each run (the
 * store is opened before the high-water mark is reset). Prints one JSON line. Usage: dns-parse-child.ts <file> <origin> <parse|index> <runs>
 */
const [file, origin, mode, runsText] = process.argv.slice(2);
if (file === undefined || origin === undefined || (mode !== 'parse' && mode !== 'index')) {
  console.error('usage: dns-parse-child.ts <file> <origin> <parse|index> <runs>');
  process.exit(2);
}
const baselineRssMb = process.memoryUsage().rss / 2 ** 20;
const runs: number[] = [];
/** Peak RSS of each run (MB): the kernel's high-water mark, reset before each run. */
const peaks: number[] = [];
const highWaterMb = () => Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
const resetHighWater = () => {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Kernels before 4.0 cannot reset it: the peaks are then cumulative.
  }
};
let records = 0;
let summary = '';
for (let run = 0; run < Number(runsText ?? 1); run += 1) {
  // The indexer's setup (opening a fresh store) is not indexing: it happens before the clock starts.
  const indexer = mode === 'index' ? await loadIndexer(origin) : undefined;
  resetHighWater();
  const startedAt = performance.now();
  ({ records, summary } = await drainBatches(
    parseZoneBatches(createReadStream(file, { highWaterMark: 1 << 16 }), { origin }),
    indexer,
  ));
  runs.push(performance.now() - startedAt);
  peaks.push(highWaterMb());
}
const peakRssMb = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ records, runs, peaks, baselineRssMb, peakRssMb, summary }));
