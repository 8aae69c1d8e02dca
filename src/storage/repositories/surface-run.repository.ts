import type { Kysely, Selectable } from 'kysely';
import { sql } from '../kysely.ts';
import type { Dialect } from '../database.ts';
import type { Schema, SurfaceRunsTable } from '../schema.ts';
import {
  liveSurfaceRunStatuses,
  type SurfaceRun,
  type SurfaceRunListing,
  type SurfaceRunProgress,
  type SurfaceRunRepository,
  type SurfaceRunStatus,
  type SurfaceRunSummary,
  type SurfaceRunTrigger,
} from '../../core/surface/surface-run.types.ts';

const live = [...liveSurfaceRunStatuses];

/** The progress of a run nothing has worked on yet. */
export const queuedProgress: SurfaceRunProgress = {
  phase: 'queued',
  candidates: 0,
  live: 0,
  takeovers: 0,
  origins: 0,
  requests: 0,
  findings: 0,
  portsProbed: 0,
  openPorts: 0,
  tlsEndpoints: 0,
  technologies: 0,
};

/** A run row as the core reads it (counters and summary fields a row lacks read as 0 / null). */
export function toRun(row: Selectable<SurfaceRunsTable>): SurfaceRun {
  const time = (ms: number | null) => (ms === null ? null : new Date(Number(ms)));
  return {
    id: Number(row.id),
    teamId: row.team_id,
    assetId: row.asset_id,
    status: row.status as SurfaceRunStatus,
    trigger: row.trigger as SurfaceRunTrigger,
    error: row.error,
    warnings: JSON.parse(row.warnings) as string[],
    // Runs saved before the exposure engines lack their counters: they read as 0 / null.
    progress: { ...queuedProgress, ...(JSON.parse(row.progress) as Partial<SurfaceRunProgress>) },
    summary:
      row.summary === null
        ? null
        : {
            ports: null,
            tlsEndpoints: null,
            technologies: null,
            breaches: null,
            ...(JSON.parse(row.summary) as Omit<
              SurfaceRunSummary,
              'ports' | 'tlsEndpoints' | 'technologies' | 'breaches'
            >),
          },
    jobId: row.job_id,
    runner: row.runner,
    created: new Date(Number(row.created)),
    started: time(row.started),
    ended: time(row.ended),
  };
}

/** Surface runs on Kysely; reads by team filter on team_id (the worker reads a run by its id). */
export class KyselySurfaceRunRepository implements SurfaceRunRepository {
  constructor(
    private readonly db: Kysely<Schema>,
    private readonly dialect: Dialect,
  ) {}

  async insertLive(run: {
    teamId: number;
    assetId: number;
    trigger: SurfaceRunTrigger;
    created: Date;
    unlessCreatedSince?: Date;
  }): Promise<SurfaceRun | undefined> {
    // One statement: the partial unique index on live runs makes a second live run of an asset
    // a conflict, and `unlessCreatedSince` makes a run created since then (live or ended) one.
    const since = run.unlessCreatedSince?.getTime();
    const row = await this.db
      .insertInto('surface_runs')
      .columns(['team_id', 'asset_id', 'status', 'trigger', 'warnings', 'progress', 'created'])
      .expression(
        this.db
          .selectNoFrom([
            sql<number>`cast(${run.teamId} as integer)`.as('team_id'),
            sql<number>`cast(${run.assetId} as integer)`.as('asset_id'),
            sql<string>`cast(${'queued'} as text)`.as('status'),
            sql<string>`cast(${run.trigger} as text)`.as('trigger'),
            sql<string>`cast(${'[]'} as text)`.as('warnings'),
            sql<string>`cast(${JSON.stringify(queuedProgress)} as text)`.as('progress'),
            sql<number>`cast(${run.created.getTime()} as bigint)`.as('created'),
          ])
          .where((w) =>
            since === undefined
              ? sql<boolean>`1 = 1`
              : w.not(
                  w.exists(
                    this.db
                      .selectFrom('surface_runs')
                      .select('id')
                      .where('asset_id', '=', run.assetId)
                      .where('created', '>=', since),
                  ),
                ),
          ),
      )
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    return row && toRun(row);
  }

  async findById(id: number): Promise<SurfaceRun | undefined> {
    const row = await this.db.selectFrom('surface_runs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRun(row);
  }

  async findLive(teamId: number, assetId: number): Promise<SurfaceRun | undefined> {
    const row = await this.db
      .selectFrom('surface_runs')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('asset_id', '=', assetId)
      .where('status', 'in', live)
      .executeTakeFirst();
    return row && toRun(row);
  }

  async latestOf(teamId: number, assetIds: number[]): Promise<Map<number, SurfaceRun>> {
    const out = new Map<number, SurfaceRun>();
    if (assetIds.length === 0) return out;
    const latest = this.db
      .selectFrom('surface_runs')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('team_id', '=', teamId)
      .where('asset_id', 'in', assetIds)
      .groupBy('asset_id');
    const rows = await this.db.selectFrom('surface_runs').selectAll().where('id', 'in', latest).execute();
    for (const row of rows) out.set(row.asset_id, toRun(row));
    return out;
  }

  async setJob(id: number, jobId: string): Promise<void> {
    await this.db.updateTable('surface_runs').set({ job_id: jobId }).where('id', '=', id).execute();
  }

  async markRunning(id: number, runner: string, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('surface_runs')
      .set({ status: 'running', runner, started: sql<number>`coalesce(started, ${at.getTime()})` })
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async setProgress(id: number, progress: SurfaceRunProgress): Promise<void> {
    await this.db
      .updateTable('surface_runs')
      .set({ progress: JSON.stringify(progress) })
      .where('id', '=', id)
      .where('status', 'in', live)
      .execute();
  }

  async addWarning(id: number, warning: string): Promise<void> {
    // One statement: warnings from the runner and anyone else never overwrite each other.
    const appended =
      this.dialect === 'sqlite'
        ? sql<string>`json_insert(warnings, '$[#]', ${warning})`
        : sql<string>`(warnings::jsonb || jsonb_build_array(${warning}::text))::text`;
    await this.db.updateTable('surface_runs').set({ warnings: appended }).where('id', '=', id).execute();
  }

  async end(
    id: number,
    status: 'completed' | 'stopped' | 'failed',
    at: Date,
    fields: { error?: string; summary?: SurfaceRunSummary },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('surface_runs')
      .set({
        status,
        ended: at.getTime(),
        ...(fields.error === undefined ? {} : { error: fields.error }),
        ...(fields.summary === undefined ? {} : { summary: JSON.stringify(fields.summary) }),
      })
      .where('id', '=', id)
      .where('status', 'in', live)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async requestStop(teamId: number, assetId: number, at: Date): Promise<SurfaceRunStatus | undefined> {
    const queued = await this.db
      .updateTable('surface_runs')
      .set({ status: 'stopped', ended: at.getTime() })
      .where('team_id', '=', teamId)
      .where('asset_id', '=', assetId)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    if (Number(queued.numUpdatedRows) > 0) return 'stopped';
    const running = await this.db
      .updateTable('surface_runs')
      .set({ status: 'stopping' })
      .where('team_id', '=', teamId)
      .where('asset_id', '=', assetId)
      .where('status', 'in', ['running', 'stopping'])
      .executeTakeFirst();
    return Number(running.numUpdatedRows) > 0 ? 'stopping' : undefined;
  }

  async dueAssets(createdBefore: Date, limit: number): Promise<Array<{ teamId: number; assetId: number }>> {
    const rows = await this.db
      .selectFrom('assets as a')
      .select(['a.team_id', 'a.id'])
      .where('a.monitored', '=', 1)
      .where('a.is_root', '=', 1)
      .where('a.kind', '=', 'domain')
      .where('a.status', '=', 'verified')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('surface_runs as r')
              .select('r.id')
              .whereRef('r.asset_id', '=', 'a.id')
              .where('r.status', 'in', live),
          ),
        ),
      )
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('surface_runs as r')
              .select('r.id')
              .whereRef('r.asset_id', '=', 'a.id')
              .where('r.created', '>=', createdBefore.getTime()),
          ),
        ),
      )
      .orderBy('a.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ teamId: r.team_id, assetId: r.id }));
  }

  async withoutJob(before: Date): Promise<SurfaceRun[]> {
    const rows = await this.db
      .selectFrom('surface_runs')
      .selectAll()
      .where('status', '=', 'queued')
      .where('job_id', 'is', null)
      .where('created', '<', before.getTime())
      .execute();
    return rows.map(toRun);
  }

  async list(options: { teamId?: number; limit: number }): Promise<SurfaceRunListing[]> {
    let q = this.db
      .selectFrom('surface_runs as r')
      .innerJoin('teams as t', 't.id', 'r.team_id')
      .innerJoin('assets as a', 'a.id', 'r.asset_id')
      .selectAll('r')
      .select(['t.name as team_name', 'a.name as asset_name'])
      .orderBy('r.id', 'desc')
      .limit(options.limit);
    if (options.teamId !== undefined) q = q.where('r.team_id', '=', options.teamId);
    const rows = await q.execute();
    return rows.map((row) => ({ ...toRun(row), teamName: row.team_name, assetName: row.asset_name }));
  }
}
