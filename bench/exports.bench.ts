import { readFileSync } from 'node:fs';
import pino from 'pino';
import { defaultConfig } from '../src/config/config.ts';
import { createApiKey } from '../src/core/teams/api-key.service.ts';
import { openRuntime } from '../src/runtime.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { writeResult } from './support/report.ts';
import { startPerimeter } from './support/server.ts';
import { seededVulnerabilities } from './support/vulnerability-store.ts';

/** Vulnerabilities of the seeded team (the store is seeded once and cached, as vulnerabilities.bench does). */
const count = Number(process.env['BENCH_EXPORT_VULNS'] ?? 1_000_000);
/** Targets of issue 35: rows per second and the server's RSS growth during one export. */
const minRowsPerSecond = 50_000;
const maxRssGrowthMb = 100;

/**
 * A process's resident set in MB (VmRSS), its peak so far (VmHWM) and the parts of the resident
 * set: anonymous memory (RssAnon: the heap, the process's own) and mapped files (RssFile: the
 * SQLite store is memory-mapped, so the pages of the file a read touches count here, shared
 * with the kernel's page cache and given back under memory pressure).
 */
function memoryOf(pid: number): { rssMb: number; hwmMb: number; anonMb: number; fileMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return {
    rssMb: kb('VmRSS') / 1024,
    hwmMb: kb('VmHWM') / 1024,
    anonMb: kb('RssAnon') / 1024,
    fileMb: kb('RssFile') / 1024,
  };
}

interface ExportRun {
  format: string;
  rows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssGrowthMb: number;
  anonBeforeMb: number;
  anonPeakMb: number;
  anonGrowthMb: number;
  fileGrowthAtPeakMb: number;
}

/** One export through the HTTP server, read as fast as it comes; the server's RSS sampled every 20 ms. */
async function exportOnce(url: string, key: string, pid: number, format: string): Promise<ExportRun> {
  const start = memoryOf(pid);
  const before = start.rssMb;
  let peak = before;
  let anonPeak = start.anonMb;
  let fileAtPeak = start.fileMb;
  const sample = () => {
    const m = memoryOf(pid);
    if (m.rssMb > peak) {
      peak = m.rssMb;
      fileAtPeak = m.fileMb;
    }
    anonPeak = Math.max(anonPeak, m.anonMb);
  };
  const sampler = setInterval(sample, 20);
  const started = performance.now();
  let rows = 0;
  let bytes = 0;
  try {
    const res = await fetch(`${url}/rest/v3/exports/vulnerabilities?format=${format}`, {
      headers: { authorization: key },
    });
    if (res.status !== 200 || res.body === null) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      const bytesOf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let i = bytesOf.indexOf(10); i !== -1; i = bytesOf.indexOf(10, i + 1)) rows++;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  sample();
  // CSV has a header row (and CRLF ends: one LF per record); NDJSON one line per row.
  if (format === 'csv') rows -= 1;
  return {
    format,
    rows,
    bytes,
    seconds,
    rowsPerSecond: rows / seconds,
    rssBeforeMb: before,
    rssPeakMb: peak,
    rssGrowthMb: peak - before,
    anonBeforeMb: start.anonMb,
    anonPeakMb: anonPeak,
    anonGrowthMb: anonPeak - start.anonMb,
    fileGrowthAtPeakMb: fileAtPeak - start.fileMb,
  };
}

async function run(ctx: BenchContext): Promise<void> {
  const seeded = await seededVulnerabilities('sqlite', count, ctx.log);
  // The seed's key is a v2 key; exports are v3: one more key of the team, before the server starts.
  const runtime = await openRuntime(
    { ...defaultConfig, dataDir: seeded.dataDir, secretKey: seeded.env['PERIMETER_SECRET_KEY']!, logLevel: 'warn' },
    { log: pino({ level: 'warn' }) },
  );
  const { key } = await createApiKey(runtime.store, runtime.box, {
    teamName: 'bench',
    kind: 'v3',
    signing: false,
    permissions: [],
  });
  await runtime.close();
  const server = await startPerimeter(ctx.scope, {
    dataDir: seeded.dataDir,
    env: { ...seeded.env, PERIMETER_ROLES: 'api', PERIMETER_DNS_RESOLVERS: '127.0.0.1:1' },
  });
  // One small request first, so the RSS before is that of a server that has served.
  await (await fetch(`${server.url}/rest/v3/exports/ips?format=csv`, { headers: { authorization: key } })).text();
  const runs: ExportRun[] = [];
  for (const format of ['csv', 'ndjson']) {
    ctx.log(`exporting ${count.toLocaleString('en')} vulnerabilities as ${format}`);
    runs.push(await exportOnce(server.url, key, server.pid, format));
  }
  const hwm = memoryOf(server.pid).hwmMb;
  await server.stop();
  console.log(
    `\nexports on sqlite: ${count.toLocaleString('en')} vulnerabilities (server VmHWM at the end ${hwm.toFixed(0)} MB)`,
  );
  for (const r of runs)
    console.log(
      `  ${r.format.padEnd(7)} ${r.rows.toLocaleString('en')} rows, ${(r.bytes / 1e6).toFixed(0)} MB in ${r.seconds.toFixed(1)} s: ` +
        `${r.rowsPerSecond.toFixed(0)} rows/s (target >= ${minRowsPerSecond}); RSS ${r.rssBeforeMb.toFixed(0)} -> peak ${r.rssPeakMb.toFixed(0)} MB, ` +
        `growth ${r.rssGrowthMb.toFixed(0)} MB (target <= ${maxRssGrowthMb}; of it mapped store file ${r.fileGrowthAtPeakMb.toFixed(0)} MB), ` +
        `anonymous ${r.anonBeforeMb.toFixed(0)} -> peak ${r.anonPeakMb.toFixed(0)} MB (growth ${r.anonGrowthMb.toFixed(0)} MB): ` +
        (r.rowsPerSecond >= minRowsPerSecond && r.rssGrowthMb <= maxRssGrowthMb ? 'met' : 'MISSED'),
    );
  writeResult(ctx.outDir, 'exports', { count, minRowsPerSecond, maxRssGrowthMb, vmHwmMb: hwm, runs });
}

/** A million vulnerabilities exported as CSV and NDJSON through the HTTP server. */
export const benchmark: Benchmark = {
  name: 'exports',
  description: `vulnerability export of ${count.toLocaleString('en')} rows on sqlite as CSV and NDJSON through the HTTP server: rows/s (target ≥ ${minRowsPerSecond.toLocaleString('en')}) and server RSS growth (target ≤ ${maxRssGrowthMb} MB)`,
  run,
};
