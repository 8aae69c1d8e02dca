import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import { sql } from '../kysely.ts';
import type { AssetRenderer, AssetShapeSource } from '../../core/assets/asset-renderer.ts';
import type { AssetSettings } from '../../core/assets/asset-settings.ts';
import type {
  Asset,
  AssetDocument,
  AssetPageQuery,
  AssetRepository,
  AssetStatus,
  AssetSummary,
  RenderedAssets,
} from '../../core/assets/asset.types.ts';
import { envelopeRoom } from '../../shared/page-render.mjs';
import type { Database, Dialect } from '../database.ts';
import type { AssetsTable, Schema } from '../schema.ts';
import { sqlDocument, type SqlDocument } from './json-document.ts';
import { readRenderedPage } from './rendered-page.ts';

/**
 * Every column of an asset row, by name: `select *` is never kept as a prepared statement on
 * PostgreSQL (pg-named-statements.ts), and these lookups run on most requests.
 */
const assetColumns = [
  'id',
  'team_id',
  'token',
  'uuid',
  'name',
  'kind',
  'port',
  'is_root',
  'root_id',
  'status',
  'added_by',
  'monitored',
  'settings',
  'created',
  'updated',
  'discovered',
  'last_seen',
  'verified_at',
  'checked_at',
] as const satisfies ReadonlyArray<keyof AssetsTable>;
// A column added to AssetsTable must be added above (this fails to compile otherwise).
const everyColumn: Exclude<keyof AssetsTable, (typeof assetColumns)[number]> extends never ? true : never = true;
void everyColumn;

const summaryColumns = [
  'id',
  'team_id',
  'token',
  'name',
  'kind',
  'status',
  'added_by',
  'monitored',
  'created',
  'updated',
  'discovered',
  'last_seen',
] as const;

function toAsset(row: Selectable<AssetsTable>): Asset {
  return {
    id: row.id,
    teamId: row.team_id,
    token: row.token,
    uuid: row.uuid,
    name: row.name,
    kind: row.kind,
    port: row.port,
    isRoot: row.is_root === 1,
    rootId: row.root_id,
    status: row.status,
    addedBy: JSON.parse(row.added_by) as string[],
    monitored: row.monitored === 1,
    settings: row.settings === null ? null : (JSON.parse(row.settings) as AssetSettings),
    created: new Date(row.created),
    updated: new Date(row.updated),
    discovered: new Date(row.discovered),
    lastSeen: new Date(row.last_seen),
    verifiedAt: row.verified_at === null ? null : new Date(row.verified_at),
    checkedAt: row.checked_at === null ? null : new Date(row.checked_at),
  };
}

/** The column of each asset property the v2 shape shows (the shape itself is the AssetRenderer's). */
const columnOf: Record<AssetShapeSource, keyof AssetsTable> = {
  token: 'token',
  name: 'name',
  status: 'status',
  addedBy: 'added_by',
  monitored: 'monitored',
  created: 'created',
  updated: 'updated',
  discovered: 'discovered',
  lastSeen: 'last_seen',
};

const documents = new WeakMap<AssetRenderer, Partial<Record<Dialect, SqlDocument>>>();

/**
 * The v2 wire JSON of an asset row, built by the database from the shape the HTTP face declares
 * (AssetRenderer), its times written behind it (json-document.ts). Compiled once per renderer
 * and dialect: the repositories are built again for every transaction.
 */
function documentOf(renderer: AssetRenderer, dialect: Dialect): SqlDocument {
  let byDialect = documents.get(renderer);
  if (byDialect === undefined) documents.set(renderer, (byDialect = {}));
  return (byDialect[dialect] ??= sqlDocument(
    dialect,
    renderer.fields.map((field) => ({ name: field.name, kind: field.kind, column: columnOf[field.from] })),
  ));
}

/** Assets on Kysely; every query filters on team_id. */
export class KyselyAssetRepository implements AssetRepository {
  private readonly document: SqlDocument;

  constructor(
    private readonly db: Kysely<Schema>,
    private readonly dialect: Dialect,
    /** The v2 asset shape the list documents are built from. */
    renderer: AssetRenderer,
    /** Raw array rows, when the store offers them outside transactions (see Database.rawRows). */
    private readonly rawRows?: Database['rawRows'],
    /** The store's page renderer, outside transactions (see readRenderedPage). */
    private readonly readPage?: Database['readPage'],
  ) {
    this.document = documentOf(renderer, dialect);
  }

  private pageQuery(query: AssetPageQuery) {
    let q = this.db.selectFrom('assets').where('team_id', '=', query.teamId);
    if (query.scope.kind === 'roots') q = q.where('is_root', '=', 1);
    else if (query.scope.kind === 'subdomains') q = q.where('root_id', '=', query.scope.rootId);
    if (query.afterId !== undefined) q = q.where('id', '>', query.afterId);
    if (query.createdAfter !== undefined) q = q.where('created', '>', query.createdAfter.getTime());
    return q.orderBy('id').limit(query.limit);
  }

  async renderPage(query: AssetPageQuery): Promise<RenderedAssets> {
    // One row more than the page, to tell whether more follow; the times go behind the document.
    const { expression, tailColumns, tail } = this.document;
    const compiled = this.pageQuery({ ...query, limit: query.limit + 1 })
      .select(['id', expression.as('document'), ...(tailColumns as Array<keyof AssetsTable>)])
      .compile();
    const page = await readRenderedPage(this.db, this.readPage, compiled, {
      keys: 1,
      head: [],
      tail,
      limit: query.limit,
      room: envelopeRoom,
    });
    return { items: page.items, count: page.count, lastId: page.last === undefined ? undefined : Number(page.last[0]) };
  }

  async documentsByIds(teamId: number, ids: number[]): Promise<AssetDocument[]> {
    if (ids.length === 0) return [];
    return this.documents(
      this.db.selectFrom('assets').where('team_id', '=', teamId).where('id', 'in', ids).orderBy('id'),
    );
  }

  private async documents(base: SelectQueryBuilder<Schema, 'assets', object>): Promise<AssetDocument[]> {
    const { expression, tailColumns, withTail } = this.document;
    const query = base.select(['id', expression.as('document'), ...(tailColumns as Array<keyof AssetsTable>)]);
    if (this.rawRows !== undefined) {
      const compiled = query.compile();
      return (await this.rawRows(compiled.sql, compiled.parameters)).map((row) => ({
        id: Number(row[0]),
        document: withTail(row[1] as string, row.slice(2)),
      }));
    }
    const rows = (await query.execute()) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      id: Number(r['id']),
      document: withTail(
        r['document'] as string,
        tailColumns.map((column) => r[column]),
      ),
    }));
  }

  async listPage(query: AssetPageQuery): Promise<AssetSummary[]> {
    const rows = await this.pageQuery(query).select(summaryColumns).execute();
    return rows.map((row) => ({
      id: row.id,
      teamId: row.team_id,
      token: row.token,
      name: row.name,
      kind: row.kind,
      status: row.status,
      addedBy: JSON.parse(row.added_by) as string[],
      monitored: row.monitored === 1,
      created: new Date(row.created),
      updated: new Date(row.updated),
      discovered: new Date(row.discovered),
      lastSeen: new Date(row.last_seen),
    }));
  }

  async listFullPage(query: AssetPageQuery): Promise<Asset[]> {
    const rows = await this.pageQuery(query).select(assetColumns).execute();
    return rows.map(toAsset);
  }

  async hasAny(teamId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('assets')
      .select('id')
      .where('team_id', '=', teamId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async findByToken(teamId: number, token: string): Promise<Asset | undefined> {
    const row = await this.db
      .selectFrom('assets')
      .select(assetColumns)
      .where('team_id', '=', teamId)
      .where('token', '=', token)
      .executeTakeFirst();
    return row && toAsset(row);
  }

  async findById(teamId: number, id: number): Promise<Asset | undefined> {
    const row = await this.db
      .selectFrom('assets')
      .select(assetColumns)
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toAsset(row);
  }

  async findByName(teamId: number, name: string): Promise<Asset | undefined> {
    const row = await this.db
      .selectFrom('assets')
      .select(assetColumns)
      .where('team_id', '=', teamId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toAsset(row);
  }

  async findRootsByName(teamId: number, names: string[]): Promise<Asset[]> {
    if (names.length === 0) return [];
    const rows = await this.db
      .selectFrom('assets')
      .select(assetColumns)
      .where('team_id', '=', teamId)
      .where('is_root', '=', 1)
      .where('name', 'in', names)
      .execute();
    return rows.map(toAsset);
  }

  async findAllByName(name: string): Promise<Asset[]> {
    const rows = await this.db
      .selectFrom('assets')
      .select(assetColumns)
      .where('name', '=', name)
      .orderBy('id')
      .execute();
    return rows.map(toAsset);
  }

  async insert(asset: Omit<Asset, 'id'>): Promise<Asset> {
    const row = await this.db
      .insertInto('assets')
      .values({
        team_id: asset.teamId,
        token: asset.token,
        uuid: asset.uuid,
        name: asset.name,
        kind: asset.kind,
        port: asset.port,
        is_root: asset.isRoot ? 1 : 0,
        root_id: asset.rootId,
        status: asset.status,
        added_by: JSON.stringify(asset.addedBy),
        monitored: asset.monitored ? 1 : 0,
        settings: asset.settings === null ? null : JSON.stringify(asset.settings),
        created: asset.created.getTime(),
        updated: asset.updated.getTime(),
        discovered: asset.discovered.getTime(),
        last_seen: asset.lastSeen.getTime(),
        verified_at: asset.verifiedAt?.getTime() ?? null,
        checked_at: asset.checkedAt?.getTime() ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toAsset(row);
  }

  async delete(teamId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('assets')
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async updateSettings(teamId: number, id: number, settings: AssetSettings, at: Date): Promise<void> {
    await this.db
      .updateTable('assets')
      .set({ settings: JSON.stringify(settings), monitored: settings.monitoring ? 1 : 0, updated: at.getTime() })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  }

  async countMonitored(teamId: number): Promise<number> {
    const row = await this.db
      .selectFrom('assets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .where('monitored', '=', 1)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async recordCheck(id: number, status: AssetStatus, at: Date): Promise<void> {
    const ms = at.getTime();
    await this.db
      .updateTable('assets')
      .set(status === 'verified' ? { status, checked_at: ms, verified_at: ms, updated: ms } : { checked_at: ms })
      .where('id', '=', id)
      .execute();
  }

  // NO KEY UPDATE: lockTeam callers wait for each other, but the foreign-key checks of rows the
  // team's other transactions insert (key share locks) do not wait for them, nor deadlock with them.
  async lockTeam(teamId: number): Promise<void> {
    if (this.dialect === 'postgres')
      await sql`select id from teams where id = ${teamId} for no key update`.execute(this.db);
  }
}
