import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newToken, newUuid } from '../../core/shared/ids.ts';
import type { IndexedName, RootDomain, ZoneRepository, ZoneSource } from '../../core/zones/zone.types.ts';
import type { Schema } from '../schema.ts';

/** Rows per multi-row statement (SQLite binds at most 32766 parameters). */
const rowsPerStatement = 500;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Indexed names and records on Kysely; every query filters on team_id. */
export class KyselyZoneRepository implements ZoneRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async rootDomains(teamId: number): Promise<RootDomain[]> {
    const rows = await this.db.selectFrom('assets').select(['id', 'name', 'status']).where('team_id', '=', teamId).where('is_root', '=', 1).where('kind', '=', 'domain').execute();
    return rows.map((r) => ({ id: r.id, name: r.name, status: r.status }));
  }

  async indexNames(teamId: number, root: RootDomain, names: IndexedName[], source: ZoneSource, at: Date): Promise<number> {
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
        data_hash: createHash('sha1').update(`${r.type} ${r.data}`).digest('hex'),
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
}
