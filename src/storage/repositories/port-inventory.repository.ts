import type { Kysely, Selectable } from 'kysely';
import type { InventoryPage } from '../../core/shared/inventory-list.ts';
import type { InventoryRenderer } from '../../core/surface/inventory-renderer.ts';
import type {
  NewPort,
  PortInventoryRepository,
  PortPageQuery,
  PortService,
  PortStateRow,
} from '../../core/surface/port-inventory.types.ts';
import type { Database, Dialect } from '../database.ts';
import type { PortsTable, Schema } from '../schema.ts';
import { documentTokens, rewriteDocuments, tokensOf } from './inventory-documents.ts';
import { inventoryPage } from './inventory-page.ts';
import { bumpInventoryVersion, readInventoryVersion } from './inventory-version.ts';

function serviceOf(
  row: Pick<Selectable<PortsTable>, 'service' | 'is_tls' | 'is_http' | 'banner' | 'product' | 'version'>,
): PortService {
  return {
    name: row.service,
    isTls: row.is_tls === 1,
    isHttp: row.is_http === 1,
    banner: row.banner,
    product: row.product,
    version: row.version,
  };
}

function serviceColumns(service: PortService) {
  return {
    service: service.name,
    is_tls: service.isTls ? 1 : 0,
    is_http: service.isHttp ? 1 : 0,
    banner: service.banner,
    product: service.product,
    version: service.version,
  };
}

/** The port inventory on Kysely. */
export class KyselyPortInventoryRepository implements PortInventoryRepository {
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

  async listOfAsset(teamId: number, assetId: number): Promise<PortStateRow[]> {
    const rows = await this.db
      .selectFrom('ports')
      .select([
        'id',
        'ip_address',
        'port',
        'domain_name',
        'status',
        'service',
        'is_tls',
        'is_http',
        'banner',
        'product',
        'version',
      ])
      .where('asset_id', '=', assetId)
      .where('team_id', '=', teamId)
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      ipAddress: r.ip_address,
      port: Number(r.port),
      domainName: r.domain_name,
      status: r.status,
      service: serviceOf(r),
    }));
  }

  async insertMany(rows: NewPort[]): Promise<void> {
    if (rows.length === 0) return;
    this.tableChanged?.('ports', rows.length);
    const tokens = await documentTokens(
      this.db,
      rows.map((r) => r.assetId),
    );
    await this.db
      .insertInto('ports')
      .values(
        rows.map((r) => ({
          team_id: r.teamId,
          asset_id: r.assetId,
          ip_address: r.ipAddress,
          port: r.port,
          domain_name: r.domainName,
          status: 'OPEN' as const,
          ...serviceColumns(r.service),
          first_seen_at: r.at.getTime(),
          last_seen_at: r.at.getTime(),
          disappeared_at: null,
          render_version: this.renderer.version,
          document: this.renderer.port({ ...r, firstSeenAt: r.at }, tokensOf(tokens, r.assetId)),
        })),
      )
      .onConflict((oc) => oc.columns(['asset_id', 'ip_address', 'port']).doNothing())
      .execute();
  }

  async markOpen(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('ports')
      .set({ status: 'OPEN', last_seen_at: at.getTime(), disappeared_at: null })
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute();
  }

  async markClosed(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('ports')
      .set({ status: 'CLOSED', disappeared_at: at.getTime() })
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute();
  }

  async setDetails(teamId: number, id: number, domainName: string, service: PortService): Promise<void> {
    await this.db
      .updateTable('ports')
      .set({ domain_name: domainName, ...serviceColumns(service) })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
    await rewriteDocuments(this.db, this.renderer, 'ports', teamId, [id]);
  }

  async version(teamId: number): Promise<number> {
    if (this.direct !== undefined) return this.direct.readVersion('ports', teamId);
    return readInventoryVersion(this.db, teamId, 'ports');
  }

  bumpVersion(teamId: number): Promise<void> {
    return bumpInventoryVersion(this.db, teamId, 'ports');
  }

  listPage(query: PortPageQuery): Promise<InventoryPage> {
    const statuses = new Set(query.statuses ?? []);
    // OPEN exactly while disappeared_at is null (a check constraint): the status filter is a gone-or-not condition.
    const isGone = statuses.size === 1 ? statuses.has('CLOSED') : undefined;
    return inventoryPage(this.db, this.dialect, this.direct?.readPage, this.renderer, 'ports', query, {
      isGone,
      ports: query.ports,
    });
  }
}
