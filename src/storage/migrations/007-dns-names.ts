import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { Dialect } from '../database.ts';

// Frozen copies of what this migration needs of core/zones/dns-names.ts as it was released: a
// migration never imports live code (a later change there must not change what it wrote).

/** The sources of a DNS name; a name's `sources` has bit i set for zoneSources[i]. */
type ZoneSource = (typeof zoneSources)[number];
const zoneSources = [
  'zone-file',
  'zone-transfer',
  'zone-lookup',
  'dns-scrape',
  'certificate-scrape',
  'page-scrape',
  'brute-force',
  'permutation',
  'surface-monitoring',
] as const;

function sourceBits(sources: readonly ZoneSource[]): number {
  let bits = 0;
  for (const source of sources) bits |= 1 << zoneSources.indexOf(source);
  return bits;
}

/** Labels of a presentation name; only a dot no backslash escapes separates them. */
function nameLabels(name: string): string[] {
  if (!name.includes('\\')) return name.split('.');
  const labels: string[] = [];
  let start = 0;
  for (let i = 0; i < name.length; i += 1) {
    const code = name.charCodeAt(i);
    if (code === 0x5c) i += 1;
    else if (code === 0x2e) {
      labels.push(name.slice(start, i));
      start = i + 1;
    }
  }
  labels.push(name.slice(start));
  return labels;
}

/** A name with its labels in reverse order (`www.example.com` → `com.example.www`). */
function reverseName(name: string): string {
  if (name.includes('\\')) return nameLabels(name).reverse().join('.');
  let out = '';
  let end = name.length;
  for (let dot = name.lastIndexOf('.'); dot !== -1; dot = name.lastIndexOf('.', dot - 1)) {
    out += `${name.slice(dot + 1, end)}.`;
    end = dot;
    if (dot === 0) break;
  }
  return out + name.slice(0, end);
}

interface OldRecord {
  asset_id: number;
  team_id: number;
  name: string;
  is_root: number;
  root_id: number | null;
  type: string;
  ttl: number;
  data: string;
  source: string;
  first_seen: number;
  last_seen: number;
}

/**
 * Names found by DNS (zone files, transfers, lookups) in one compact row each, unique by the
 * team and the name with its labels reversed (`test.example.www`): the names under a root form
 * one key range, and a zone's names, which come in canonical order, land next to each other. A
 * name's records are kept per source; its token is made from the row id (see NameTokenCodec),
 * not stored. Discovered names are listed as subdomains without an
 * asset row of their own; one is made only when a name is acted upon (its settings changed).
 * The records indexed so far (dns_records, one row per record under an asset) move here; the
 * assets they hang on stay as they are.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const key = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  // A plain rowid on SQLite (no AUTOINCREMENT bookkeeping per insert): a token also names the
  // first sighting, so an id used again after a delete never answers an old token.
  await db.schema
    .createTable('dns_names')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('rname', key, (c) => c.notNull())
    .addColumn('root_id', 'integer', (c) => c.notNull())
    .addColumn('sources', 'integer', (c) => c.notNull())
    // 1 while an asset row of the team has this name: the listing shows the asset instead.
    .addColumn('shadowed', 'integer', (c) => c.notNull())
    .addColumn('records_zone_file', 'text')
    .addColumn('records_zone_transfer', 'text')
    .addColumn('records_zone_lookup', 'text')
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('dns_names_team_rname_unique', ['team_id', 'rname'])
    .execute();

  const rows = (
    await sql<OldRecord>`
    select r.asset_id, r.team_id, a.name, a.is_root, a.root_id, r.type, r.ttl, r.data, r.source, r.first_seen, r.last_seen
    from dns_records r join assets a on a.id = r.asset_id
    order by r.asset_id, r.id`.execute(db)
  ).rows;
  const byAsset = new Map<
    number,
    { row: OldRecord; sets: Map<ZoneSource, Array<[string, number, string]>>; first: number; last: number }
  >();
  for (const row of rows) {
    const entry = byAsset.get(row.asset_id) ?? {
      row,
      sets: new Map(),
      first: Number(row.first_seen),
      last: Number(row.last_seen),
    };
    const source = row.source as ZoneSource;
    const set = entry.sets.get(source) ?? [];
    set.push([row.type, row.ttl, row.data]);
    entry.sets.set(source, set);
    entry.first = Math.min(entry.first, Number(row.first_seen));
    entry.last = Math.max(entry.last, Number(row.last_seen));
    byAsset.set(row.asset_id, entry);
  }
  for (const { row, sets, first, last } of byAsset.values()) {
    const records = (source: ZoneSource) => (sets.has(source) ? JSON.stringify(sets.get(source)) : null);
    await sql`
      insert into dns_names (team_id, rname, root_id, sources, shadowed, records_zone_file, records_zone_transfer, records_zone_lookup, first_seen, updated, last_seen)
      values (${row.team_id}, ${reverseName(row.name)}, ${row.root_id ?? row.asset_id}, ${sourceBits([...sets.keys()])}, 1,
        ${records('zone-file')}, ${records('zone-transfer')}, ${records('zone-lookup')}, ${first}, ${last}, ${last})`.execute(
      db,
    );
  }
  await db.schema.dropTable('dns_records').execute();
}
