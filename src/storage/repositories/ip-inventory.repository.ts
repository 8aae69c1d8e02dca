import type { Kysely, Selectable } from 'kysely';
import type { InventoryPageQuery } from '../../core/shared/inventory-list.ts';
import type { IpAddressRecord, IpInventoryRepository, IpStateRow, NewIpAddress } from '../../core/surface/ip-inventory.types.ts';
import type { IpAddressesTable, Schema } from '../schema.ts';
import { sql } from '../kysely.ts';
import { inventoryPage } from './inventory-page.ts';

function toRecord(row: Selectable<IpAddressesTable> & { asset_token: string }): IpAddressRecord {
  return {
    id: Number(row.id),
    teamId: row.team_id,
    assetId: row.asset_id,
    assetToken: row.asset_token,
    ipAddress: row.ip_address,
    ipVersion: row.ip_version,
    domainName: row.domain_name,
    active: row.active === 1,
    firstSeenAt: new Date(Number(row.first_seen_at)),
    lastSeenAt: new Date(Number(row.last_seen_at)),
    disappearedAt: row.disappeared_at === null ? null : new Date(Number(row.disappeared_at)),
    enriched: row.enriched === 1,
    enrichment: {
      asNumber: row.as_number === null ? null : Number(row.as_number),
      asName: row.as_name,
      asDomain: row.as_domain,
      continent: row.continent,
      continentName: row.continent_name,
      country: row.country,
      countryName: row.country_name,
    },
  };
}

/** The IP inventory on Kysely. */
export class KyselyIpInventoryRepository implements IpInventoryRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async listOfAsset(teamId: number, assetId: number): Promise<IpStateRow[]> {
    const rows = await this.db
      .selectFrom('ip_addresses')
      .select(['id', 'ip_address', 'domain_name', 'active'])
      .where('asset_id', '=', assetId)
      .where('team_id', '=', teamId)
      .execute();
    return rows.map((r) => ({ id: Number(r.id), ipAddress: r.ip_address, domainName: r.domain_name, active: r.active === 1 }));
  }

  async insertMany(rows: NewIpAddress[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('ip_addresses')
      .values(
        rows.map((r) => ({
          team_id: r.teamId,
          asset_id: r.assetId,
          ip_address: r.ipAddress,
          ip_version: r.ipVersion,
          domain_name: r.domainName,
          active: 1,
          first_seen_at: r.at.getTime(),
          last_seen_at: r.at.getTime(),
          disappeared_at: null,
          enriched: r.enrichment === undefined ? 0 : 1,
          as_number: r.enrichment?.asNumber ?? null,
          as_name: r.enrichment?.asName ?? null,
          as_domain: r.enrichment?.asDomain ?? null,
          continent: r.enrichment?.continent ?? null,
          continent_name: r.enrichment?.continentName ?? null,
          country: r.enrichment?.country ?? null,
          country_name: r.enrichment?.countryName ?? null,
        })),
      )
      .onConflict((oc) => oc.columns(['asset_id', 'ip_address']).doNothing())
      .execute();
  }

  async markSeen(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('ip_addresses').set({ active: 1, last_seen_at: at.getTime(), disappeared_at: null }).where('team_id', '=', teamId).where('id', 'in', ids).execute();
  }

  async markDisappeared(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('ip_addresses').set({ active: 0, disappeared_at: at.getTime() }).where('team_id', '=', teamId).where('id', 'in', ids).execute();
  }

  async setDomainName(teamId: number, id: number, domainName: string): Promise<void> {
    await this.db.updateTable('ip_addresses').set({ domain_name: domainName }).where('team_id', '=', teamId).where('id', '=', id).execute();
  }

  async version(teamId: number): Promise<number> {
    const row = await this.db.selectFrom('ip_inventory_versions').select('version').where('team_id', '=', teamId).executeTakeFirst();
    return Number(row?.version ?? 0);
  }

  async bumpVersion(teamId: number): Promise<void> {
    await this.db
      .insertInto('ip_inventory_versions')
      .values({ team_id: teamId, version: 1 })
      .onConflict((oc) => oc.column('team_id').doUpdateSet((eb) => ({ version: eb('ip_inventory_versions.version', '+', 1) })))
      .execute();
  }

  async listPage(query: InventoryPageQuery): Promise<IpAddressRecord[]> {
    return inventoryPage(this.db, 'ip_addresses', query, async (keys) => {
      const { rows } = await sql<Selectable<IpAddressesTable> & { asset_token: string }>`
        select i.*, a.token as asset_token
        from (${keys}) k
        join ip_addresses i on i.id = k.id
        join assets a on a.id = i.asset_id
        where i.team_id = ${query.teamId}
        order by k.first_seen_at, k.id`.execute(this.db);
      return rows.map(toRecord);
    });
  }
}
