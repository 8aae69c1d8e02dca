import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newToken, newUuid } from '../../core/shared/ids.ts';
import type { IndexedName, RootDomain, ZoneRepository, ZoneSource } from '../../core/zones/zone.types.ts';
import type { Database } from '../database.ts';
import type { Schema } from '../schema.ts';

/** Rows per multi-row statement (SQLite binds at most 32766 parameters). */
const rowsPerStatement = 500;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function recordHash(type: string, data: string): string {
  return createHash('sha1').update(`${type} ${data}`).digest('hex');
}

/** Indexed names and records on Kysely; every query filters on team_id. */
export class KyselyZoneRepository implements ZoneRepository {
  private statements: ReturnType<typeof prepareStatements> | undefined;

  constructor(
    private readonly db: Kysely<Schema>,
    /** Prepared statements on the embedded store's connection (see Database.prepare). */
    private readonly prepare?: Database['prepare'],
  ) {}

  async rootDomains(teamId: number): Promise<RootDomain[]> {
    const rows = await this.db.selectFrom('assets').select(['id', 'name', 'status']).where('team_id', '=', teamId).where('is_root', '=', 1).where('kind', '=', 'domain').execute();
    return rows.map((r) => ({ id: r.id, name: r.name, status: r.status }));
  }

  async indexNames(teamId: number, root: RootDomain, names: IndexedName[], source: ZoneSource, at: Date): Promise<number> {
    if (this.prepare !== undefined) return this.indexNamesPrepared(teamId, root, names, source, at.getTime());
    const ms = at.getTime();
    const ids = new Map<string, number>();
    for (const part of chunks(names.map((n) => n.name), rowsPerStatement)) {
      const existing = await this.db.selectFrom('assets').select(['id', 'name', 'added_by']).where('team_id', '=', teamId).where('name', 'in', part).execute();
      const stale: number[] = [];
      for (const row of existing) {
        ids.set(row.name, row.id);
        const addedBy = JSON.parse(row.added_by) as string[];
        if (addedBy.includes(source)) stale.push(row.id);
        else await this.db.updateTable('assets').set({ added_by: JSON.stringify([...addedBy, source]), last_seen: ms, updated: ms }).where('id', '=', row.id).execute();
      }
      if (stale.length > 0) await this.db.updateTable('assets').set({ last_seen: ms }).where('id', 'in', stale).execute();
      const fresh = part.filter((n) => !ids.has(n));
      if (fresh.length === 0) continue;
      const inserted = await this.db
        .insertInto('assets')
        .values(
          fresh.map((name) => ({
            team_id: teamId,
            token: newToken(),
            uuid: newUuid(),
            name,
            kind: 'domain' as const,
            port: null,
            is_root: 0,
            root_id: root.id,
            // Ownership of the root covers the names under it.
            status: root.status,
            added_by: JSON.stringify([source]),
            monitored: 0,
            settings: null,
            created: ms,
            updated: ms,
            discovered: ms,
            last_seen: ms,
            verified_at: null,
            checked_at: null,
          })),
        )
        .returning(['id', 'name'])
        .execute();
      for (const row of inserted) ids.set(row.name, row.id);
    }

    const records = names.flatMap((n) =>
      n.records.map((r) => ({
        team_id: teamId,
        asset_id: ids.get(n.name)!,
        type: r.type,
        ttl: r.ttl,
        data: r.data,
        data_hash: recordHash(r.type, r.data),
        source,
        first_seen: ms,
        last_seen: ms,
      })),
    );
    // One name may carry the same record twice in a batch (a zone listing it twice): keep one.
    const unique = [...new Map(records.map((r) => [`${r.asset_id}:${r.data_hash}`, r])).values()];
    for (const part of chunks(unique, rowsPerStatement)) {
      await this.db
        .insertInto('dns_records')
        .values(part)
        .onConflict((oc) => oc.columns(['asset_id', 'data_hash']).doUpdateSet((eb) => ({ ttl: eb.ref('excluded.ttl'), last_seen: eb.ref('excluded.last_seen'), source: eb.ref('excluded.source') })))
        .execute();
    }
    return names.length;
  }

  /** The same writes as indexNames, one prepared statement per row on the embedded store. */
  private indexNamesPrepared(teamId: number, root: RootDomain, names: IndexedName[], source: ZoneSource, ms: number): number {
    const st = (this.statements ??= prepareStatements(this.prepare!));
    for (const { name, records } of names) {
      const row = st.find.get(teamId, name) as { id: number; added_by: string } | undefined;
      let id: number;
      if (row === undefined) {
        id = Number(st.insert.run(teamId, newToken(), newUuid(), name, root.id, root.status, JSON.stringify([source]), ms, ms, ms, ms).lastInsertRowid);
      } else {
        id = row.id;
        const addedBy = JSON.parse(row.added_by) as string[];
        if (addedBy.includes(source)) st.touch.run(ms, id);
        else st.addSource.run(JSON.stringify([...addedBy, source]), ms, ms, id);
      }
      for (const r of records) st.record.run(teamId, id, r.type, r.ttl, r.data, recordHash(r.type, r.data), source, ms, ms);
    }
    return names.length;
  }
}

function prepareStatements(prepare: NonNullable<Database['prepare']>) {
  return {
    find: prepare('select id, added_by from assets where team_id = ? and name = ?'),
    touch: prepare('update assets set last_seen = ? where id = ?'),
    addSource: prepare('update assets set added_by = ?, last_seen = ?, updated = ? where id = ?'),
    // Ownership of the root covers the names under it: a new name takes the root's status.
    insert: prepare(
      "insert into assets (team_id, token, uuid, name, kind, port, is_root, root_id, status, added_by, monitored, settings, created, updated, discovered, last_seen, verified_at, checked_at) values (?, ?, ?, ?, 'domain', null, 0, ?, ?, ?, 0, null, ?, ?, ?, ?, null, null)",
    ),
    record: prepare(
      'insert into dns_records (team_id, asset_id, type, ttl, data, data_hash, source, first_seen, last_seen) values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (asset_id, data_hash) do update set ttl = excluded.ttl, last_seen = excluded.last_seen, source = excluded.source',
    ),
  };
}
