import type { Kysely, Selectable } from 'kysely';
import type {
  ImportCounts,
  ImportFormat,
  ImportJob,
  ImportRepository,
  ImportStatus,
} from '../../core/imports/import.types.ts';
import type { ImportsTable } from '../schema-imports.ts';
import type { Schema } from '../schema.ts';

const noCounts: ImportCounts = {
  lines: 0,
  results: 0,
  findingsCreated: 0,
  findingsUpdated: 0,
  skipped: 0,
  portsRecorded: 0,
  hostsSkipped: 0,
};

function toJob(row: Selectable<ImportsTable>): ImportJob {
  const date = (v: number | string | null) => (v === null ? null : new Date(Number(v)));
  return {
    id: Number(row.id),
    uuid: row.uuid,
    teamId: row.team_id,
    format: row.format as ImportFormat,
    status: row.status as ImportStatus,
    progress: row.progress,
    bytes: Number(row.bytes),
    chunks: row.chunks,
    counts: { ...noCounts, ...(JSON.parse(row.counts) as Partial<ImportCounts>) },
    error: row.error,
    errorLine: row.error_line,
    created: new Date(Number(row.created)),
    started: date(row.started),
    finished: date(row.finished),
  };
}

/** Imports on Kysely. */
export class KyselyImportRepository implements ImportRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async create(job: Omit<ImportJob, 'id'>): Promise<ImportJob> {
    const row = await this.db
      .insertInto('imports')
      .values({
        uuid: job.uuid,
        team_id: job.teamId,
        format: job.format,
        status: job.status,
        progress: job.progress,
        bytes: job.bytes,
        chunks: job.chunks,
        counts: JSON.stringify(job.counts),
        error: job.error,
        error_line: job.errorLine,
        created: job.created.getTime(),
        started: null,
        finished: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toJob(row);
  }

  async addChunk(importId: number, seq: number, data: string): Promise<void> {
    await this.db.insertInto('import_chunks').values({ import_id: importId, seq, data }).execute();
  }

  async finishUpload(importId: number, bytes: number, chunks: number): Promise<void> {
    await this.db.updateTable('imports').set({ bytes, chunks }).where('id', '=', importId).execute();
  }

  async findForTeam(teamId: number, uuid: string): Promise<ImportJob | undefined> {
    const row = await this.db
      .selectFrom('imports')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('uuid', '=', uuid)
      .executeTakeFirst();
    return row && toJob(row);
  }

  async findByUuid(uuid: string): Promise<ImportJob | undefined> {
    const row = await this.db.selectFrom('imports').selectAll().where('uuid', '=', uuid).executeTakeFirst();
    return row && toJob(row);
  }

  async chunks(importId: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('import_chunks')
      .select('data')
      .where('import_id', '=', importId)
      .orderBy('seq')
      .execute();
    return rows.map((r) => r.data);
  }

  async setRunning(importId: number, at: Date): Promise<void> {
    await this.db
      .updateTable('imports')
      .set({ status: 'running', started: at.getTime() })
      .where('id', '=', importId)
      .where('status', '=', 'queued')
      .execute();
  }

  async setProgress(importId: number, progress: number): Promise<void> {
    await this.db
      .updateTable('imports')
      .set({ progress })
      .where('id', '=', importId)
      .where('status', 'in', ['queued', 'running'])
      .execute();
  }

  async finish(
    importId: number,
    outcome: { status: 'done' | 'failed'; counts: ImportCounts; error?: string; errorLine?: number | null },
    at: Date,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('imports')
      .set({
        status: outcome.status,
        progress: 100,
        counts: JSON.stringify(outcome.counts),
        error: outcome.error ?? null,
        error_line: outcome.errorLine ?? null,
        finished: at.getTime(),
      })
      .where('id', '=', importId)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async dropChunks(importId: number): Promise<void> {
    await this.db.deleteFrom('import_chunks').where('import_id', '=', importId).execute();
  }

  async markSource(teamId: number, ids: number[], scanId: string, source: string): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await this.db
        .updateTable('vulnerabilities')
        .set({ source })
        .where('team_id', '=', teamId)
        .where('id', 'in', ids.slice(i, i + 500))
        .where('revision', '=', 1)
        .where('last_scan_id', '=', scanId)
        .execute();
    }
  }

  async unfinished(): Promise<ImportJob[]> {
    const rows = await this.db.selectFrom('imports').selectAll().where('status', 'in', ['queued', 'running']).execute();
    return rows.map(toJob);
  }

  async purgeBefore(cutoff: Date): Promise<number> {
    const result = await this.db.deleteFrom('imports').where('created', '<', cutoff.getTime()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
