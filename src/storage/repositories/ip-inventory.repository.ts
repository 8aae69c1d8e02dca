import type { Kysely } from 'kysely';
import type { InventoryPage, InventoryPageQuery } from '../../core/shared/inventory-list.ts';
import type { InventoryRenderer } from '../../core/surface/inventory-renderer.ts';
import type { IpInventoryRepository, IpStateRow, NewIpAddress } from '../../core/surface/ip-inventory.types.ts';
import type { Database, Dialect } from '../database.ts';
import type { Schema } from '../schema.ts';
import { documentTokens, rewriteDocuments, tokensOf } from './inventory-documents.ts';
import { inventoryPage } from './inventory-page.ts';

/** The IP inventory on Kysely. */
export class KyselyIpInventoryRepository implements IpInventoryRepository {
  constructor(
    private readonly db: Kysely<Schema>,
    private readonly dialect: Dialect,
    /** Renders the list documents (the render cache of the v3 items). */
    private readonly renderer: InventoryRenderer,
    /** The store's direct reads (page renderer, version), outside transactions. */
    private readonly direct?: Pick<Database, 'readPage' | 'readVersion'>,
    /** Counts bulk writes toward the table's next ANALYZE on PostgreSQL (table-statistics.ts). */
    private readonly tableChanged?: Database['tableChanged'],
  ) {}

  async listOfAsset(teamId: number, assetId: number): Promise<IpStateRow[]> {
    const rows = await this.db
      .selectFrom('ip_addresses')
      .select(['id', 'ip_address', 'domain_name', 'active'])
      .where('asset_id', '=', assetId)
      .where('team_id', '=', teamId)
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      ipAddress: r.ip_address,
      domainName: r.domain_name,
      active: r.active === 1,
    }));
  }

  async insertMany(rows: NewIpAddress[]): Promise<void> {
    if (rows.length === 0) return;
    this.tableChanged?.('ip_addresses', rows.length);
    const tokens = await documentTokens(
      this.db,
      rows.map((r) => r.assetId),
    );
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
          render_version: this.renderer.version,
          document: this.renderer.ip({ ...r, firstSeenAt: r.at }, tokensOf(tokens, r.assetId)),
        })),
      )
      .onConflict((oc) => oc.columns(['asset_id', 'ip_address']).doNothing())
      .execute();
  }

  async markSeen(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('ip_addresses')
      .set({ active: 1, last_seen_at: at.getTime(), disappeared_at: null })
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute();
  }

  async markDisappeared(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('ip_addresses')
      .set({ active: 0, disappeared_at: at.getTime() })
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute();
  }

  async setDomainName(teamId: number, id: number, domainName: string): Promise<void> {
    await this.db
      .updateTable('ip_addresses')
      .set({ domain_name: domainName })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
    await rewriteDocuments(this.db, this.renderer, 'ip_addresses', teamId, [id]);
  }

  async version(teamId: number): Promise<number> {
    if (this.direct !== undefined) return this.direct.readVersion('ips', teamId);
    const row = await this.db
      .selectFrom('ip_inventory_versions')
      .select('version')
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return Number(row?.version ?? 0);
  }

  async bumpVersion(teamId: number): Promise<void> {
    await this.db
      .insertInto('ip_inventory_versions')
      .values({ team_id: teamId, version: 1 })
      .onConflict((oc) =>
        oc.column('team_id').doUpdateSet((eb) => ({ version: eb('ip_inventory_versions.version', '+', 1) })),
      )
      .execute();
  }

  listPage(query: InventoryPageQuery): Promise<InventoryPage> {
    return inventoryPage(this.db, this.dialect, this.direct?.readPage, this.renderer, 'ip_addresses', query);
  }
}
