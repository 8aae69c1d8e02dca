import { spawn, spawnSync } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeQuery, readHeader } from '../src/engine/dns/wire.ts';
import type { ZoneRecord } from '../src/engine/dns/zone-record.ts';
import { startBind } from '../test/support/bind-server.ts';
import { machineInfo } from './support/report.ts';
import type { Scope } from './support/scope.ts';

/** Path of a program on PATH or in the sbin folders, or undefined. */
export function findProgram(program: string): string | undefined {
  for (const dir of [...(process.env['PATH'] ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin']) {
    if (dir !== '' && existsSync(join(dir, program))) return join(dir, program);
  }
  return undefined;
}

/** Like findProgram, but a missing tool stops the benchmark with the Debian package to install. */
export function requireTool(program: string, debianPackage: string): string {
  const path = findProgram(program);
  if (path === undefined) throw new Error(`${program} is needed by this benchmark: apt-get install ${debianPackage}`);
  return path;
}

/**
 * The indexing step after parsing or transferring: a callback per batch of records, then one at
 * the end. The engine benchmarks default to the in-memory stand-in below; when the store's
 * indexer exists, set BENCH_DNS_INDEXER to a module exporting `createIndexer(origin)`.
 */
export interface RecordIndexer {
  add(batch: ZoneRecord[]): void | Promise<void>;
  finish(): void | Promise<void>;
  /** One line saying what was indexed, for the report. */
  summary(): string;
}

/**
 * The engine's share of indexing without a store: each batch is grouped by owner under the
 * zone into the upsert set a store indexer would write (one subdomain per name with its
 * records); the sets are dropped, so only the grouping is measured, not a database.
 */
export function createMemoryIndexer(origin: string): RecordIndexer {
  const suffix = `.${origin}`;
  let records = 0;
  let groups = 0;
  return {
    add(batch) {
      const upsert = new Map<string, ZoneRecord[]>();
      for (const record of batch) {
        if (record.name !== origin && !record.name.endsWith(suffix)) continue;
        const group = upsert.get(record.name);
        if (group === undefined) upsert.set(record.name, [record]);
        else group.push(record);
      }
      records += batch.length;
      groups += upsert.size;
    },
    finish() {},
    summary: () =>
      `in-memory stand-in: ${records.toLocaleString('en')} records grouped into ${groups.toLocaleString('en')} per-batch owner sets`,
  };
}

/** The indexer of BENCH_DNS_INDEXER: the store's (default), `memory` for the stand-in, or a module path. */
export async function loadIndexer(origin: string): Promise<RecordIndexer> {
  const module = process.env['BENCH_DNS_INDEXER'] ?? './dns-store-indexer.ts';
  if (module === 'memory') return createMemoryIndexer(origin);
  const loaded = (await import(module)) as { createIndexer(origin: string): RecordIndexer | Promise<RecordIndexer> };
  return loaded.createIndexer(origin);
}

/**
 * Drains a stream of record batches, each through the indexer when there is one (finished at
 * the end). Returns the record count and the indexer's summary ('' without one).
 */
export async function drainBatches(
  batches: AsyncIterable<ZoneRecord[]>,
  indexer: RecordIndexer | undefined,
): Promise<{ records: number; summary: string }> {
  let records = 0;
  for await (const batch of batches) {
    records += batch.length;
    if (indexer !== undefined) await indexer.add(batch);
  }
  if (indexer === undefined) return { records, summary: '' };
  await indexer.finish();
  return { records, summary: indexer.summary() };
}

/** Wall time of a command (ms) and its peak RSS (MB, from GNU time when installed). */
export function timeCommand(
  command: string,
  args: string[],
  options: { discardStdout?: boolean } = {},
): { ms: number; peakMb: number | undefined; status: number; output: string } {
  const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
  // A tool's own output goes to /dev/null when asked, so reading it does not count against it.
  const spawnOptions = {
    encoding: 'utf8' as const,
    maxBuffer: 1 << 28,
    stdio: ['ignore', options.discardStdout === true ? 'ignore' : 'pipe', 'pipe'] as [
      'ignore',
      'ignore' | 'pipe',
      'pipe',
    ],
  };
  const startedAt = performance.now();
  const result =
    gnuTime === undefined
      ? spawnSync(command, args, spawnOptions)
      : spawnSync(gnuTime, ['-f', 'PEAK_KB %M', command, ...args], spawnOptions);
  const ms = performance.now() - startedAt;
  const peak = /PEAK_KB (\d+)/.exec(result.stderr ?? '');
  return {
    ms,
    peakMb: peak === null ? undefined : Number(peak[1]) / 1024,
    status: result.status ?? -1,
    output: `${result.stdout ?? ''}${result.stderr ?? ''}`,
  };
}

/** Median of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** An authoritative server for the lookup and transfer benchmarks. */
export interface AuthoritativeServer {
  kind: 'nsd' | 'named';
  port: number;
  address: string;
}

/** Waits until something answers DNS on 127.0.0.1:port. */
async function waitForDns(port: number, zone: string, timeoutMs: number, isAlive: () => boolean): Promise<void> {
  const socket = dgram.createSocket('udp4');
  let isAnswered = false;
  // Only an answer without error counts: NSD answers SERVFAIL for a zone it failed to load.
  socket.on('message', (message: Buffer) => (isAnswered = readHeader(message).rcode === 0));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  try {
    const deadline = Date.now() + timeoutMs;
    while (!isAnswered) {
      if (!isAlive()) throw new Error('the DNS server exited before answering');
      if (Date.now() > deadline)
        throw new Error(`no answer for the zone ${zone} on 127.0.0.1:${port} within ${timeoutMs} ms (did it load?)`);
      socket.send(encodeQuery(1, zone, 6, { isRecursionDesired: false }), port, '127.0.0.1');
      await sleep(100);
    }
  } finally {
    socket.close();
  }
}

/**
 * Serves a zone on 127.0.0.1:port: NSD when installed (the lighter server the figures
 * were measured against; one server process, response rate limiting off, AXFR to 127.0.0.1),
 * otherwise BIND. Port 53 is what adnshost can use (adns has no port setting).
 */
export async function startAuthoritative(
  scope: Scope,
  zone: string,
  zoneText: string,
  port: number,
): Promise<AuthoritativeServer> {
  const nsd = findProgram('nsd');
  if (nsd === undefined) {
    const bind = await startBind([{ name: zone, text: zoneText }], { port, threads: 1 });
    scope.defer('stop named', () => bind.stop());
    return { kind: 'named', port, address: `127.0.0.1:${port}` };
  }
  const dir = scope.tempDir('perimeter-bench-nsd-');
  writeFileSync(join(dir, 'zone'), zoneText);
  writeFileSync(
    join(dir, 'nsd.conf'),
    `server:\n  ip-address: 127.0.0.1@${port}\n  do-ip6: no\n  username: ""\n  chroot: ""\n  zonesdir: "${dir}"\n  database: ""\n` +
      `  pidfile: "${dir}/nsd.pid"\n  xfrdfile: "${dir}/xfrd.state"\n  zonelistfile: "${dir}/zone.list"\n  server-count: 1\n  verbosity: 0\n  rrl-ratelimit: 0\n` +
      `remote-control:\n  control-enable: no\nzone:\n  name: ${zone}\n  zonefile: zone\n  provide-xfr: 127.0.0.1 NOKEY\n`,
  );
  const child = spawn(nsd, ['-d', '-c', join(dir, 'nsd.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4096)));
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4096)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  scope.defer('stop nsd', async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  try {
    await waitForDns(port, zone, 60_000, () => child.exitCode === null);
  } catch (err) {
    throw new Error(`nsd did not start: ${(err as Error).message}\n${log}`, { cause: err });
  }
  return { kind: 'nsd', port, address: `127.0.0.1:${port}` };
}

/** True when this process may bind 127.0.0.1:53 (root, and nothing listening there). */
export async function canUsePort53(): Promise<boolean> {
  const socket = dgram.createSocket('udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(53, '127.0.0.1', () => resolve());
    });
    return true;
  } catch {
    return false;
  } finally {
    try {
      socket.close();
    } catch {
      // Never bound.
    }
  }
}

/** Merges one benchmark's section into `.bench/dns.json`, keeping the others' sections. */
export function writeDnsResult(outDir: string, section: string, data: Record<string, unknown>): string {
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, 'dns.json');
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    // First section of the file.
  }
  current[section] = { measuredAt: new Date().toISOString(), ...data };
  current['machine'] = machineInfo();
  writeFileSync(path, `${JSON.stringify(current, null, 2)}\n`);
  return path;
}

/** Prints an aligned table: the first column left, the others right. */
export function printRows(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const format = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  console.log(`\n${title}`);
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(format(row));
}
