import { storedMember } from './stored-value.ts';
import type { Kysely, Selectable } from 'kysely';
import {
  connectorProviders,
  type Connector,
  type ConnectorPosition,
  type ConnectorRepository,
} from '../../core/connectors/connector.types.ts';
import type { ConnectorsTable, Schema } from '../schema.ts';

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
    lastRun:
      row.last_run_status === null || row.last_run_completed_at === null
        ? null
        : {
            status: row.last_run_status,
            error: row.last_run_error ?? '',
            completedAt: new Date(Number(row.last_run_completed_at)),
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

  async insert(connector: Omit<Connector, 'id' | 'teamToken' | 'lastRun'>): Promise<Connector> {
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
}
