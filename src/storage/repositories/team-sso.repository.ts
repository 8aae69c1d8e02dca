import type { Kysely } from 'kysely';
import type { TeamSso, TeamSsoRepository } from '../../core/accounts/sso.types.ts';
import type { Schema } from '../schema.ts';

/** The teams' single sign-on providers on Kysely (migration 023): one row per team at most. */
export class KyselyTeamSsoRepository implements TeamSsoRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async find(teamId: number): Promise<TeamSso | undefined> {
    const row = await this.db.selectFrom('team_sso').selectAll().where('team_id', '=', teamId).executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      teamId: Number(row.team_id),
      issuer: row.issuer,
      clientId: row.client_id,
      clientSecretSealed: row.client_secret_sealed,
      updated: new Date(Number(row.updated_at)),
    };
  }

  async save(sso: TeamSso): Promise<void> {
    const values = {
      issuer: sso.issuer,
      client_id: sso.clientId,
      client_secret_sealed: sso.clientSecretSealed,
      updated_at: sso.updated.getTime(),
    };
    await this.db
      .insertInto('team_sso')
      .values({ team_id: sso.teamId, ...values })
      .onConflict((oc) => oc.column('team_id').doUpdateSet(values))
      .execute();
  }

  async remove(teamId: number): Promise<boolean> {
    const result = await this.db.deleteFrom('team_sso').where('team_id', '=', teamId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
