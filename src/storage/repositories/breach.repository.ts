import type { Kysely, Selectable } from 'kysely';
import type { PolicySeverity } from '../../core/policies/policy-catalogue.ts';
import type {
  Breach,
  BreachListFilter,
  BreachPage,
  BreachRepository,
  NewBreach,
} from '../../core/policies/breach.types.ts';
import { storeBounds, storeRange, type InventoryPosition } from '../../core/shared/inventory-list.ts';
import { sql } from '../kysely.ts';
import type { BreachesTable, Schema } from '../schema.ts';

/** A breach row as the core reads it. */
export function toBreach(row: Selectable<BreachesTable>): Breach {
  return {
    id: Number(row.id),
    teamId: Number(row.team_id),
    assetId: Number(row.asset_id),
    policyId: row.policy_id,
    policyName: row.policy_name,
    assetName: row.asset_name,
    severity: row.severity as PolicySeverity,
    evidence: row.evidence,
    status: row.status,
    active: Number(row.active) === 1,
    firstSeenAt: new Date(Number(row.first_seen_at)),
    lastSeenAt: new Date(Number(row.last_seen_at)),
    statusUpdatedAt: new Date(Number(row.status_updated_at)),
    disappearedAt: row.disappeared_at === null ? null : new Date(Number(row.disappeared_at)),
  };
}

/** Policy breaches on Kysely. */
export class KyselyBreachRepository implements BreachRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async listOfAsset(teamId: number, assetId: number): Promise<Breach[]> {
    const rows = await this.db
      .selectFrom('breaches')
      .selectAll()
      .where('asset_id', '=', assetId)
      .where('team_id', '=', teamId)
      .execute();
    return rows.map(toBreach);
  }

  async insertMany(rows: NewBreach[]): Promise<Breach[]> {
    if (rows.length === 0) return [];
    const inserted = await this.db
      .insertInto('breaches')
      .values(
        rows.map((r) => ({
          team_id: r.teamId,
          asset_id: r.assetId,
          policy_id: r.policyId,
          policy_name: r.policyName,
          asset_name: r.assetName,
          severity: r.severity,
          evidence: r.evidence,
          status: 'NEW' as const,
          active: 1,
          first_seen_at: r.at.getTime(),
          last_seen_at: r.at.getTime(),
          status_updated_at: r.at.getTime(),
          disappeared_at: null,
        })),
      )
      .onConflict((oc) => oc.columns(['asset_id', 'policy_id', 'asset_name']).doNothing())
      .returningAll()
      .execute();
    return inserted.map(toBreach);
  }

  async markSeen(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('breaches')
      .set({ last_seen_at: at.getTime() })
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute();
  }

  async markReturned(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    const time = at.getTime();
    await this.db
      .updateTable('breaches')
      .set({ status: 'NEW', active: 1, disappeared_at: null, status_updated_at: time })
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute();
  }

  async setEvidence(teamId: number, id: number, evidence: string): Promise<void> {
    await this.db
      .updateTable('breaches')
      .set({ evidence })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  }

  async markResolved(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    const time = at.getTime();
    await this.db
      .updateTable('breaches')
      .set({ status: 'RESOLVED', active: 0, disappeared_at: time, status_updated_at: time })
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute();
  }

  /**
   * Keyset along the order index (team_id, first_seen_at, id, disappeared_at, status_updated_at):
   * the first-seen bounds and the cursor are its range, the other bounds are checked inside it.
   * A team has a breach per (policy, host) at most, so the range a filter walks stays small.
   */
  async listPage(query: {
    teamId: number;
    filter: BreachListFilter;
    after: InventoryPosition | undefined;
    limit: number;
  }): Promise<BreachPage> {
    const { teamId, filter, after, limit } = query;
    const bounds = storeBounds(filter);
    const updated = storeRange(filter.statusUpdatedAfter, filter.statusUpdatedBefore);
    let q = this.db
      .selectFrom('breaches as b')
      .innerJoin('assets as a', 'a.id', 'b.asset_id')
      .innerJoin('teams as t', 't.id', 'b.team_id')
      .selectAll('b')
      .select(['a.token as asset_token', 't.token as team_token'])
      .where('b.team_id', '=', teamId);
    const low =
      after === undefined
        ? bounds.firstSeen.low
        : Math.max(bounds.firstSeen.low ?? after.firstSeenAt, after.firstSeenAt);
    if (low !== undefined) q = q.where('b.first_seen_at', '>=', low);
    if (bounds.firstSeen.high !== undefined) q = q.where('b.first_seen_at', '<', bounds.firstSeen.high);
    if (after !== undefined) q = q.where(sql<boolean>`(b.first_seen_at > ${after.firstSeenAt} or b.id > ${after.id})`);
    if (bounds.disappeared.low !== undefined) q = q.where('b.disappeared_at', '>=', bounds.disappeared.low);
    if (bounds.disappeared.high !== undefined) q = q.where('b.disappeared_at', '<', bounds.disappeared.high);
    if (updated.low !== undefined) q = q.where('b.status_updated_at', '>=', updated.low);
    if (updated.high !== undefined) q = q.where('b.status_updated_at', '<', updated.high);
    if (filter.statuses !== undefined && filter.statuses.length > 0) q = q.where('b.status', 'in', filter.statuses);
    const rows = await q
      .orderBy('b.first_seen_at')
      .orderBy('b.id')
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    const tokens = new Map<number, { assetToken: string; teamToken: string }>();
    for (const row of page)
      tokens.set(Number(row.asset_id), { assetToken: row.asset_token, teamToken: row.team_token });
    const last = page[page.length - 1];
    const next =
      rows.length > limit && last !== undefined
        ? { firstSeenAt: Number(last.first_seen_at), id: Number(last.id) }
        : undefined;
    return { items: page.map(toBreach), tokens, next };
  }
}
