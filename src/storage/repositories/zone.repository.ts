import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { DiscoveredNameRenderer } from '../../core/assets/asset-renderer.ts';
import {
  mergeRecordSets,
  rangeUnder,
  recordSet,
  reverseName,
  sourceBits,
  sourcesOf,
  type StoredRecords,
} from '../../core/zones/dns-names.ts';
import type { NameTokenCodec } from '../../core/zones/name-token.ts';
import type {
  DiscoveredName,
  NameDocument,
  NamePageQuery,
  RootDomain,
  ZoneSource,
} from '../../core/assets/asset.types.ts';
import type { IndexedName, ZoneRepository } from '../../core/zones/zone.types.ts';
import type { Database, Dialect } from '../database.ts';
import type { Schema } from '../schema.ts';

/** First key of the advisory locks of zone indexing (the second is the team id). */
const zoneIndexingLock = 0x7a6f6e65; // 'zone'

/** Rows per multi-row statement on PostgreSQL. */
const rowsPerStatement = 500;

/** The column holding a source's record set (a fixed set: never built from input). */
const recordColumn: Record<ZoneSource, string> = {
  'zone-file': 'records_zone_file',
  'zone-transfer': 'records_zone_transfer',
  'zone-lookup': 'records_zone_lookup',
  'dns-scrape': 'records_surface',
  'certificate-scrape': 'records_surface',
  'page-scrape': 'records_surface',
  'brute-force': 'records_surface',
  permutation: 'records_surface',
  'surface-monitoring': 'records_surface',
  connector: 'records_connector',
};

const insertColumns = 'team_id, rname, root_id, sources, shadowed, first_seen, updated, last_seen';

/**
 * The upsert of discovered names for one source: a new name gets a row (whose id makes its
 * token) and its first sighting; a known one keeps them, gains the source (bumping `updated`
 * when the source is new) and has that source's record set replaced. Other sources' sets are
 * left alone.
 */
function upsertTail(source: ZoneSource): string {
  const column = recordColumn[source];
  return `on conflict (team_id, rname) do update set
    root_id = excluded.root_id,
    updated = case when (dns_names.sources | excluded.sources) <> dns_names.sources then excluded.updated else dns_names.updated end,
    sources = dns_names.sources | excluded.sources,
    shadowed = excluded.shadowed,
    ${column} = excluded.${column},
    last_seen = excluded.last_seen`;
}

/**
 * The one-row upsert of a source on the embedded store, parameters in this order: team_id,
 * rname, root_id, sources, shadowed, first_seen, updated, last_seen, the record set (JSON).
 */
export function upsertSql(source: ZoneSource): string {
  return `insert into dns_names (${insertColumns}, ${recordColumn[source]}) values (?, ?, ?, ?, ?, ?, ?, ?, ?) ${upsertTail(source)}`;
}

/** Discovered names on Kysely (and prepared statements on the embedded store); every query filters on team_id. */
export class KyselyZoneRepository implements ZoneRepository {
  private statements: ReturnType<typeof prepareStatements> | undefined;

  constructor(
    private readonly db: Kysely<Schema>,
    private readonly dialect: Dialect,
    private readonly tokens: NameTokenCodec,
    /** Renders a listed name's v2 wire JSON (the HTTP face owns the shape). */
    private readonly renderer: DiscoveredNameRenderer,
    /** Prepared statements on the embedded store's connection (see Database.prepare). */
    private readonly prepare?: Database['prepare'],
  ) {}

  async lockIndexing(teamId: number): Promise<void> {
    if (this.dialect === 'postgres')
      await sql`select pg_advisory_xact_lock(${zoneIndexingLock}, ${teamId})`.execute(this.db);
  }

  async rootDomains(teamId: number): Promise<RootDomain[]> {
    const rows = await this.db
      .selectFrom('assets')
      .select(['id', 'name', 'status'])
      .where('team_id', '=', teamId)
      .where('is_root', '=', 1)
      .where('kind', '=', 'domain')
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, status: r.status }));
  }

  async assetNames(teamId: number, limit: number): Promise<ReadonlySet<string> | undefined> {
    const rows = await this.db
      .selectFrom('assets')
      .select('name')
      .where('team_id', '=', teamId)
      .limit(limit + 1)
      .execute();
    return rows.length > limit ? undefined : new Set(rows.map((r) => r.name));
  }

  async indexNames(
    teamId: number,
    root: RootDomain,
    names: IndexedName[],
    source: ZoneSource,
    at: Date,
    assetNames?: ReadonlySet<string>,
  ): Promise<number> {
    const ms = at.getTime();
    const bits = sourceBits([source]);
    const assets = await this.touchAssets(
      teamId,
      assetNames === undefined ? names : names.filter((n) => assetNames.has(n.name)),
      source,
      ms,
    );
    const keys = names.map((n) => reverseName(n.name));
    const sets = await this.recordSets(teamId, names, keys, source);
    // In key order: neighbouring keys share index pages, so a batch touches fewer of them.
    const order = keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : 1));
    if (this.prepare !== undefined) {
      const upsert = this.statementsOf().upsert(source);
      for (const i of order)
        upsert.run(teamId, keys[i], root.id, bits, assets.has(names[i]!.name) ? 1 : 0, ms, ms, ms, sets[i]);
      return names.length;
    }
    for (let start = 0; start < order.length; start += rowsPerStatement) {
      const rows = order
        .slice(start, start + rowsPerStatement)
        .map(
          (i) =>
            sql`(${teamId}, ${keys[i]}, ${root.id}, ${bits}, ${assets.has(names[i]!.name) ? 1 : 0}, ${ms}, ${ms}, ${ms}, ${sets[i]})`,
        );
      await sql`insert into dns_names (${sql.raw(insertColumns)}, ${sql.raw(recordColumn[source])}) values ${sql.join(rows)} ${sql.raw(upsertTail(source))}`.execute(
        this.db,
      );
    }
    return names.length;
  }

  private statementsOf() {
    return (this.statements ??= prepareStatements(this.prepare!));
  }

  /**
   * Each name's record set of the source as JSON. A name met again later in the same run (its
   * first records already written) is merged with what was stored, not replaced.
   */
  private async recordSets(
    teamId: number,
    names: IndexedName[],
    keys: string[],
    source: ZoneSource,
  ): Promise<string[]> {
    const again = keys.filter((_, i) => names[i]!.merge === true);
    const stored = new Map<string, StoredRecords>();
    if (again.length > 0) {
      const rows = await this.db
        .selectFrom('dns_names')
        .select(['rname', sql<string | null>`${sql.raw(recordColumn[source])}`.as('records')])
        .where('team_id', '=', teamId)
        .where('rname', 'in', again)
        .execute();
      for (const row of rows) if (row.records !== null) stored.set(row.rname, JSON.parse(row.records) as StoredRecords);
    }
    return names.map((n, i) => {
      const previous = n.merge === true ? stored.get(keys[i]!) : undefined;
      if (previous === undefined && n.records.length === 1) {
        const r = n.records[0]!;
        return JSON.stringify([[r.type, r.ttl, r.data]]);
      }
      return JSON.stringify(previous === undefined ? recordSet(n.records) : mergeRecordSets(previous, n.records));
    });
  }

  /**
   * The names that are assets of the team (a root's apex, a subdomain added by hand or acted
   * upon): they gain the source in added_by and a sighting. Returns their names.
   */
  private async touchAssets(
    teamId: number,
    names: IndexedName[],
    source: ZoneSource,
    ms: number,
  ): Promise<Set<string>> {
    const assets: Array<{ id: number; name: string; added_by: string }> = [];
    for (let start = 0; start < names.length; start += rowsPerStatement) {
      const part = names.slice(start, start + rowsPerStatement).map((n) => n.name);
      const query = this.db
        .selectFrom('assets')
        .select(['id', 'name', 'added_by'])
        .where('team_id', '=', teamId)
        .where('name', 'in', part);
      if (this.prepare !== undefined) {
        // One prepared statement per batch size: the lookups run in the engine, not one call per name.
        const compiled = query.compile();
        assets.push(...(this.prepare(compiled.sql).all(...compiled.parameters) as typeof assets));
      } else assets.push(...(await query.execute()));
    }
    for (const asset of assets) {
      const addedBy = JSON.parse(asset.added_by) as string[];
      const update = addedBy.includes(source)
        ? { last_seen: ms }
        : { added_by: JSON.stringify([...addedBy, source]), last_seen: ms, updated: ms };
      await this.db
        .updateTable('assets')
        .set(update)
        .where('team_id', '=', teamId)
        .where('id', '=', asset.id)
        .execute();
    }
    return new Set(assets.map((a) => a.name));
  }

  async setShadowed(teamId: number, name: string, shadowed: boolean): Promise<void> {
    await this.db
      .updateTable('dns_names')
      .set({ shadowed: shadowed ? 1 : 0 })
      .where('team_id', '=', teamId)
      .where('rname', '=', reverseName(name))
      .execute();
  }

  async findByToken(teamId: number, token: string): Promise<DiscoveredName | undefined> {
    const ref = this.tokens.decode(token);
    if (ref === undefined) return undefined;
    const row = await this.db
      .selectFrom('dns_names as n')
      .innerJoin('assets as r', 'r.id', 'n.root_id')
      .select([
        'n.rname',
        'n.root_id',
        'n.shadowed',
        'r.status',
        'n.sources',
        'n.first_seen',
        'n.updated',
        'n.last_seen',
      ])
      .where('n.team_id', '=', teamId)
      .where('r.team_id', '=', teamId)
      .where('n.id', '=', ref.id)
      .where('n.first_seen', '=', ref.firstSeen)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      teamId,
      name: reverseName(row.rname),
      rootId: Number(row.root_id),
      token,
      shadowed: Number(row.shadowed) === 1,
      status: row.status,
      sources: sourcesOf(Number(row.sources)),
      firstSeen: new Date(Number(row.first_seen)),
      updated: new Date(Number(row.updated)),
      lastSeen: new Date(Number(row.last_seen)),
    };
  }

  async listDocuments(query: NamePageQuery): Promise<NameDocument[]> {
    // The names alone, in key order (an ordered scan of the team's key range that stops at the
    // limit), then their roots' status in one small query: a join here let PostgreSQL's planner
    // read and sort every name of the team for each page.
    let q = this.db
      .selectFrom('dns_names')
      .select(['id', 'root_id', 'sources', 'first_seen', 'updated', 'last_seen', 'rname'])
      .where('team_id', '=', query.teamId)
      .where('shadowed', '=', 0)
      .orderBy('team_id')
      .orderBy('rname')
      .limit(query.limit);
    if (query.under !== undefined) {
      const { from, to } = rangeUnder(query.under.name);
      q = q
        .where('root_id', '=', query.under.id)
        .where('rname', '>', query.afterKey !== undefined && query.afterKey > from ? query.afterKey : from)
        .where('rname', '<', to);
    } else if (query.afterKey !== undefined) q = q.where('rname', '>', query.afterKey);
    if (query.createdAfter !== undefined) q = q.where('first_seen', '>', query.createdAfter.getTime());
    const rows = await q.execute();
    if (rows.length === 0) return [];
    const rootIds = [...new Set(rows.map((row) => Number(row.root_id)))];
    const roots = await this.db
      .selectFrom('assets')
      .select(['id', 'status'])
      .where('team_id', '=', query.teamId)
      .where('id', 'in', rootIds)
      .execute();
    const statusOf = new Map(roots.map((r) => [Number(r.id), r.status]));
    const tokens = this.tokens.tokensOf(rows.map((row) => ({ id: Number(row.id), firstSeen: Number(row.first_seen) })));
    const out: NameDocument[] = [];
    rows.forEach((row, i) => {
      const status = statusOf.get(Number(row.root_id));
      // A name whose root is gone is being deleted with it: not listed.
      if (status === undefined) return;
      const document = this.renderer.render({
        token: tokens[i]!,
        name: reverseName(row.rname),
        status,
        sources: sourcesOf(Number(row.sources)),
        firstSeen: Number(row.first_seen),
        updated: Number(row.updated),
        lastSeen: Number(row.last_seen),
      });
      out.push({ key: row.rname, document });
    });
    return out;
  }

  async deleteName(teamId: number, name: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('dns_names')
      .where('team_id', '=', teamId)
      .where('rname', '=', reverseName(name))
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async refreshStatistics(): Promise<void> {
    if (this.dialect === 'postgres') await sql`analyze dns_names`.execute(this.db);
  }

  async namesUnder(teamId: number, domain: string): Promise<Array<{ name: string; sources: ZoneSource[] }>> {
    const { from, to } = rangeUnder(domain);
    const rows = await this.db
      .selectFrom('dns_names')
      .select(['rname', 'sources'])
      .where('team_id', '=', teamId)
      .where('rname', '>', from)
      .where('rname', '<', to)
      .execute();
    const out = new Map(rows.map((r) => [reverseName(r.rname), sourcesOf(Number(r.sources))]));
    const suffix = `.${domain}`;
    const assets = await this.db
      .selectFrom('assets')
      .select('name')
      .where('team_id', '=', teamId)
      .where('kind', '=', 'domain')
      .where('name', 'like', `%${suffix}`)
      .execute();
    for (const a of assets) if (a.name.endsWith(suffix) && !out.has(a.name)) out.set(a.name, []);
    return [...out].map(([name, sources]) => ({ name, sources }));
  }

  async deleteUnder(teamId: number, root: RootDomain): Promise<void> {
    const { from, to } = rangeUnder(root.name);
    await this.db
      .deleteFrom('dns_names')
      .where('team_id', '=', teamId)
      .where((eb) =>
        eb.or([
          eb('rname', '=', reverseName(root.name)),
          eb.and([eb('rname', '>', from), eb('rname', '<', to), eb('root_id', '=', root.id)]),
        ]),
      )
      .execute();
  }
}

function prepareStatements(prepare: NonNullable<Database['prepare']>) {
  const upserts = new Map<ZoneSource, ReturnType<typeof prepare>>();
  return {
    upsert(source: ZoneSource) {
      let statement = upserts.get(source);
      if (statement === undefined) {
        statement = prepare(upsertSql(source));
        upserts.set(source, statement);
      }
      return statement;
    },
  };
}
