import { storedMember } from './stored-value.ts';
import type { Kysely, Selectable } from 'kysely';
import { sql } from '../kysely.ts';
import {
  connectorAssetKinds,
  connectorProviders,
  connectorRunStatuses,
  type Connector,
  type ConnectorAsset,
  type ConnectorPosition,
  type ConnectorRepository,
  type ConnectorRun,
  type SeenConnectorAsset,
} from '../../core/connectors/connector.types.ts';
import type { ConnectorsTable, Schema } from '../schema.ts';

/** Rows written per statement when a run records what it saw (8 parameters a row). */
const assetBatch = 500;

type ConnectorRow = Selectable<ConnectorsTable> & { team_token: string };

function toConnector(row: ConnectorRow): Connector {
  return {
    id: Number(row.id),
    publicId: row.public_id,
    teamId: Number(row.team_id),
    teamToken: row.team_token,
    name: row.name,
    provider: storedMember(connectorProviders, row.provider, `connector ${row.id}`),
    optionsSealed: row.options_sealed,
    created: new Date(Number(row.created_at)),
    updated: new Date(Number(row.updated_at)),
    runRequests: Number(row.run_requests),
    lastRun:
      row.last_run_status === null
        ? null
        : {
            status: storedMember(connectorRunStatuses, row.last_run_status, `connector ${row.id} run`),
            error: row.last_run_error ?? '',
            completedAt: row.last_run_completed_at === null ? null : new Date(Number(row.last_run_completed_at)),
          },
  };
}

/** Connectors and external IDs on Kysely; every query filters on team_id. */
export class KyselyConnectorRepository implements ConnectorRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  private select(teamIds: number[]) {
    return this.db
      .selectFrom('connectors')
      .innerJoin('teams', 'teams.id', 'connectors.team_id')
      .selectAll('connectors')
      .select('teams.token as team_token')
      .where('connectors.team_id', 'in', teamIds);
  }

  async insert(connector: Omit<Connector, 'id' | 'teamToken' | 'lastRun' | 'runRequests'>): Promise<Connector> {
    const { id } = await this.db
      .insertInto('connectors')
      .values({
        team_id: connector.teamId,
        public_id: connector.publicId,
        name: connector.name,
        provider: connector.provider,
        options_sealed: connector.optionsSealed,
        created_at: connector.created.getTime(),
        updated_at: connector.updated.getTime(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const row = await this.select([connector.teamId]).where('connectors.id', '=', id).executeTakeFirstOrThrow();
    return toConnector(row);
  }

  async list(teamIds: number[], after: ConnectorPosition | undefined, limit: number): Promise<Connector[]> {
    let query = this.select(teamIds);
    if (after !== undefined) {
      query = query.where((eb) =>
        eb.or([
          eb('connectors.created_at', '>', after.created),
          eb.and([eb('connectors.created_at', '=', after.created), eb('connectors.id', '>', after.id)]),
        ]),
      );
    }
    const rows = await query.orderBy('connectors.created_at').orderBy('connectors.id').limit(limit).execute();
    return rows.map(toConnector);
  }

  async findByPublicId(teamIds: number[], publicId: string): Promise<Connector | undefined> {
    const row = await this.select(teamIds).where('connectors.public_id', '=', publicId).executeTakeFirst();
    return row && toConnector(row);
  }

  async delete(teamIds: number[], publicId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('connectors')
      .where('team_id', 'in', teamIds)
      .where('public_id', '=', publicId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async externalId(teamId: number, candidate: string, at: Date): Promise<string> {
    // Insert or ignore, then read: of concurrent first requests one row wins and all read it.
    await this.db
      .insertInto('connector_external_ids')
      .values({ team_id: teamId, external_id: candidate, created_at: at.getTime() })
      .onConflict((oc) => oc.column('team_id').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('connector_external_ids')
      .select('external_id')
      .where('team_id', '=', teamId)
      .executeTakeFirstOrThrow();
    return row.external_id;
  }

  async findForRun(teamId: number, id: number): Promise<Connector | undefined> {
    const row = await this.select([teamId]).where('connectors.id', '=', id).executeTakeFirst();
    return row && toConnector(row);
  }

  async setRun(teamId: number, id: number, run: ConnectorRun): Promise<void> {
    await this.db
      .updateTable('connectors')
      .set({
        last_run_status: run.status,
        last_run_error: run.error,
        last_run_completed_at: run.completedAt === null ? null : run.completedAt.getTime(),
      })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  }

  async queueRun(teamId: number, id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('connectors')
      .set((eb) => ({
        last_run_status: 'QUEUED',
        last_run_error: '',
        last_run_completed_at: null,
        run_requests: eb('run_requests', '+', 1),
      }))
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_run_status', 'is', null), eb('last_run_status', 'not in', ['QUEUED', 'RUNNING'])]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async setNextRun(teamId: number, id: number, at: Date): Promise<void> {
    await this.db
      .updateTable('connectors')
      .set({ next_run_at: at.getTime() })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  }

  async claimDue(now: Date, next: Date, limit: number): Promise<{ teamId: number; id: number }[]> {
    const due = await this.db
      .selectFrom('connectors')
      .select(['id', 'team_id', 'next_run_at'])
      .where((eb) => eb.or([eb('next_run_at', 'is', null), eb('next_run_at', '<=', now.getTime())]))
      .orderBy('next_run_at')
      .limit(limit)
      .execute();
    const claimed: { teamId: number; id: number }[] = [];
    for (const row of due) {
      // Compare and set: only the scheduler that still sees the old value moves it on.
      const result = await this.db
        .updateTable('connectors')
        .set({ next_run_at: next.getTime() })
        .where('id', '=', row.id)
        .where((eb) =>
          row.next_run_at === null ? eb('next_run_at', 'is', null) : eb('next_run_at', '=', row.next_run_at),
        )
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) > 0) claimed.push({ teamId: Number(row.team_id), id: Number(row.id) });
    }
    return claimed;
  }

  async recordAssets(
    teamId: number,
    id: number,
    seen: SeenConnectorAsset[],
    at: Date,
  ): Promise<{ added: number; gone: number }> {
    const time = at.getTime();
    for (let i = 0; i < seen.length; i += assetBatch) {
      const rows = seen.slice(i, i + assetBatch).map((a) => ({
        connector_id: id,
        team_id: teamId,
        name: a.name,
        kind: a.kind,
        source: a.source,
        first_seen_at: time,
        last_seen_at: time,
        gone_at: null,
      }));
      await this.db
        .insertInto('connector_assets')
        .values(rows)
        .onConflict((oc) =>
          oc.columns(['connector_id', 'kind', 'name']).doUpdateSet({
            source: (eb) => eb.ref('excluded.source'),
            last_seen_at: time,
            gone_at: null,
          }),
        )
        .execute();
    }
    const gone = await this.db
      .updateTable('connector_assets')
      .set({ gone_at: time })
      .where('team_id', '=', teamId)
      .where('connector_id', '=', id)
      .where('gone_at', 'is', null)
      .where('last_seen_at', '<', time)
      .executeTakeFirst();
    // New rows are the ones first seen now (a row seen before keeps its first_seen_at).
    const added = await this.db
      .selectFrom('connector_assets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .where('connector_id', '=', id)
      .where('first_seen_at', '=', time)
      .executeTakeFirstOrThrow();
    return { added: Number(added.n), gone: Number(gone.numUpdatedRows) };
  }

  async listAssets(teamId: number, id: number, limit: number): Promise<ConnectorAsset[]> {
    const rows = await this.db
      .selectFrom('connector_assets')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('connector_id', '=', id)
      .orderBy(sql`case when gone_at is null then 0 else 1 end`)
      .orderBy('kind')
      .orderBy('name')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      name: r.name,
      kind: storedMember(connectorAssetKinds, r.kind, `connector ${id} asset`),
      source: r.source,
      firstSeen: new Date(Number(r.first_seen_at)),
      lastSeen: new Date(Number(r.last_seen_at)),
      goneAt: r.gone_at === null ? null : new Date(Number(r.gone_at)),
    }));
  }

  async liveRuns(status?: 'QUEUED' | 'RUNNING'): Promise<{ teamId: number; id: number; runRequests: number }[]> {
    const rows = await this.db
      .selectFrom('connectors')
      .select(['id', 'team_id', 'run_requests'])
      .where('last_run_status', 'in', status === undefined ? ['QUEUED', 'RUNNING'] : [status])
      .execute();
    return rows.map((r) => ({ teamId: Number(r.team_id), id: Number(r.id), runRequests: Number(r.run_requests) }));
  }

  async countAssets(teamId: number, id: number): Promise<{ total: number; gone: number }> {
    const row = await this.db
      .selectFrom('connector_assets')
      .select((eb) => [eb.fn.countAll<number>().as('total'), eb.fn.count<number>('gone_at').as('gone')])
      .where('team_id', '=', teamId)
      .where('connector_id', '=', id)
      .executeTakeFirstOrThrow();
    return { total: Number(row.total), gone: Number(row.gone) };
  }
}
