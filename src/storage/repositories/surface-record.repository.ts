import type { Kysely, Selectable } from 'kysely';
import type { PortStatus } from '../../core/surface/port-inventory.types.ts';
import {
  surfaceCountCap,
  type BreachRecord,
  type IpRecord,
  type PortRecord,
  type RunRecord,
  type SurfaceCounts,
  type SurfaceRecordRepository,
  type TechnologyRecord,
} from '../../core/surface/surface-record.types.ts';
import { sql } from '../kysely.ts';
import type { PortsTable, Schema, SurfaceRunsTable, TechnologiesTable } from '../schema.ts';
import { toBreach } from './breach.repository.ts';
import { toRun } from './surface-run.repository.ts';

const timeOf = (ms: number | null): Date | null => (ms === null ? null : new Date(Number(ms)));

function toPort(row: Selectable<PortsTable>): PortRecord {
  return {
    id: Number(row.id),
    ipAddress: row.ip_address,
    port: Number(row.port),
    domainName: row.domain_name,
    status: row.status as PortStatus,
    service: {
      name: row.service,
      isTls: Number(row.is_tls) === 1,
      isHttp: Number(row.is_http) === 1,
      banner: row.banner,
      product: row.product,
      version: row.version,
    },
    firstSeenAt: new Date(Number(row.first_seen_at)),
    disappearedAt: timeOf(row.disappeared_at),
  };
}

function toTechnology(row: Selectable<TechnologiesTable>): TechnologyRecord {
  return {
    id: Number(row.id),
    domainName: row.domain_name,
    port: Number(row.port),
    name: row.name,
    version: row.version,
    serviceProtocol: row.service_protocol,
    categories: JSON.parse(row.categories) as string[],
    active: Number(row.active) === 1,
    firstSeenAt: new Date(Number(row.first_seen_at)),
    disappearedAt: timeOf(row.disappeared_at),
  };
}

function toRunRecord(
  row: Selectable<SurfaceRunsTable> & { team_name: string; asset_name: string; asset_token: string },
): RunRecord {
  return { ...toRun(row), teamName: row.team_name, assetName: row.asset_name, assetToken: row.asset_token };
}

/** Single surface records on Kysely (see core/surface/surface-record.types.ts). */
export class KyselySurfaceRecordRepository implements SurfaceRecordRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async findIp(teamId: number, id: number): Promise<IpRecord | undefined> {
    const row = await this.db
      .selectFrom('ip_addresses as i')
      .innerJoin('assets as a', 'a.id', 'i.asset_id')
      .selectAll('i')
      .select(['a.token as asset_token', 'a.name as asset_name'])
      .where('i.team_id', '=', teamId)
      .where('i.id', '=', id)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      id: Number(row.id),
      assetId: Number(row.asset_id),
      assetToken: row.asset_token,
      assetName: row.asset_name,
      ipAddress: row.ip_address,
      ipVersion: row.ip_version,
      domainName: row.domain_name,
      active: Number(row.active) === 1,
      enriched: Number(row.enriched) === 1,
      firstSeenAt: new Date(Number(row.first_seen_at)),
      disappearedAt: timeOf(row.disappeared_at),
      asNumber: row.as_number === null ? null : Number(row.as_number),
      asName: row.as_name,
      country: row.country,
      countryName: row.country_name,
      continentName: row.continent_name,
    };
  }

  /** The port rows of one root asset of the team; each read below narrows and orders them. */
  private portsOf(teamId: number, assetId: number) {
    return this.db.selectFrom('ports').selectAll().where('team_id', '=', teamId).where('asset_id', '=', assetId);
  }

  async portsOfAddress(teamId: number, assetId: number, ipAddress: string): Promise<PortRecord[]> {
    const rows = await this.portsOf(teamId, assetId)
      .where('ip_address', '=', ipAddress)
      .orderBy('port')
      .orderBy('id')
      .execute();
    return rows.map(toPort);
  }

  async portsOfHost(teamId: number, assetId: number, domainName: string): Promise<PortRecord[]> {
    const rows = await this.portsOf(teamId, assetId)
      .where('domain_name', '=', domainName)
      .orderBy('port')
      .orderBy('ip_address')
      .execute();
    return rows.map(toPort);
  }

  async technologiesOfHosts(teamId: number, assetId: number, domainNames: string[]): Promise<TechnologyRecord[]> {
    if (domainNames.length === 0) return [];
    const rows = await this.db
      .selectFrom('technologies')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('asset_id', '=', assetId)
      .where('domain_name', 'in', domainNames)
      .orderBy('domain_name')
      .orderBy('port')
      .orderBy('name')
      .orderBy('id')
      .execute();
    return rows.map(toTechnology);
  }

  async ipIdsOf(teamId: number, assetId: number, ipAddresses: string[]): Promise<Map<string, number>> {
    if (ipAddresses.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('ip_addresses')
      .select(['id', 'ip_address'])
      .where('team_id', '=', teamId)
      .where('asset_id', '=', assetId)
      .where('ip_address', 'in', ipAddresses)
      .execute();
    return new Map(rows.map((r) => [r.ip_address, Number(r.id)]));
  }

  async ipIdsByAsset(teamId: number, ipAddresses: string[]): Promise<Map<string, number>> {
    if (ipAddresses.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('ip_addresses as i')
      .innerJoin('assets as a', 'a.id', 'i.asset_id')
      .select(['i.id', 'i.ip_address', 'a.token'])
      .where('i.team_id', '=', teamId)
      .where('i.ip_address', 'in', ipAddresses)
      .execute();
    return new Map(rows.map((r) => [`${r.token} ${r.ip_address}`, Number(r.id)]));
  }

  async findBreach(teamId: number, id: number): Promise<BreachRecord | undefined> {
    const row = await this.db
      .selectFrom('breaches as b')
      .innerJoin('assets as a', 'a.id', 'b.asset_id')
      .selectAll('b')
      .select(['a.token as root_token', 'a.name as root_name'])
      .where('b.team_id', '=', teamId)
      .where('b.id', '=', id)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return { ...toBreach(row), assetToken: row.root_token, assetName: row.asset_name, rootName: row.root_name };
  }

  /** The team's runs joined with the team and root asset names a run record carries. */
  private runsOf(teamId: number) {
    return this.db
      .selectFrom('surface_runs as r')
      .innerJoin('teams as t', 't.id', 'r.team_id')
      .innerJoin('assets as a', 'a.id', 'r.asset_id')
      .selectAll('r')
      .select(['t.name as team_name', 'a.name as asset_name', 'a.token as asset_token'])
      .where('r.team_id', '=', teamId);
  }

  async runsPage(teamId: number, query: { assetId?: number; beforeId?: number; limit: number }): Promise<RunRecord[]> {
    let q = this.runsOf(teamId);
    if (query.assetId !== undefined) q = q.where('r.asset_id', '=', query.assetId);
    if (query.beforeId !== undefined) q = q.where('r.id', '<', query.beforeId);
    const rows = await q.orderBy('r.id', 'desc').limit(query.limit).execute();
    return rows.map(toRunRecord);
  }

  async findRun(teamId: number, id: number): Promise<RunRecord | undefined> {
    const row = await this.runsOf(teamId).where('r.id', '=', id).executeTakeFirst();
    return row && toRunRecord(row);
  }

  /** Each count reads at most surfaceCountCap + 1 rows of the team's index range. */
  async counts(teamId: number): Promise<SurfaceCounts> {
    const limit = surfaceCountCap + 1;
    const count = async (
      table: 'ip_addresses' | 'ports' | 'technologies' | 'breaches' | 'surface_runs',
      live: boolean,
    ) => {
      const condition = live ? sql` and disappeared_at is null` : sql``;
      const result = await sql<{ n: number | string }>`select count(*) as n from (select 1 as one from ${sql.table(
        table,
      )} where team_id = ${teamId}${condition} limit ${limit}) c`.execute(this.db);
      return Number(result.rows[0]?.n ?? 0);
    };
    // One after the other: inside a transaction the store holds one connection.
    const ips = { total: await count('ip_addresses', false), active: await count('ip_addresses', true) };
    const ports = { total: await count('ports', false), open: await count('ports', true) };
    const technologies = { total: await count('technologies', false), active: await count('technologies', true) };
    const breaches = { total: await count('breaches', false), open: await count('breaches', true) };
    return { ips, ports, technologies, breaches, runs: await count('surface_runs', false) };
  }
}
