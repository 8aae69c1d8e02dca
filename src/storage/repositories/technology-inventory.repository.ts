import type { Kysely, Selectable } from 'kysely';
import type { InventoryPageQuery } from '../../core/shared/inventory-list.ts';
import type { NewTechnology, TechnologyInventoryRepository, TechnologyRecord, TechnologyStateRow } from '../../core/surface/technology-inventory.types.ts';
import type { Schema, TechnologiesTable } from '../schema.ts';
import { sql } from '../kysely.ts';
import { inventoryPage } from './inventory-page.ts';
import { bumpInventoryVersion, readInventoryVersion } from './inventory-version.ts';

function categoriesOf(text: string): string[] {
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === 'string') : [];
}

function toRecord(row: Selectable<TechnologiesTable> & { asset_token: string }): TechnologyRecord {
  return {
    id: Number(row.id),
    teamId: row.team_id,
    assetId: row.asset_id,
    assetToken: row.asset_token,
    domainName: row.domain_name,
    port: Number(row.port),
    serviceProtocol: row.service_protocol,
    name: row.name,
    version: row.version,
    categories: categoriesOf(row.categories),
    active: row.active === 1,
    firstSeenAt: new Date(Number(row.first_seen_at)),
    lastSeenAt: new Date(Number(row.last_seen_at)),
    disappearedAt: row.disappeared_at === null ? null : new Date(Number(row.disappeared_at)),
  };
}

/** The technology inventory on Kysely. */
export class KyselyTechnologyInventoryRepository implements TechnologyInventoryRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async listOfAsset(teamId: number, assetId: number): Promise<TechnologyStateRow[]> {
    const rows = await this.db
      .selectFrom('technologies')
      .select(['id', 'domain_name', 'port', 'name', 'version', 'service_protocol', 'categories', 'active'])
      .where('asset_id', '=', assetId)
      .where('team_id', '=', teamId)
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      domainName: r.domain_name,
      port: Number(r.port),
      name: r.name,
      version: r.version,
      serviceProtocol: r.service_protocol,
      categories: categoriesOf(r.categories),
      active: r.active === 1,
    }));
  }

  async insertMany(rows: NewTechnology[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('technologies')
      .values(
        rows.map((r) => ({
          team_id: r.teamId,
          asset_id: r.assetId,
          domain_name: r.domainName,
          port: r.port,
          name: r.name,
          version: r.version,
          service_protocol: r.serviceProtocol,
          categories: JSON.stringify(r.categories),
          active: 1,
          first_seen_at: r.at.getTime(),
          last_seen_at: r.at.getTime(),
          disappeared_at: null,
        })),
      )
      // The identity index is on an expression (coalesce(version, '')): no conflict target names it.
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async markSeen(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('technologies').set({ active: 1, last_seen_at: at.getTime(), disappeared_at: null }).where('team_id', '=', teamId).where('id', 'in', ids).execute();
  }

  async markDisappeared(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('technologies').set({ active: 0, disappeared_at: at.getTime() }).where('team_id', '=', teamId).where('id', 'in', ids).execute();
  }

  async setDetails(teamId: number, id: number, serviceProtocol: string, categories: string[]): Promise<void> {
    await this.db.updateTable('technologies').set({ service_protocol: serviceProtocol, categories: JSON.stringify(categories) }).where('team_id', '=', teamId).where('id', '=', id).execute();
  }

  version(teamId: number): Promise<number> {
    return readInventoryVersion(this.db, teamId, 'technologies');
  }

  bumpVersion(teamId: number): Promise<void> {
    return bumpInventoryVersion(this.db, teamId, 'technologies');
  }

  async listPage(query: InventoryPageQuery): Promise<TechnologyRecord[]> {
    return inventoryPage(this.db, 'technologies', query, async (keys) => {
      const { rows } = await sql<Selectable<TechnologiesTable> & { asset_token: string }>`
        select t.*, a.token as asset_token
        from (${keys}) k
        join technologies t on t.id = k.id
        join assets a on a.id = t.asset_id
        where t.team_id = ${query.teamId}
        order by k.first_seen_at, k.id`.execute(this.db);
      return rows.map(toRecord);
    });
  }
}
