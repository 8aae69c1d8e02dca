import type { Kysely } from 'kysely';
import type { AssetPattern, AssetPatternRepository } from '../../core/groups/group.types.ts';
import type { Schema } from '../schema.ts';

interface AssetPatternRow {
  id: number;
  team_id: number;
  group_id: number;
  group_token: string;
  token: string;
  pattern: string;
  created: number;
  updated: number;
}

function toAssetPattern(row: AssetPatternRow): AssetPattern {
  return {
    id: row.id,
    teamId: row.team_id,
    groupId: row.group_id,
    groupToken: row.group_token,
    token: row.token,
    pattern: row.pattern,
    created: new Date(row.created),
    updated: new Date(row.updated),
  };
}

/** Asset patterns on Kysely, joined with their group for its token; every query filters on team_id. */
export class KyselyAssetPatternRepository implements AssetPatternRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  private select(teamId: number) {
    return this.db
      .selectFrom('asset_patterns as p')
      .innerJoin('groups as g', 'g.id', 'p.group_id')
      .select([
        'p.id',
        'p.team_id',
        'p.group_id',
        'g.token as group_token',
        'p.token',
        'p.pattern',
        'p.created',
        'p.updated',
      ])
      .where('p.team_id', '=', teamId);
  }

  async list(teamId: number, groupId: number): Promise<AssetPattern[]> {
    const rows = await this.select(teamId).where('p.group_id', '=', groupId).orderBy('p.id').execute();
    return rows.map(toAssetPattern);
  }

  async listByGroups(teamId: number, groupIds: number[]): Promise<AssetPattern[]> {
    if (groupIds.length === 0) return [];
    const found: AssetPattern[] = [];
    for (let i = 0; i < groupIds.length; i += 500) {
      const rows = await this.select(teamId)
        .where('p.group_id', 'in', groupIds.slice(i, i + 500))
        .orderBy('p.id')
        .execute();
      found.push(...rows.map(toAssetPattern));
    }
    return found;
  }

  async findByToken(teamId: number, groupId: number, token: string): Promise<AssetPattern | undefined> {
    const row = await this.select(teamId)
      .where('p.group_id', '=', groupId)
      .where('p.token', '=', token)
      .executeTakeFirst();
    return row && toAssetPattern(row);
  }

  async insert(pattern: Omit<AssetPattern, 'id' | 'groupToken'>): Promise<AssetPattern> {
    const { id } = await this.db
      .insertInto('asset_patterns')
      .values({
        team_id: pattern.teamId,
        group_id: pattern.groupId,
        token: pattern.token,
        pattern: pattern.pattern,
        created: pattern.created.getTime(),
        updated: pattern.updated.getTime(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return toAssetPattern(await this.select(pattern.teamId).where('p.id', '=', id).executeTakeFirstOrThrow());
  }

  async update(teamId: number, id: number, pattern: string, at: Date): Promise<AssetPattern | undefined> {
    const result = await this.db
      .updateTable('asset_patterns')
      .set({ pattern, updated: at.getTime() })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    const row = await this.select(teamId).where('p.id', '=', id).executeTakeFirst();
    return row && toAssetPattern(row);
  }

  async delete(teamId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('asset_patterns')
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
