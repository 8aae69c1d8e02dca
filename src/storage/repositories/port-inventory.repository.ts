import type { Kysely, Selectable } from 'kysely';
import type { NewPort, PortInventoryRepository, PortPageQuery, PortRecord, PortService, PortStateRow } from '../../core/surface/port-inventory.types.ts';
import type { PortsTable, Schema } from '../schema.ts';
import { sql } from '../kysely.ts';
import { inventoryPage } from './inventory-page.ts';
import { bumpInventoryVersion, readInventoryVersion } from './inventory-version.ts';

function serviceOf(row: Pick<Selectable<PortsTable>, 'service' | 'is_tls' | 'is_http' | 'banner' | 'product' | 'version'>): PortService {
  return { name: row.service, isTls: row.is_tls === 1, isHttp: row.is_http === 1, banner: row.banner, product: row.product, version: row.version };
}

function serviceColumns(service: PortService) {
  return { service: service.name, is_tls: service.isTls ? 1 : 0, is_http: service.isHttp ? 1 : 0, banner: service.banner, product: service.product, version: service.version };
}

function toRecord(row: Selectable<PortsTable> & { asset_token: string }): PortRecord {
  return {
    id: Number(row.id),
    teamId: row.team_id,
    assetId: row.asset_id,
    assetToken: row.asset_token,
    ipAddress: row.ip_address,
    port: Number(row.port),
    domainName: row.domain_name,
    status: row.status,
    service: serviceOf(row),
    firstSeenAt: new Date(Number(row.first_seen_at)),
    lastSeenAt: new Date(Number(row.last_seen_at)),
    disappearedAt: row.disappeared_at === null ? null : new Date(Number(row.disappeared_at)),
  };
}

/** The port inventory on Kysely. */
export class KyselyPortInventoryRepository implements PortInventoryRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async listOfAsset(teamId: number, assetId: number): Promise<PortStateRow[]> {
    const rows = await this.db
      .selectFrom('ports')
      .select(['id', 'ip_address', 'port', 'domain_name', 'status', 'service', 'is_tls', 'is_http', 'banner', 'product', 'version'])
      .where('asset_id', '=', assetId)
      .where('team_id', '=', teamId)
      .execute();
    return rows.map((r) => ({ id: Number(r.id), ipAddress: r.ip_address, port: Number(r.port), domainName: r.domain_name, status: r.status, service: serviceOf(r) }));
  }

  async insertMany(rows: NewPort[]): Promise<void> {
    if (rows.length === 0) return;
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
        })),
      )
      .onConflict((oc) => oc.columns(['asset_id', 'ip_address', 'port']).doNothing())
      .execute();
  }

  async markOpen(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('ports').set({ status: 'OPEN', last_seen_at: at.getTime(), disappeared_at: null }).where('team_id', '=', teamId).where('id', 'in', ids).execute();
  }

  async markClosed(teamId: number, ids: number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('ports').set({ status: 'CLOSED', disappeared_at: at.getTime() }).where('team_id', '=', teamId).where('id', 'in', ids).execute();
  }

  async setDetails(teamId: number, id: number, domainName: string, service: PortService): Promise<void> {
    await this.db.updateTable('ports').set({ domain_name: domainName, ...serviceColumns(service) }).where('team_id', '=', teamId).where('id', '=', id).execute();
  }

  version(teamId: number): Promise<number> {
    return readInventoryVersion(this.db, teamId, 'ports');
  }

  bumpVersion(teamId: number): Promise<void> {
    return bumpInventoryVersion(this.db, teamId, 'ports');
  }

  async listPage(query: PortPageQuery): Promise<PortRecord[]> {
    const statuses = new Set(query.statuses ?? []);
    // OPEN exactly while disappeared_at is null (a check constraint): the status filter is a gone-or-not condition.
    const isGone = statuses.size === 1 ? statuses.has('CLOSED') : undefined;
    return inventoryPage(
      this.db,
      'ports',
      query,
      async (keys) => {
        const { rows } = await sql<Selectable<PortsTable> & { asset_token: string }>`
          select p.*, a.token as asset_token
          from (${keys}) k
          join ports p on p.id = k.id
          join assets a on a.id = p.asset_id
          where p.team_id = ${query.teamId}
          order by k.first_seen_at, k.id`.execute(this.db);
        return rows.map(toRecord);
      },
      { isGone, ports: query.ports },
    );
  }
}
