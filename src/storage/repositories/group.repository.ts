import type { Kysely, Selectable } from 'kysely';
import type { Group, GroupRepository } from '../../core/groups/group.types.ts';
import type { GroupsTable, Schema } from '../schema.ts';

function toGroup(row: Selectable<GroupsTable>): Group {
  return {
    id: row.id,
    teamId: row.team_id,
    token: row.token,
    name: row.name,
    description: row.description,
    created: new Date(row.created),
    updated: new Date(row.updated),
  };
}

/** Groups on Kysely; every query filters on team_id. Names are unique per team ignoring case (name_key). */
export class KyselyGroupRepository implements GroupRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async list(teamId: number): Promise<Group[]> {
    const rows = await this.db.selectFrom('groups').selectAll().where('team_id', '=', teamId).orderBy('id').execute();
    return rows.map(toGroup);
  }

  async findByToken(teamId: number, token: string): Promise<Group | undefined> {
    const row = await this.db
      .selectFrom('groups')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('token', '=', token)
      .executeTakeFirst();
    return row && toGroup(row);
  }

  async findByTokens(teamId: number, tokens: string[]): Promise<Group[]> {
    if (tokens.length === 0) return [];
    const found: Group[] = [];
    for (let i = 0; i < tokens.length; i += 500) {
      const rows = await this.db
        .selectFrom('groups')
        .selectAll()
        .where('team_id', '=', teamId)
        .where('token', 'in', tokens.slice(i, i + 500))
        .orderBy('id')
        .execute();
      found.push(...rows.map(toGroup));
    }
    return found;
  }

  async findByName(teamId: number, name: string): Promise<Group | undefined> {
    const row = await this.db
      .selectFrom('groups')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('name_key', '=', name.toLowerCase())
      .executeTakeFirst();
    return row && toGroup(row);
  }

  async insert(group: Omit<Group, 'id'>): Promise<Group> {
    const row = await this.db
      .insertInto('groups')
      .values({
        team_id: group.teamId,
        token: group.token,
        name: group.name,
        name_key: group.name.toLowerCase(),
        description: group.description,
        created: group.created.getTime(),
        updated: group.updated.getTime(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toGroup(row);
  }

  async update(
    teamId: number,
    id: number,
    fields: Pick<Group, 'name' | 'description' | 'updated'>,
  ): Promise<Group | undefined> {
    const row = await this.db
      .updateTable('groups')
      .set({
        name: fields.name,
        name_key: fields.name.toLowerCase(),
        description: fields.description,
        updated: fields.updated.getTime(),
      })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toGroup(row);
  }

  async delete(teamId: number, id: number): Promise<boolean> {
    // The foreign keys cascade too; deleting explicitly keeps it true on any connection setup.
    await this.db.deleteFrom('group_members').where('team_id', '=', teamId).where('group_id', '=', id).execute();
    await this.db.deleteFrom('asset_patterns').where('team_id', '=', teamId).where('group_id', '=', id).execute();
    const result = await this.db
      .deleteFrom('groups')
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
