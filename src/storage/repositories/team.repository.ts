import type { Kysely, Selectable } from 'kysely';
import type { PlanName } from '../../core/teams/plans.ts';
import type { ApiKey, ApiKeyRepository, Team, TeamRepository } from '../../core/teams/team.types.ts';
import type { EndpointGroup } from '../../core/teams/plans.ts';
import type { ApiKeysTable, Schema, TeamsTable } from '../schema.ts';

function toTeam(row: Selectable<TeamsTable>): Team {
  return {
    id: row.id,
    token: row.token,
    name: row.name,
    plan: row.plan as PlanName,
    verificationCode: row.verification_code,
    created: new Date(row.created),
  };
}

/** Teams on Kysely. */
export class KyselyTeamRepository implements TeamRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async insert(team: Omit<Team, 'id'>): Promise<Team> {
    const row = await this.db
      .insertInto('teams')
      .values({
        token: team.token,
        name: team.name,
        plan: team.plan,
        verification_code: team.verificationCode,
        created: team.created.getTime(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toTeam(row);
  }

  async findById(id: number): Promise<Team | undefined> {
    const row = await this.db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toTeam(row);
  }

  async findByName(name: string): Promise<Team | undefined> {
    const row = await this.db.selectFrom('teams').selectAll().where('name', '=', name).executeTakeFirst();
    return row && toTeam(row);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('teams')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function toKey(row: Selectable<ApiKeysTable>, teamIds: number[]): ApiKey {
  return {
    id: row.id,
    publicId: row.public_id,
    kind: row.kind,
    hint: row.key_hint,
    permissions: row.permissions === null ? null : (JSON.parse(row.permissions) as EndpointGroup[]),
    secretSealed: row.secret_enc,
    teamIds,
    created: new Date(row.created),
    revoked: row.revoked === null ? null : new Date(row.revoked),
    lastUsed: row.last_used === null ? null : new Date(row.last_used),
  };
}

/** API keys on Kysely. */
export class KyselyApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async insert(key: Omit<ApiKey, 'id' | 'lastUsed'> & { keyHash: string }): Promise<ApiKey> {
    const row = await this.db
      .insertInto('api_keys')
      .values({
        public_id: key.publicId,
        key_hash: key.keyHash,
        key_hint: key.hint,
        kind: key.kind,
        permissions: key.permissions === null ? null : JSON.stringify(key.permissions),
        secret_enc: key.secretSealed,
        created: key.created.getTime(),
        revoked: null,
        last_used: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await this.db
      .insertInto('api_key_teams')
      .values(key.teamIds.map((teamId) => ({ key_id: row.id, team_id: teamId })))
      .execute();
    return toKey(row, key.teamIds);
  }

  async findByHash(keyHash: string): Promise<ApiKey | undefined> {
    return this.findOne('key_hash', keyHash);
  }

  async findByPublicId(publicId: string): Promise<ApiKey | undefined> {
    return this.findOne('public_id', publicId);
  }

  private async findOne(column: 'key_hash' | 'public_id', value: string): Promise<ApiKey | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where(column, '=', value).executeTakeFirst();
    if (row === undefined) return undefined;
    const teams = await this.db
      .selectFrom('api_key_teams')
      .select('team_id')
      .where('key_id', '=', row.id)
      .orderBy('team_id')
      .execute();
    return toKey(
      row,
      teams.map((t) => t.team_id),
    );
  }

  async listByTeam(teamId: number): Promise<ApiKey[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .innerJoin('api_key_teams', 'api_key_teams.key_id', 'api_keys.id')
      .selectAll('api_keys')
      .where('api_key_teams.team_id', '=', teamId)
      .orderBy('api_keys.id')
      .execute();
    return rows.map((row) => toKey(row, [teamId]));
  }

  async revoke(id: number, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked: at.getTime() })
      .where('id', '=', id)
      .where('revoked', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async recordUse(id: number, at: Date, notBefore: Date): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ last_used: at.getTime() })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used', 'is', null), eb('last_used', '<', notBefore.getTime())]))
      .execute();
  }
}
