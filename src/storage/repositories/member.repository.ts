import type { Kysely, Selectable } from 'kysely';
import { sql } from '../kysely.ts';
import type {
  Member,
  MemberAuthentication,
  MemberProfile,
  MemberRepository,
  MemberRole,
  MemberState,
} from '../../core/members/member.types.ts';
import type { Dialect } from '../database.ts';
import type { MembersTable, Schema } from '../schema.ts';

function toMember(row: Selectable<MembersTable>): Member {
  return {
    id: row.id,
    teamId: row.team_id,
    userToken: row.user_token,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    role: row.role as MemberRole,
    state: row.state as MemberState,
    authentication: row.authentication as MemberAuthentication,
    created: new Date(row.created),
    lastLogin: row.last_login === null ? null : new Date(row.last_login),
  };
}

/** Team members on Kysely; every query filters on team_id. */
export class KyselyMemberRepository implements MemberRepository {
  constructor(
    private readonly db: Kysely<Schema>,
    private readonly dialect: Dialect,
  ) {}

  async listByTeam(teamId: number): Promise<Member[]> {
    const rows = await this.db.selectFrom('members').selectAll().where('team_id', '=', teamId).orderBy('id').execute();
    return rows.map(toMember);
  }

  async findByEmails(teamId: number, emails: string[]): Promise<Member[]> {
    if (emails.length === 0) return [];
    const found: Member[] = [];
    // Chunks keep the IN list far below the bind-parameter limits of both dialects.
    for (let i = 0; i < emails.length; i += 500) {
      const rows = await this.db
        .selectFrom('members')
        .selectAll()
        .where('team_id', '=', teamId)
        .where('email', 'in', emails.slice(i, i + 500))
        .execute();
      found.push(...rows.map(toMember));
    }
    return found;
  }

  async findById(teamId: number, id: number): Promise<Member | undefined> {
    const row = await this.db
      .selectFrom('members')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toMember(row);
  }

  async setAuthentication(teamId: number, id: number, authentication: MemberAuthentication): Promise<void> {
    await this.db
      .updateTable('members')
      .set({ authentication })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  }

  async setRole(teamId: number, id: number, role: MemberRole): Promise<void> {
    await this.db.updateTable('members').set({ role }).where('team_id', '=', teamId).where('id', '=', id).execute();
  }

  async remove(teamId: number, id: number): Promise<void> {
    await this.db.deleteFrom('members').where('team_id', '=', teamId).where('id', '=', id).execute();
  }

  async findByUserToken(teamId: number, userToken: string): Promise<Member | undefined> {
    const row = await this.db
      .selectFrom('members')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('user_token', '=', userToken)
      .executeTakeFirst();
    return row && toMember(row);
  }

  async insertMany(members: Array<Omit<Member, 'id'>>): Promise<void> {
    for (let i = 0; i < members.length; i += 200) {
      const values = members.slice(i, i + 200).map((m) => ({
        team_id: m.teamId,
        user_token: m.userToken,
        email: m.email,
        first_name: m.firstName,
        last_name: m.lastName,
        role: m.role,
        state: m.state,
        authentication: m.authentication,
        created: m.created.getTime(),
        last_login: m.lastLogin?.getTime() ?? null,
      }));
      await this.db.insertInto('members').values(values).execute();
    }
  }

  async activate(teamId: number, id: number, profile: MemberProfile): Promise<Member | undefined> {
    const row = await this.db
      .updateTable('members')
      .set({
        state: 'active',
        first_name: profile.firstName,
        last_name: profile.lastName,
        authentication: profile.authentication,
      })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toMember(row);
  }

  // NO KEY UPDATE: lockTeam callers wait for each other, but the foreign-key checks of rows the
  // team's other transactions insert (key share locks) do not wait for them, nor deadlock with them.
  async lockTeam(teamId: number): Promise<void> {
    if (this.dialect === 'postgres')
      await sql`select id from teams where id = ${teamId} for no key update`.execute(this.db);
  }
}
