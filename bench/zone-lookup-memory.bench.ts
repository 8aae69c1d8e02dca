import { readFileSync } from 'node:fs';
import { startBind } from '../test/support/bind-server.ts';
import type { Benchmark, BenchContext } from './support/benchmark.ts';
import { writeResult } from './support/report.ts';
import { seedTeam } from './support/seed.ts';
import { startPerimeter } from './support/server.ts';

const listBytes = Number(process.env['BENCH_LOOKUP_MB'] ?? 50) * 1024 * 1024 - 1;
const zoneNames = 20_000;

/** Resident and peak resident memory of a process, from /proc (MB). */
function memoryOf(pid: number): { rss: number; hwm: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  // RssFile is the mapped store file (reclaimable page cache); RssAnon is the process's own memory.
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024, anon: kb('RssAnon') / 1024, file: kb('RssFile') / 1024 };
}

/** A list of about `bytes` names under the zone: every tenth exists, the rest answer NXDOMAIN. */
function* listChunks(bytes: number): Generator<Buffer> {
  let written = 0;
  let i = 0;
  while (written < bytes) {
    const lines: string[] = [];
    for (let k = 0; k < 10_000; k++, i++) {
      lines.push(
        i % 10 === 0 ? `host${(i / 10) % zoneNames}.lookup.test` : `absent-${i}-${'x'.repeat(60)}.lookup.test`,
      );
    }
    let chunk = Buffer.from(`${lines.join('\n')}\n`);
    // Stay under the 50 MB limit: cut the last chunk at a line end.
    if (written + chunk.length > bytes) chunk = chunk.subarray(0, chunk.lastIndexOf(10, bytes - written - 1) + 1);
    written += chunk.length;
    if (chunk.length === 0) return;
    yield chunk;
  }
}

async function run(ctx: BenchContext): Promise<void> {
  const zone = ['$TTL 300', '@ IN SOA ns1 hostmaster 1 7200 3600 1209600 300', '@ IN NS ns1', 'ns1 IN A 192.0.2.53'];
  for (let i = 0; i < zoneNames; i++) zone.push(`host${i} IN A 192.0.2.${i % 250}`);
  const bind = await startBind([{ name: 'lookup.test', text: `${zone.join('\n')}\n` }], { threads: 1 });
  ctx.scope.defer('stop named', () => bind.stop());
  const dataDir = ctx.scope.tempDir('perimeter-bench-lookup-');
  const { runtime, v2Key, teamId } = await seedTeam(dataDir);
  await runtime.database.db
    .insertInto('assets')
    .values({
      team_id: teamId,
      token: 'f'.repeat(32),
      uuid: 'lookup-root',
      name: 'lookup.test',
      kind: 'domain',
      port: null,
      is_root: 1,
      root_id: null,
      status: 'verified',
      added_by: '["manual"]',
      monitored: 0,
      settings: null,
      created: Date.now(),
      updated: Date.now(),
      discovered: Date.now(),
      last_seen: Date.now(),
      verified_at: Date.now(),
      checked_at: null,
    })
    .execute();
  await runtime.close();

  const server = await startPerimeter(ctx.scope, {
    dataDir,
    env: { PERIMETER_DNS_RESOLVERS: bind.address, PERIMETER_EGRESS_ALLOW: '127.0.0.0/8' },
  });
  const samples: Array<{ at: number; phase: string; rss: number; anon: number; file: number; progress: number }> = [];
  const started = performance.now();
  let phase = 'upload';
  let progress = 0;
  const sampler = setInterval(
    () => samples.push({ at: Math.round(performance.now() - started), phase, progress, ...memoryOf(server.pid) }),
    100,
  );
  try {
    const baseline = memoryOf(server.pid).rss;
    const body = listChunks(listBytes);
    const res = await fetch(`${server.url}/rest/v2/zone/lookup/file/`, {
      method: 'POST',
      headers: { 'x-service-key': v2Key, 'content-type': 'text/plain' },
      body: new ReadableStream({
        pull(controller) {
          const next = body.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
      }),
      duplex: 'half',
    } as RequestInit);
    if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    const { lookup_job_uuid: uuid } = (await res.json()) as { lookup_job_uuid: string };
    const uploadSeconds = (performance.now() - started) / 1000;
    ctx.log(`uploaded ${(listBytes / 1024 / 1024).toFixed(0)} MB in ${uploadSeconds.toFixed(1)} s; job ${uuid}`);
    phase = 'job';
    let status: { status: string; total: number; succeeded: number; failed: number };
    const jobStarted = performance.now();
    for (;;) {
      status = (await (
        await fetch(`${server.url}/rest/v2/zone/lookup/${uuid}/`, { headers: { 'x-service-key': v2Key } })
      ).json()) as typeof status;
      progress = status.total === 0 ? 0 : (status.succeeded + status.failed) / status.total;
      if (status.status === 'done' || status.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const jobSeconds = (performance.now() - jobStarted) / 1000;
    clearInterval(sampler);
    // Quarters of the job's duration: progress is read by polling and moves in jumps.
    const job = samples.filter((s) => s.phase === 'job');
    const [jobStart, jobEnd] = [job[0]?.at ?? 0, job[job.length - 1]?.at ?? 0];
    const peakBy = (from: number, to: number, key: 'rss' | 'anon') => {
      const inQuarter = job.filter(
        (s) =>
          (s.at - jobStart) / Math.max(1, jobEnd - jobStart) >= from &&
          (s.at - jobStart) / Math.max(1, jobEnd - jobStart) < to,
      );
      return Math.max(...inQuarter.map((s) => s[key]), 0);
    };
    const uploadPeak = Math.max(...samples.filter((s) => s.phase === 'upload').map((s) => s.rss), 0);
    const quarters = [
      peakBy(0, 0.25, 'rss'),
      peakBy(0.25, 0.5, 'rss'),
      peakBy(0.5, 0.75, 'rss'),
      peakBy(0.75, 1.01, 'rss'),
    ];
    const anonQuarters = [
      peakBy(0, 0.25, 'anon'),
      peakBy(0.25, 0.5, 'anon'),
      peakBy(0.5, 0.75, 'anon'),
      peakBy(0.75, 1.01, 'anon'),
    ];
    console.log(
      `\nzone-lookup-memory: ${(listBytes / 1024 / 1024).toFixed(0)} MB list, ${status.total.toLocaleString('en')} names (${status.succeeded} resolved, ${status.failed} failed), job ${jobSeconds.toFixed(1)} s (${(status.total / jobSeconds).toFixed(0)} names/s)`,
    );
    const end = memoryOf(server.pid);
    console.log(
      `server RSS: idle ${baseline.toFixed(0)} MB, upload peak ${uploadPeak.toFixed(0)} MB, job peak by quarter of its duration: ${quarters.map((q) => q.toFixed(0)).join(' / ')} MB, high-water mark ${end.hwm.toFixed(0)} MB`,
    );
    console.log(
      `  of which anonymous (heap, SQLite page cache): ${anonQuarters.map((q) => q.toFixed(0)).join(' / ')} MB; mapped store file at the end: ${end.file.toFixed(0)} MB`,
    );
    writeResult(ctx.outDir, 'zone-lookup-memory', {
      listBytes,
      status,
      uploadSeconds,
      jobSeconds,
      baselineMb: baseline,
      uploadPeakMb: uploadPeak,
      jobPeakByQuarterMb: quarters,
      jobAnonPeakByQuarterMb: anonQuarters,
      samples,
    });
  } finally {
    clearInterval(sampler);
    await server.stop();
  }
}

/** Peak memory of the server while it receives and works a 50 MB lookup list (target: flat). */
export const benchmark: Benchmark = {
  name: 'zone-lookup-memory',
  description:
    'zone lookup job over a 50 MB list against BIND on 127.0.0.1: server RSS during upload and by quarter of the job (target: flat)',
  run,
};
