import { isIP } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import type { Asset } from '../assets/asset.types.ts';
import { appError } from '../errors/app-error.ts';
import { isUuid, newUuid } from '../shared/ids.ts';
import type { Transactional } from '../shared/transactional.ts';
import type { FindingInput } from '../vulnerabilities/vulnerability.types.ts';
import { parseImport } from './import-formats.ts';
import {
  ImportParseError,
  type ImportCounts,
  type ImportFormat,
  type ImportJob,
  type ImportRepositories,
  type ImportStore,
  type ImportTeam,
  type ImportWriters,
  type ParsedFinding,
  type ParsedHost,
  type ParsedImport,
} from './import.types.ts';

/** The largest file an import takes (the body past it answers 1052). */
export const importLimit = 32 * 1024 * 1024;
/** How long an import's status stays readable after upload. */
export const importRetentionMs = 30 * 86_400_000;
/** Size of a stored chunk of the upload (cut at a line end when one is near). */
const chunkChars = 256 * 1024;

export function emptyCounts(): ImportCounts {
  return {
    lines: 0,
    results: 0,
    findingsCreated: 0,
    findingsUpdated: 0,
    skipped: 0,
    portsRecorded: 0,
    hostsSkipped: 0,
  };
}

/**
 * Stores an uploaded file chunk by chunk as it streams in (never whole in memory while it
 * arrives), in one transaction: a refused upload (too large, bad signature, empty) leaves
 * nothing. The import becomes `queued`; the caller enqueues its job after commit.
 */
export async function createImport(
  store: ImportStore,
  team: ImportTeam,
  format: ImportFormat,
  body: AsyncIterable<Buffer>,
): Promise<ImportJob> {
  const now = new Date();
  await store.imports.purgeBefore(new Date(now.getTime() - importRetentionMs));
  let hasRun = false;
  return store.transaction(async (tx) => {
    if (hasRun)
      throw new Error('import upload: rolled back to break a deadlock; its streamed body cannot be read again');
    hasRun = true;
    const job = await tx.imports.create({
      uuid: newUuid(),
      teamId: team.id,
      format,
      status: 'queued',
      progress: 0,
      bytes: 0,
      chunks: 0,
      counts: emptyCounts(),
      error: null,
      errorLine: null,
      created: now,
      started: null,
      finished: null,
    });
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let seq = 0;
    let bytes = 0;
    let lines = 0;
    for await (const part of body) {
      bytes += part.length;
      const text = decoder.write(part);
      assertNoNul(text, lines);
      lines += lineEnds(text);
      pending += text;
      while (pending.length >= chunkChars * 2) {
        // A cut between the halves of a surrogate pair would store two invalid strings.
        const cut = isHighSurrogate(pending.charCodeAt(chunkChars - 1)) ? chunkChars - 1 : chunkChars;
        await tx.imports.addChunk(job.id, seq++, pending.slice(0, cut));
        pending = pending.slice(cut);
      }
    }
    const rest = decoder.end();
    assertNoNul(rest, lines);
    pending += rest;
    if (pending.length > 0) await tx.imports.addChunk(job.id, seq++, pending);
    await tx.imports.finishUpload(job.id, bytes, seq);
    return { ...job, bytes, chunks: seq };
  });
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

function lineEnds(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

/** 1051 naming the line when the upload holds NUL: none of the formats is a binary file (and no store keeps NUL in text alike). */
function assertNoNul(text: string, linesBefore: number): void {
  const at = text.indexOf('\u0000');
  if (at === -1) return;
  const line = linesBefore + lineEnds(text.slice(0, at)) + 1;
  throw appError(
    1051,
    `Request body malformed: line ${line} holds a NUL character (U+0000); the file must be text (JSON Lines, JSON or XML)`,
  );
}

/** An import of the team; undefined for an unknown, malformed, expired or another team's id (alike). */
export async function findImport(
  store: ImportStore,
  team: ImportTeam,
  id: string,
  now = Date.now(),
): Promise<ImportJob | undefined> {
  if (!isUuid(id)) return undefined;
  const job = await store.imports.findForTeam(team.id, id.toLowerCase());
  if (job === undefined || job.created.getTime() < now - importRetentionMs) return undefined;
  return job;
}

/** 4150 for a missing or unknown `format`. */
export function unknownImportFormat(value: unknown): Error {
  const given = value === undefined ? 'missing' : `malformed: ${JSON.stringify(value)}`;
  return appError(4150, `Query parameter format ${given}; expected one of nuclei, zap, sarif, nmap`, ['format']);
}

/** The asset a host of a file lands on: the team's asset of that name, else the root domain asset it lies under. */
async function assetOfHost(tx: ImportRepositories, teamId: number, host: string): Promise<Asset | undefined> {
  const exact = await tx.assets.findByName(teamId, host);
  if (exact !== undefined) return exact;
  if (isIP(host) !== 0) return undefined;
  const labels = host.split('.');
  const parents = labels.slice(1, -1).map((_, i) => labels.slice(i + 1).join('.'));
  if (parents.length === 0) return undefined;
  const roots = (await tx.assets.findRootsByName(teamId, parents)).filter((a) => a.kind === 'domain');
  return roots.sort((a, b) => b.name.length - a.name.length)[0];
}

/** The root asset of an asset (itself when it is one). */
async function rootOf(tx: ImportRepositories, teamId: number, asset: Asset): Promise<Asset | undefined> {
  return asset.rootId === null || asset.isRoot ? asset : tx.assets.findById(teamId, asset.rootId);
}

/** What the writes of one import share: its transaction, writers, job, counts and host lookups (cached). */
interface WriteRun<R extends ImportRepositories> {
  tx: R;
  writers: ImportWriters<R>;
  job: ImportJob;
  counts: ImportCounts;
  lookup(host: string): Promise<Asset | undefined>;
}

/** An open port as the port inventory takes it. */
type OpenPort = { address: string; port: number; domainName: string; service: ParsedHost['open'][number]['service'] };

/**
 * Writes a parsed file for the team, in the caller's transaction: the findings of each asset
 * through the ingestion (never patching), the open ports of each root asset through the port
 * inventory. Hosts that are not the team's assets are skipped and counted.
 */
async function writeParsed<R extends ImportRepositories>(
  tx: R,
  writers: ImportWriters<R>,
  job: ImportJob,
  parsed: ParsedImport,
): Promise<ImportCounts> {
  const counts: ImportCounts = { ...emptyCounts(), lines: parsed.lines, results: parsed.results };
  counts.skipped = parsed.hostless;
  const assets = new Map<string, Asset | undefined>();
  const lookup = async (host: string) => {
    if (!assets.has(host)) assets.set(host, await assetOfHost(tx, job.teamId, host));
    return assets.get(host);
  };
  const run: WriteRun<R> = { tx, writers, job, counts, lookup };
  await writeFindings(run, parsed.findings);
  await writePorts(run, parsed.hosts);
  return counts;
}

/** The findings of the file, asset by asset, through the ingestion. */
async function writeFindings<R extends ImportRepositories>(run: WriteRun<R>, parsed: ParsedFinding[]): Promise<void> {
  const { job, counts } = run;
  const byAsset = new Map<number, { asset: Asset; findings: FindingInput[] }>();
  for (const { host, finding } of parsed) {
    const asset = await run.lookup(host);
    if (asset === undefined) {
      counts.skipped++;
      continue;
    }
    let group = byAsset.get(asset.id);
    if (group === undefined) byAsset.set(asset.id, (group = { asset, findings: [] }));
    group.findings.push(finding);
  }
  const scanId = `import:${job.uuid}`;
  const source = `import:${job.format}`;
  const scannedAt = new Date();
  for (const { asset, findings } of byAsset.values()) {
    const report = {
      teamId: job.teamId,
      asset: { id: asset.id, token: asset.token, name: asset.name, rootId: asset.rootId },
      scanSource: 'application-scanning' as const,
      scanProfileToken: null,
      scannedAt,
    };
    const result = await run.writers.recordFindings(run.tx, report, scanId, findings, (t, ids) =>
      t.imports.markSource(job.teamId, ids, scanId, source),
    );
    counts.findingsCreated += result.created;
    counts.findingsUpdated += result.updated;
  }
}

/** The root asset and name an nmap host lands on: its first name (then its address) that is the team's. */
async function targetOf<R extends ImportRepositories>(
  run: WriteRun<R>,
  host: ParsedHost,
): Promise<{ root: Asset; name: string } | undefined> {
  for (const name of [...host.names, host.address]) {
    const asset = await run.lookup(name);
    const root = asset === undefined ? undefined : await rootOf(run.tx, run.job.teamId, asset);
    if (root !== undefined) return { root, name };
  }
  return undefined;
}

/** The open ports of the file, root asset by root asset, through the port inventory. */
async function writePorts<R extends ImportRepositories>(run: WriteRun<R>, hosts: ParsedHost[]): Promise<void> {
  const { job, counts, tx } = run;
  const byRoot = new Map<number, { open: Map<string, OpenPort>; closed: Set<string> }>();
  for (const host of hosts) {
    const target = await targetOf(run, host);
    if (target === undefined) {
      counts.hostsSkipped++;
      continue;
    }
    let ports = byRoot.get(target.root.id);
    if (ports === undefined) byRoot.set(target.root.id, (ports = { open: new Map(), closed: new Set() }));
    for (const p of host.open) {
      const open = { address: host.address, port: p.port, domainName: target.name, service: p.service };
      ports.open.set(`${host.address} ${p.port}`, open);
    }
    for (const port of host.closed) ports.closed.add(`${host.address} ${port}`);
  }
  const at = Date.now();
  for (const [rootId, { open, closed }] of byRoot) {
    counts.portsRecorded += open.size;
    // The inventory closes what a run did not find open: the rows this file did not report closed stay open.
    const carried = (await tx.ports.listOfAsset(job.teamId, rootId)).filter((row) => {
      const key = `${row.ipAddress} ${row.port}`;
      return row.status === 'OPEN' && !open.has(key) && !closed.has(key);
    });
    const kept: OpenPort[] = carried.map((row) => ({
      address: row.ipAddress,
      port: row.port,
      domainName: row.domainName,
      service: {
        name: row.service.name,
        isTls: row.service.isTls,
        isHttp: row.service.isHttp,
        ...(row.service.banner === null ? {} : { banner: row.service.banner }),
        ...(row.service.product === null ? {} : { product: row.service.product }),
        ...(row.service.version === null ? {} : { version: row.service.version }),
      },
    }));
    await run.writers.recordPorts(tx, { teamId: job.teamId, assetId: rootId, at, open: [...open.values(), ...kept] });
  }
}

/**
 * Runs (or re-runs) an import: reads the stored file whole, parses and validates all of it
 * first, then writes everything in one transaction with the import marked done, so a failure
 * anywhere leaves nothing of it (and a re-run after a crash starts again from the file). A file
 * that does not parse marks the import failed with the error and its line; nothing is written.
 */
export async function runImport<R extends ImportRepositories>(
  store: Transactional<R>,
  writers: ImportWriters<R>,
  uuid: string,
): Promise<ImportJob | undefined> {
  const job = await store.imports.findByUuid(uuid);
  if (job === undefined || job.status === 'done' || job.status === 'failed') return job;
  await store.imports.setRunning(job.id, new Date());
  const text = (await store.imports.chunks(job.id)).join('');
  await store.imports.setProgress(job.id, 10);
  let parsed: ParsedImport;
  try {
    parsed = parseImport(job.format, text);
  } catch (err) {
    if (!(err instanceof ImportParseError)) throw err;
    await store.imports.finish(
      job.id,
      { status: 'failed', counts: { ...emptyCounts() }, error: err.message, errorLine: err.line },
      new Date(),
    );
    await store.imports.dropChunks(job.id);
    return store.imports.findByUuid(uuid);
  }
  await store.imports.setProgress(job.id, 50);
  await store.transaction(async (tx) => {
    const counts = await writeParsed(tx, writers, job, parsed);
    await tx.imports.finish(job.id, { status: 'done', counts }, new Date());
  });
  await store.imports.dropChunks(job.id);
  return store.imports.findByUuid(uuid);
}

/** Marks an import failed for good (the queue gave up on it). */
export async function failImport(store: ImportStore, uuid: string, error: string): Promise<void> {
  const job = await store.imports.findByUuid(uuid);
  if (job !== undefined)
    await store.imports.finish(job.id, { status: 'failed', counts: job.counts, error }, new Date());
}

/** The wire form of an import (v3). */
export function presentImport(job: ImportJob): Record<string, unknown> {
  const iso = (d: Date | null) => (d === null ? null : d.toISOString());
  return {
    id: job.uuid,
    format: job.format,
    status: job.status,
    progress: job.progress,
    bytes: job.bytes,
    counts: {
      lines: job.counts.lines,
      results: job.counts.results,
      findings_created: job.counts.findingsCreated,
      findings_updated: job.counts.findingsUpdated,
      skipped: job.counts.skipped,
      ports_recorded: job.counts.portsRecorded,
      hosts_skipped: job.counts.hostsSkipped,
    },
    error: job.error === null ? null : { message: job.error, line: job.errorLine },
    created: job.created.toISOString(),
    started: iso(job.started),
    finished: iso(job.finished),
  };
}
