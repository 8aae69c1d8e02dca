import type { Kysely, Selectable } from 'kysely';
import type { LookupJob, LookupJobRepository, LookupStatus } from '../../core/zones/zone-lookup.types.ts';
import type { Schema, ZoneLookupJobsTable } from '../schema.ts';

function toJob(row: Selectable<ZoneLookupJobsTable>): LookupJob {
  const date = (v: number | null) => (v === null ? null : new Date(Number(v)));
  return {
    id: Number(row.id),
    uuid: row.uuid,
    teamId: row.team_id,
    status: row.status as LookupStatus,
    total: row.total,
    succeeded: row.succeeded,
    failed: row.failed,
    chunks: row.chunks,
    nextChunk: row.next_chunk,
    error: row.error,
    created: new Date(Number(row.created)),
    started: date(row.started),
    finished: date(row.finished),
  };
}

/** Zone lookup jobs on Kysely. */
export class KyselyLookupJobRepository implements LookupJobRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async create(job: Omit<LookupJob, 'id'>): Promise<LookupJob> {
    const row = await this.db
      .insertInto('zone_lookup_jobs')
      .values({
        uuid: job.uuid,
        team_id: job.teamId,
        status: job.status,
        total: job.total,
        succeeded: job.succeeded,
        failed: job.failed,
        chunks: job.chunks,
        next_chunk: job.nextChunk,
        error: job.error,
        created: job.created.getTime(),
        started: null,
        finished: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toJob(row);
  }

  async addChunk(jobId: number, seq: number, data: string): Promise<void> {
    await this.db.insertInto('zone_lookup_chunks').values({ job_id: jobId, seq, data }).execute();
  }

  async finishUpload(jobId: number, total: number, chunks: number): Promise<void> {
    await this.db.updateTable('zone_lookup_jobs').set({ total, chunks }).where('id', '=', jobId).execute();
  }

  async findByUuid(uuid: string): Promise<LookupJob | undefined> {
    const row = await this.db.selectFrom('zone_lookup_jobs').selectAll().where('uuid', '=', uuid).executeTakeFirst();
    return row && toJob(row);
  }

  async chunk(jobId: number, seq: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('zone_lookup_chunks')
      .select('data')
      .where('job_id', '=', jobId)
      .where('seq', '=', seq)
      .executeTakeFirst();
    return row?.data;
  }

  async seen(jobId: number, names: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < names.length; i += 1000) {
      const rows = await this.db
        .selectFrom('zone_lookup_seen')
        .select('name')
        .where('job_id', '=', jobId)
        .where('name', 'in', names.slice(i, i + 1000))
        .execute();
      for (const row of rows) out.add(row.name);
    }
    return out;
  }

  async markSeen(jobId: number, names: string[]): Promise<void> {
    for (let i = 0; i < names.length; i += 1000) {
      const part = names.slice(i, i + 1000);
      if (part.length > 0)
        await this.db
          .insertInto('zone_lookup_seen')
          .values(part.map((name) => ({ job_id: jobId, name })))
          .onConflict((oc) => oc.doNothing())
          .execute();
    }
  }

  async checkpoint(jobId: number, seq: number, succeeded: number, failed: number): Promise<boolean> {
    const result = await this.db
      .updateTable('zone_lookup_jobs')
      .set((eb) => ({
        succeeded: eb('succeeded', '+', succeeded),
        failed: eb('failed', '+', failed),
        next_chunk: seq + 1,
      }))
      .where('id', '=', jobId)
      .where('next_chunk', '=', seq)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async setStatus(jobId: number, status: LookupStatus, at: Date, error?: string): Promise<void> {
    const ms = at.getTime();
    const times =
      status === 'running' ? { started: ms } : status === 'done' || status === 'failed' ? { finished: ms } : {};
    await this.db
      .updateTable('zone_lookup_jobs')
      .set({ status, ...times, ...(error === undefined ? {} : { error }) })
      .where('id', '=', jobId)
      .execute();
  }

  async dropWorkData(jobId: number): Promise<void> {
    await this.db.deleteFrom('zone_lookup_chunks').where('job_id', '=', jobId).execute();
    await this.db.deleteFrom('zone_lookup_seen').where('job_id', '=', jobId).execute();
  }

  async purgeBefore(cutoff: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('zone_lookup_jobs')
      .where('created', '<', cutoff.getTime())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async recentByTeam(teamId: number, since: Date, limit: number): Promise<LookupJob[]> {
    const rows = await this.db
      .selectFrom('zone_lookup_jobs')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('created', '>=', since.getTime())
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toJob);
  }

  async unfinished(): Promise<LookupJob[]> {
    const rows = await this.db
      .selectFrom('zone_lookup_jobs')
      .selectAll()
      .where('status', 'in', ['queued', 'running'])
      .execute();
    return rows.map(toJob);
  }
}
