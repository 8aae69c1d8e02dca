import type { Kysely } from 'kysely';
import type { GroupMember, GroupMemberRepository } from '../../core/groups/group.types.ts';
import type { Schema } from '../schema.ts';

interface GroupMemberRow {
  id: number;
  team_id: number;
  group_id: number;
  group_token: string;
  member_id: number;
  user_token: string;
  token: string;
  created: number;
  updated: number;
}

function toGroupMember(row: GroupMemberRow): GroupMember {
  return {
    id: row.id,
    teamId: row.team_id,
    groupId: row.group_id,
    groupToken: row.group_token,
    memberId: row.member_id,
    userToken: row.user_token,
    token: row.token,
    created: new Date(row.created),
    updated: new Date(row.updated),
  };
}

/** Group members on Kysely, joined with their group and member for the tokens; every query filters on team_id. */
export class KyselyGroupMemberRepository implements GroupMemberRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  private select(teamId: number, groupId: number) {
    return this.db
      .selectFrom('group_members as gm')
      .innerJoin('groups as g', 'g.id', 'gm.group_id')
      .innerJoin('members as m', 'm.id', 'gm.member_id')
      .select([
        'gm.id',
        'gm.team_id',
        'gm.group_id',
        'g.token as group_token',
        'gm.member_id',
        'm.user_token',
        'gm.token',
        'gm.created',
        'gm.updated',
      ])
      .where('gm.team_id', '=', teamId)
      .where('gm.group_id', '=', groupId);
  }

  async list(teamId: number, groupId: number): Promise<GroupMember[]> {
    const rows = await this.select(teamId, groupId).orderBy('gm.id').execute();
    return rows.map(toGroupMember);
  }

  async findByToken(teamId: number, groupId: number, token: string): Promise<GroupMember | undefined> {
    const row = await this.select(teamId, groupId).where('gm.token', '=', token).executeTakeFirst();
    return row && toGroupMember(row);
  }

  async findByMember(teamId: number, groupId: number, memberId: number): Promise<GroupMember | undefined> {
    const row = await this.select(teamId, groupId).where('gm.member_id', '=', memberId).executeTakeFirst();
    return row && toGroupMember(row);
  }

  async insert(member: Omit<GroupMember, 'id' | 'groupToken' | 'userToken'>): Promise<GroupMember> {
    const { id } = await this.db
      .insertInto('group_members')
      .values({
        team_id: member.teamId,
        group_id: member.groupId,
        member_id: member.memberId,
        token: member.token,
        created: member.created.getTime(),
        updated: member.updated.getTime(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const row = await this.select(member.teamId, member.groupId).where('gm.id', '=', id).executeTakeFirstOrThrow();
    return toGroupMember(row);
  }

  async delete(teamId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('group_members')
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
