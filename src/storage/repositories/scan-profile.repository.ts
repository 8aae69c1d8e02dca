import type { Kysely, Selectable } from 'kysely';
import { settingsFromStore, type ScanProfileSettings } from '../../core/scans/scan-profile-settings.ts';
import type { ScanProfile, ScanProfileRepository, ScheduleFrequency } from '../../core/scans/scan.types.ts';
import type { ScanProfilesTable, Schema } from '../schema.ts';

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(Number(ms)));

function toProfile(row: Selectable<ScanProfilesTable>): ScanProfile {
  return {
    id: Number(row.id),
    teamId: row.team_id,
    assetId: row.asset_id,
    token: row.token,
    name: row.name,
    endpoint: row.endpoint,
    endpointKey: row.endpoint_key,
    scheme: row.scheme as 'http' | 'https',
    port: row.port,
    settings: settingsFromStore(JSON.parse(row.settings) as Partial<ScanProfileSettings>),
    isActive: row.is_active === 1,
    schedule: {
      frequency: row.schedule_frequency as ScheduleFrequency,
      first: date(row.schedule_first),
      next: date(row.schedule_next),
    },
    created: new Date(Number(row.created)),
    updated: new Date(Number(row.updated)),
  };
}

/** Scan profiles on Kysely; every team-facing query filters on team_id. */
export class KyselyScanProfileRepository implements ScanProfileRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async insert(p: Omit<ScanProfile, 'id'>): Promise<ScanProfile> {
    const row = await this.db
      .insertInto('scan_profiles')
      .values({
        team_id: p.teamId,
        asset_id: p.assetId,
        token: p.token,
        name: p.name,
        endpoint: p.endpoint,
        endpoint_key: p.endpointKey,
        scheme: p.scheme,
        port: p.port,
        settings: JSON.stringify(p.settings),
        is_active: p.isActive ? 1 : 0,
        schedule_frequency: p.schedule.frequency,
        schedule_first: p.schedule.first?.getTime() ?? null,
        schedule_next: p.schedule.next?.getTime() ?? null,
        created: p.created.getTime(),
        updated: p.updated.getTime(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toProfile(row);
  }

  async findByToken(teamId: number, token: string): Promise<ScanProfile | undefined> {
    const row = await this.db
      .selectFrom('scan_profiles')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('token', '=', token)
      .executeTakeFirst();
    return row && toProfile(row);
  }

  async findById(teamId: number, id: number): Promise<ScanProfile | undefined> {
    const row = await this.db
      .selectFrom('scan_profiles')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toProfile(row);
  }

  async findByEndpointKey(teamId: number, key: string): Promise<ScanProfile | undefined> {
    const row = await this.db
      .selectFrom('scan_profiles')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('endpoint_key', '=', key)
      .executeTakeFirst();
    return row && toProfile(row);
  }

  async list(teamId: number, assetId?: number): Promise<ScanProfile[]> {
    let q = this.db.selectFrom('scan_profiles').selectAll().where('team_id', '=', teamId);
    if (assetId !== undefined) q = q.where('asset_id', '=', assetId);
    return (await q.orderBy('id').execute()).map(toProfile);
  }

  async count(teamId: number): Promise<number> {
    const row = await this.db
      .selectFrom('scan_profiles')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countByAsset(teamId: number, assetId: number): Promise<number> {
    const row = await this.db
      .selectFrom('scan_profiles')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .where('asset_id', 'in', (eb) =>
        eb
          .selectFrom('assets')
          .select('id')
          .where('team_id', '=', teamId)
          .where((w) => w.or([w('id', '=', assetId), w('root_id', '=', assetId)])),
      )
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async delete(teamId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('scan_profiles')
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async updateSettings(teamId: number, id: number, settings: ScanProfileSettings, at: Date): Promise<void> {
    await this.db
      .updateTable('scan_profiles')
      .set({ settings: JSON.stringify(settings), updated: at.getTime() })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  }

  async setActive(teamId: number, id: number, isActive: boolean, at: Date): Promise<void> {
    await this.db
      .updateTable('scan_profiles')
      .set({ is_active: isActive ? 1 : 0, updated: at.getTime() })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  }

  async setSchedule(teamId: number, id: number, schedule: ScanProfile['schedule'], at: Date): Promise<void> {
    await this.db
      .updateTable('scan_profiles')
      .set({
        schedule_frequency: schedule.frequency,
        schedule_first: schedule.first?.getTime() ?? null,
        schedule_next: schedule.next?.getTime() ?? null,
        updated: at.getTime(),
      })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  }

  async listLifespans(afterId: number, limit: number): Promise<Array<{ id: number; reportLifespanDays: number }>> {
    const rows = await this.db
      .selectFrom('scan_profiles')
      .select(['id', 'settings'])
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      reportLifespanDays: settingsFromStore(JSON.parse(r.settings) as Partial<ScanProfileSettings>)
        .report_lifespan_days,
    }));
  }

  async dueSchedules(now: Date, limit: number): Promise<ScanProfile[]> {
    const rows = await this.db
      .selectFrom('scan_profiles')
      .selectAll()
      .where('schedule_next', 'is not', null)
      .where('schedule_next', '<=', now.getTime())
      .orderBy('schedule_next')
      .limit(limit)
      .execute();
    return rows.map(toProfile);
  }

  async advanceSchedule(
    id: number,
    due: Date,
    next: { frequency: ScheduleFrequency; next: Date | null },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('scan_profiles')
      .set({
        schedule_frequency: next.frequency,
        schedule_next: next.next?.getTime() ?? null,
        ...(next.frequency === 'never' ? { schedule_first: null } : {}),
      })
      .where('id', '=', id)
      .where('schedule_next', '=', due.getTime())
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
