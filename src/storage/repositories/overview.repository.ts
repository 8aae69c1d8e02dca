import type { Kysely } from 'kysely';
import type {
  FindingCount,
  FindingDay,
  MonitoredAsset,
  OverviewRepository,
} from '../../core/overview/overview.types.ts';
import type { Severity, VulnerabilityStatus } from '../../core/vulnerabilities/vulnerability.types.ts';
import { sql } from '../kysely.ts';
import type { Schema } from '../schema.ts';

/**
 * The team overview's reads on Kysely, in SQL both SQLite and PostgreSQL run as written: the
 * counts sum the maintained vulnerability_counts (a few hundred rows however many findings), the
 * day series groups by integer division of the epoch ms (integer on both: the columns are
 * integers) along the (team_id, created_at) and (team_id, modified_at) indexes.
 */

const dayMs = 86_400_000;

/** The overview's reads. */
export class KyselyOverviewRepository implements OverviewRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async findingCounts(teamId: number): Promise<FindingCount[]> {
    const rows = await this.db
      .selectFrom('vulnerability_counts')
      .select(['status', 'severity', sql<number | string>`sum(n)`.as('n')])
      .where('team_id', '=', teamId)
      .groupBy(['status', 'severity'])
      .execute();
    return rows
      .map((r) => ({ status: r.status as VulnerabilityStatus, severity: r.severity as Severity, n: Number(r.n) }))
      .filter((r) => r.n > 0);
  }

  async findingDays(teamId: number, fromDay: number, toDay: number): Promise<FindingDay[]> {
    const from = fromDay * dayMs;
    const to = (toDay + 1) * dayMs;
    const createdDay = sql<number | string>`created_at / ${sql.lit(dayMs)}`;
    const modifiedDay = sql<number | string>`modified_at / ${sql.lit(dayMs)}`;
    const [created, fixed] = await Promise.all([
      this.db
        .selectFrom('vulnerabilities')
        .select([createdDay.as('day'), (eb) => eb.fn.countAll<number | string>().as('n')])
        .where('team_id', '=', teamId)
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy(createdDay)
        .execute(),
      this.db
        .selectFrom('vulnerabilities')
        .select([modifiedDay.as('day'), (eb) => eb.fn.countAll<number | string>().as('n')])
        .where('team_id', '=', teamId)
        .where('modified_at', '>=', from)
        .where('modified_at', '<', to)
        .where('status', '=', 'patched')
        .groupBy(modifiedDay)
        .execute(),
    ]);
    const days = new Map<number, FindingDay>();
    const dayOf = (day: number) => days.get(day) ?? days.set(day, { day, created: 0, fixed: 0 }).get(day)!;
    for (const r of created) dayOf(Number(r.day)).created = Number(r.n);
    for (const r of fixed) dayOf(Number(r.day)).fixed = Number(r.n);
    return [...days.values()].sort((a, b) => a.day - b.day);
  }

  async monitoredAssets(teamId: number, limit: number): Promise<MonitoredAsset[]> {
    return this.db
      .selectFrom('assets')
      .select(['token', 'name'])
      .where('team_id', '=', teamId)
      .where('monitored', '=', 1)
      .orderBy('name')
      .limit(limit)
      .execute();
  }

  async countOpenBreaches(teamId: number): Promise<number> {
    const row = await this.db
      .selectFrom('breaches')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('team_id', '=', teamId)
      .where('active', '=', 1)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
