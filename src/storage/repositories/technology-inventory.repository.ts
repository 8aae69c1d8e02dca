import type { Kysely } from 'kysely';
import type { InventoryPage, InventoryPageQuery } from '../../core/shared/inventory-list.ts';
import type { InventoryRenderer } from '../../core/surface/inventory-renderer.ts';
import type {
  NewTechnology,
  TechnologyInventoryRepository,
  TechnologyStateRow,
} from '../../core/surface/technology-inventory.types.ts';
import type { Database, Dialect } from '../database.ts';
import type { Schema } from '../schema.ts';
import { documentTokens, rewriteDocuments, tokensOf } from './inventory-documents.ts';
import { inventoryPage } from './inventory-page.ts';
import { bumpInventoryVersion, readInventoryVersion } from './inventory-version.ts';

function categoriesOf(text: string): string[] {
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === 'string') : [];
}

/** The technology inventory on Kysely. */
export class KyselyTechnologyInventoryRepository implements TechnologyInventoryRepository {
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
    this.tableChanged?.('technologies', rows.length);
    const tokens = await documentTokens(
      this.db,
      rows.map((r) => r.assetId),
    );
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
          render_version: this.renderer.version,
          document: this.renderer.technology({ ...r, firstSeenAt: r.at }, tokensOf(tokens, r.assetId)),
        })),
      )
      // The identity index is on an expression (coalesce(version, '')): no conflict target names it.
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async markSeen(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('technologies')
      .set({ active: 1, last_seen_at: at.getTime(), disappeared_at: null })
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute();
  }

  async markDisappeared(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('technologies')
      .set({ active: 0, disappeared_at: at.getTime() })
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute();
  }

  async setDetails(teamId: number, id: number, serviceProtocol: string, categories: string[]): Promise<void> {
    await this.db
      .updateTable('technologies')
      .set({ service_protocol: serviceProtocol, categories: JSON.stringify(categories) })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
    await rewriteDocuments(this.db, this.renderer, 'technologies', teamId, [id]);
  }

  async version(teamId: number): Promise<number> {
    if (this.direct !== undefined) return this.direct.readVersion('technologies', teamId);
    return readInventoryVersion(this.db, teamId, 'technologies');
  }

  bumpVersion(teamId: number): Promise<void> {
    return bumpInventoryVersion(this.db, teamId, 'technologies');
  }

  listPage(query: InventoryPageQuery): Promise<InventoryPage> {
    return inventoryPage(this.db, this.dialect, this.direct?.readPage, this.renderer, 'technologies', query);
  }
}
