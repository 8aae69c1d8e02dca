import { StringDecoder } from 'node:string_decoder';
import { isIP } from 'node:net';
import { isDomainName } from '../assets/asset-name.ts';
import { appError, type AppError } from '../errors/app-error.ts';
import { isUuid, newUuid } from '../shared/ids.ts';
import type { Team } from '../teams/team.types.ts';
import { zoneLookupFinishedEvent } from './zone-events.ts';
import { indexRecords, largeIndexRun, normaliseOwner } from './zone-index.service.ts';
import { RootMatcher } from './root-matcher.ts';
import type { LookupJob, NameResolver, ZoneStore } from './zone-lookup.types.ts';

/** How long a job's status stays readable after upload. */
export const lookupRetentionMs = 10 * 86_400_000;
/** Size of a stored chunk of the uploaded list (cut at a line end). */
export const lookupChunkBytes = 256 * 1024;

/**
 * Stores an uploaded list chunk by chunk as it streams in (never whole in memory) and counts
 * its names (non-empty lines), in one transaction: a refused upload (too large, bad signature,
 * a line holding NUL: 1051 naming the line) leaves nothing. The job becomes `queued`; the
 * caller enqueues its durable job after commit.
 */
export async function createLookupJob(store: ZoneStore, team: Team, body: AsyncIterable<Buffer>): Promise<LookupJob> {
  const now = new Date();
  await store.zoneLookups.purgeBefore(new Date(now.getTime() - lookupRetentionMs));
  let hasRun = false;
  return store.transaction(async (tx) => {
    // The body streams once: a re-run (after a deadlock) would store an empty list, so it fails instead.
    if (hasRun)
      throw new Error('zone lookup upload: rolled back to break a deadlock; its streamed body cannot be read again');
    hasRun = true;
    const job = await tx.zoneLookups.create({
      uuid: newUuid(),
      teamId: team.id,
      status: 'queued',
      total: 0,
      succeeded: 0,
      failed: 0,
      chunks: 0,
      nextChunk: 0,
      error: null,
      created: now,
      started: null,
      finished: null,
    });
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let seq = 0;
    let total = 0;
    let lines = 0;
    let isInLongLine = false;
    const storeChunk = async (text: string) => {
      total += text.split('\n').filter((line) => line.trim() !== '').length;
      await tx.zoneLookups.addChunk(job.id, seq++, text);
    };
    for await (const bytes of body) {
      const text = decoder.write(bytes);
      assertNoNul(text, lines);
      lines += countLineEnds(text);
      pending += text;
      // Inside one very long line, only a line end in new text makes a cut possible: the line
      // is not searched again for every chunk (that was quadratic in its length).
      if (isInLongLine && !text.includes('\n')) continue;
      isInLongLine = false;
      while (pending.length >= lookupChunkBytes) {
        const cut = pending.lastIndexOf('\n', lookupChunkBytes);
        const end = cut === -1 ? pending.indexOf('\n', lookupChunkBytes) : cut;
        if (end === -1) {
          isInLongLine = true; // one very long line: wait for its end
          break;
        }
        await storeChunk(pending.slice(0, end + 1));
        pending = pending.slice(end + 1);
      }
    }
    pending += decoder.end();
    if (pending.length > 0) await storeChunk(pending);
    await tx.zoneLookups.finishUpload(job.id, total, seq);
    return { ...job, total, chunks: seq };
  });
}

/** 1051 naming the line when the text holds NUL (no store keeps it alike; no name holds it). */
function assertNoNul(text: string, linesBefore: number): void {
  const at = text.indexOf('\u0000');
  if (at === -1) return;
  const line = linesBefore + countLineEnds(text.slice(0, at)) + 1;
  throw appError(
    1051,
    `Request body malformed: line ${line} holds a NUL character (U+0000); the list is text, one domain name per line`,
  );
}

function countLineEnds(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

/** 6001: a lookup job UUID path parameter that is not a UUID. */
export function malformedLookupJobUuid(): AppError {
  return appError(6001, 'Lookup job UUID malformed: expected a UUID', ['lookupJobUUID']);
}

/** The status of a job of the team: 6001 malformed UUID, 6002 unknown, foreign or older than 10 days. */
export async function getLookupJob(store: ZoneStore, team: Team, uuid: string, now = Date.now()): Promise<LookupJob> {
  if (!isUuid(uuid)) throw malformedLookupJobUuid();
  const job = await store.zoneLookups.findByUuid(uuid.toLowerCase());
  if (job === undefined || job.teamId !== team.id || job.created.getTime() < now - lookupRetentionMs) {
    throw appError(6002, 'Lookup job does not exist (unknown, or its status expired 10 days after upload)', [
      'lookupJobUUID',
    ]);
  }
  return job;
}

/** The team's lookup jobs still readable (uploaded in the last 10 days), newest first: the console lists them. */
export async function listRecentLookupJobs(
  store: ZoneStore,
  team: Team,
  limit: number,
  now = Date.now(),
): Promise<LookupJob[]> {
  return store.zoneLookups.recentByTeam(team.id, new Date(now - lookupRetentionMs), limit);
}

/** What one chunk's names are: to resolve, or failed at once (invalid, IP, outside the team's assets, duplicate). */
function classify(text: string, roots: RootMatcher): { candidates: string[]; failed: number } {
  const candidates: string[] = [];
  const inChunk = new Set<string>();
  let failed = 0;
  for (const line of text.split('\n')) {
    const raw = line.trim();
    if (raw === '') continue;
    const name = normaliseOwner(raw);
    if (isIP(name) !== 0 || !isDomainName(name) || roots.match(name) === undefined || inChunk.has(name)) failed++;
    else {
      inChunk.add(name);
      candidates.push(name);
    }
  }
  return { candidates, failed };
}

/**
 * Runs (or resumes) a lookup job from its checkpoint. Each stored chunk is classified, its new
 * names resolved, and then — in one transaction — their records indexed, the names remembered
 * as seen, the counts added and the checkpoint moved. A job killed mid-chunk redoes that chunk
 * and counts nothing twice; a second worker finds the checkpoint moved and writes nothing.
 */
export async function runLookupJob(
  store: ZoneStore,
  resolver: NameResolver,
  uuid: string,
  signal: AbortSignal,
): Promise<LookupJob | undefined> {
  let job = await store.zoneLookups.findByUuid(uuid);
  if (job === undefined || job.status === 'done' || job.status === 'failed') return job;
  const team = await store.teams.findById(job.teamId);
  if (team === undefined) return job;
  if (job.status === 'queued') await store.zoneLookups.setStatus(job.id, 'running', new Date());
  const roots = new RootMatcher(await store.zones.rootDomains(team.id));
  for (let seq = job.nextChunk; seq < job.chunks; seq++) {
    signal.throwIfAborted();
    const text = (await store.zoneLookups.chunk(job.id, seq)) ?? '';
    const { candidates, failed: refused } = classify(text, roots);
    const already = await store.zoneLookups.seen(job.id, candidates);
    const fresh = candidates.filter((n) => !already.has(n));
    const answers = fresh.length === 0 ? new Map() : await resolver.resolveNames(fresh, signal);
    signal.throwIfAborted();
    const resolved = fresh.filter((n) => (answers.get(n)?.length ?? 0) > 0);
    await store.transaction(async (tx) => {
      await tx.zoneLookups.markSeen(job!.id, fresh);
      await indexRecords(tx, team, [resolved.flatMap((n) => answers.get(n)!)], 'zone-lookup');
      const failed = refused + already.size + (fresh.length - resolved.length);
      if (!(await tx.zoneLookups.checkpoint(job!.id, seq, resolved.length, failed)))
        throw new Error(`lookup job ${uuid}: checkpoint ${seq} moved by another worker`);
    });
  }
  await markLookupDone(store, job);
  await store.zoneLookups.dropWorkData(job.id);
  job = await store.zoneLookups.findByUuid(uuid);
  if (job !== undefined && job.succeeded >= largeIndexRun) await store.zones.refreshStatistics();
  return job;
}

/** Marks a processed job done and logs `zone_lookup.finished` in the same transaction, once (a racing worker finds it done). */
async function markLookupDone(store: ZoneStore, job: Pick<LookupJob, 'id' | 'uuid' | 'teamId'>): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.assets.lockTeam(job.teamId);
    const current = await tx.zoneLookups.findByUuid(job.uuid);
    if (current === undefined || current.status === 'done' || current.status === 'failed') return;
    const at = new Date();
    await tx.zoneLookups.setStatus(job.id, 'done', at);
    await tx.events.append([zoneLookupFinishedEvent(current, at)]);
  });
}

/** Marks a job failed for good (the queue gave up on it). */
export async function failLookupJob(store: ZoneStore, uuid: string, error: string): Promise<void> {
  const job = await store.zoneLookups.findByUuid(uuid);
  if (job !== undefined && job.status !== 'done')
    await store.zoneLookups.setStatus(job.id, 'failed', new Date(), error);
}
