import type { Kysely, Selectable } from 'kysely';
import { sql } from '../kysely.ts';
import type {
  NewScan,
  Scan,
  ScanEnd,
  ScanFindingLink,
  ScanProgress,
  ScanRepository,
  ScanStatus,
  SeverityCounts,
} from '../../core/scans/scan.types.ts';
import { severities, type Severity } from '../../core/vulnerabilities/vulnerability.types.ts';
import type { Dialect } from '../database.ts';
import type { Schema, ScansTable } from '../schema.ts';

const live = ['starting', 'running', 'stopping'];
const emptyProgress: ScanProgress = {
  pagesCrawled: 0,
  requestsSent: 0,
  checksDone: 0,
  findings: 0,
  fraction: 0,
  run: null,
};

/** The saved JSON of a run's pace: its times as ISO text. */
interface SavedRunPace {
  started: string;
  fraction: number;
  since: { at: string; fraction: number };
  deadline?: string | null;
}

/** The progress JSON of a row, whether saved before the fraction existed or after. */
function toProgress(text: string): ScanProgress {
  const saved = JSON.parse(text) as Partial<Omit<ScanProgress, 'run'>> & { run?: SavedRunPace | null };
  const run = saved.run ?? null;
  return {
    ...emptyProgress,
    ...saved,
    run:
      run === null
        ? null
        : {
            started: new Date(run.started),
            fraction: run.fraction,
            since: { at: new Date(run.since.at), fraction: run.since.fraction },
            deadline: typeof run.deadline === 'string' ? new Date(run.deadline) : null,
          },
  };
}
const emptyCounts = (): SeverityCounts => ({ information: 0, low: 0, medium: 0, high: 0, critical: 0 });

function toScan(row: Selectable<ScansTable>): Scan {
  return {
    id: Number(row.id),
    teamId: row.team_id,
    profileId: Number(row.profile_id),
    token: row.token,
    status: row.status as ScanStatus,
    trigger: row.trigger as Scan['trigger'],
    endpoint: row.endpoint,
    profileName: row.profile_name,
    error: row.error,
    warnings: JSON.parse(row.warnings) as string[],
    progress: toProgress(row.progress),
    counts: { ...emptyCounts(), ...(JSON.parse(row.counts) as Partial<SeverityCounts>) },
    highestCvss: Number(row.highest_cvss),
    jobId: row.job_id,
    runner: row.runner,
    runs: Number(row.runs),
    heartbeat: row.heartbeat === null ? null : new Date(Number(row.heartbeat)),
    created: new Date(Number(row.created)),
    started: row.started === null ? null : new Date(Number(row.started)),
    ended: row.ended === null ? null : new Date(Number(row.ended)),
  };
}

/** Scans on Kysely. */
export class KyselyScanRepository implements ScanRepository {
  constructor(
    private readonly db: Kysely<Schema>,
    private readonly dialect: Dialect,
  ) {}

  async insertLive(scan: NewScan): Promise<Scan | undefined> {
    // The partial unique index on live scans makes a second live scan of a profile a conflict.
    const row = await this.db
      .insertInto('scans')
      .values({
        team_id: scan.teamId,
        profile_id: scan.profileId,
        token: scan.token,
        status: 'starting',
        trigger: scan.trigger,
        endpoint: scan.endpoint,
        profile_name: scan.profileName,
        warnings: '[]',
        progress: JSON.stringify(emptyProgress),
        counts: JSON.stringify(emptyCounts()),
        created: scan.created.getTime(),
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    return row && toScan(row);
  }

  async findById(id: number): Promise<Scan | undefined> {
    const row = await this.db.selectFrom('scans').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toScan(row);
  }

  async findLive(teamId: number, profileId: number): Promise<Scan | undefined> {
    const row = await this.db
      .selectFrom('scans')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('profile_id', '=', profileId)
      .where('status', 'in', live)
      .executeTakeFirst();
    return row && toScan(row);
  }

  async latestOf(teamId: number, profileIds: number[]): Promise<Map<number, Scan>> {
    const out = new Map<number, Scan>();
    if (profileIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('scans')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('scans')
          .select((e) => e.fn.max('id').as('id'))
          .where('team_id', '=', teamId)
          .where('profile_id', 'in', profileIds)
          .groupBy('profile_id'),
      )
      .execute();
    for (const row of rows) out.set(Number(row.profile_id), toScan(row));
    return out;
  }

  async setJob(id: number, jobId: string): Promise<void> {
    await this.db.updateTable('scans').set({ job_id: jobId }).where('id', '=', id).execute();
  }

  async markRunning(id: number, runner: string, at: Date): Promise<Scan | undefined> {
    const ms = at.getTime();
    const row = await this.db
      .updateTable('scans')
      .set((eb) => ({
        status: 'running',
        runner,
        runs: eb('runs', '+', 1),
        heartbeat: ms,
        started: sql<number>`coalesce(started, ${ms})`,
      }))
      .where('id', '=', id)
      .where('status', 'in', ['starting', 'running'])
      .returningAll()
      .executeTakeFirst();
    return row && toScan(row);
  }

  async saveProgress(id: number, progress: ScanProgress, at: Date): Promise<ScanStatus | undefined> {
    const row = await this.db
      .updateTable('scans')
      .set({ progress: JSON.stringify(progress), heartbeat: at.getTime() })
      .where('id', '=', id)
      .where('status', 'in', live)
      .returning('status')
      .executeTakeFirst();
    return row?.status as ScanStatus | undefined;
  }

  async requestStop(teamId: number, profileId: number, at: Date): Promise<ScanStatus | undefined> {
    const queued = await this.db
      .updateTable('scans')
      .set({ status: 'stopped', ended: at.getTime() })
      .where('team_id', '=', teamId)
      .where('profile_id', '=', profileId)
      .where('status', '=', 'starting')
      .executeTakeFirst();
    if (Number(queued.numUpdatedRows) > 0) return 'stopped';
    const running = await this.db
      .updateTable('scans')
      .set({ status: 'stopping' })
      .where('team_id', '=', teamId)
      .where('profile_id', '=', profileId)
      .where('status', 'in', ['running', 'stopping'])
      .executeTakeFirst();
    return Number(running.numUpdatedRows) > 0 ? 'stopping' : undefined;
  }

  async addWarning(id: number, warning: string): Promise<void> {
    // One statement: warnings from the runner and the scheduler never overwrite each other.
    const appended =
      this.dialect === 'sqlite'
        ? sql<string>`json_insert(warnings, '$[#]', ${warning})`
        : sql<string>`(warnings::jsonb || jsonb_build_array(${warning}::text))::text`;
    await this.db.updateTable('scans').set({ warnings: appended }).where('id', '=', id).execute();
  }

  async finish(id: number, end: ScanEnd): Promise<boolean> {
    const result = await this.db
      .updateTable('scans')
      .set({
        status: end.status,
        error: end.error,
        progress: JSON.stringify(end.progress),
        ended: end.ended.getTime(),
        ...(end.warnings === undefined ? {} : { warnings: JSON.stringify(end.warnings) }),
      })
      .where('id', '=', id)
      .where('status', 'in', live)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async linkFindings(scanId: number, links: ScanFindingLink[]): Promise<void> {
    if (links.length === 0) return;
    for (let i = 0; i < links.length; i += 500) {
      await this.db
        .insertInto('scan_findings')
        .values(
          links
            .slice(i, i + 500)
            .map((l) => ({ scan_id: scanId, vulnerability_id: l.vulnerabilityId, severity: l.severity, cvss: l.cvss })),
        )
        .onConflict((oc) =>
          oc
            .columns(['scan_id', 'vulnerability_id'])
            .doUpdateSet((eb) => ({ severity: eb.ref('excluded.severity'), cvss: eb.ref('excluded.cvss') })),
        )
        .execute();
    }
  }

  async tallyFindings(id: number): Promise<{ counts: SeverityCounts; highestCvss: number; total: number }> {
    const rows = await this.db
      .selectFrom('scan_findings')
      .select((eb) => ['severity', eb.fn.countAll<number>().as('n'), eb.fn.max('cvss').as('top')])
      .where('scan_id', '=', id)
      .groupBy('severity')
      .execute();
    const counts = emptyCounts();
    let highestCvss = 0;
    let total = 0;
    for (const row of rows) {
      if ((severities as readonly string[]).includes(row.severity)) counts[row.severity as Severity] = Number(row.n);
      total += Number(row.n);
      highestCvss = Math.max(highestCvss, Number(row.top ?? 0));
    }
    await this.db
      .updateTable('scans')
      .set({ counts: JSON.stringify(counts), highest_cvss: highestCvss })
      .where('id', '=', id)
      .execute();
    return { counts, highestCvss, total };
  }

  async deleteEndedBefore(profileId: number, before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('scans')
      .where('profile_id', '=', profileId)
      .where('status', 'not in', live)
      .where('ended', '<', before.getTime())
      .where('id', '<>', (eb) =>
        eb
          .selectFrom('scans')
          .select((e) => e.fn.max('id').as('id'))
          .where('profile_id', '=', profileId),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async listLive(): Promise<Scan[]> {
    return (await this.db.selectFrom('scans').selectAll().where('status', 'in', live).orderBy('id').execute()).map(
      toScan,
    );
  }

  async countRunning(teamId: number, exceptId: number): Promise<number> {
    const row = await this.db
      .selectFrom('scans')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .where('status', 'in', ['running', 'stopping'])
      .where('id', '<>', exceptId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async findByToken(teamId: number, token: string): Promise<Scan | undefined> {
    const row = await this.db
      .selectFrom('scans')
      .selectAll()
      .where('token', '=', token)
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return row && toScan(row);
  }

  async listFinished(
    teamId: number,
    profileId: number,
    options: { createdFrom?: Date; createdTo?: Date; limit: number },
  ): Promise<Scan[]> {
    // Backwards along scans_profile_idx (profile_id, id): ids grow with creation.
    let q = this.db
      .selectFrom('scans')
      .selectAll()
      .where('profile_id', '=', profileId)
      .where('team_id', '=', teamId)
      .where('status', 'not in', live);
    if (options.createdFrom !== undefined)
      q = q.where('created', '>=', Math.floor(options.createdFrom.getTime() / 1000) * 1000);
    if (options.createdTo !== undefined)
      q = q.where('created', '<', Math.floor(options.createdTo.getTime() / 1000) * 1000 + 1000);
    return (await q.orderBy('id', 'desc').limit(options.limit).execute()).map(toScan);
  }

  async hasFinding(scanId: number, vulnerabilityId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('scan_findings')
      .select('scan_id')
      .where('scan_id', '=', scanId)
      .where('vulnerability_id', '=', vulnerabilityId)
      .executeTakeFirst();
    return row !== undefined;
  }
}
