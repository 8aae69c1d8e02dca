import type { Kysely } from 'kysely';
import type { InventoryRenderer } from '../core/surface/inventory-renderer.ts';
import {
  decodeFinding,
  type RenderedVulnerability,
  type VulnerabilityRenderer,
} from '../core/vulnerabilities/vulnerability-renderer.ts';
import type { ScanSource, VulnerabilityRecord } from '../core/vulnerabilities/vulnerability.types.ts';
import { sql } from './kysely.ts';
import { bumpInventoryVersion } from './repositories/inventory-version.ts';
import { rewriteDocuments, type DocumentedTable } from './repositories/inventory-documents.ts';
import type { Schema } from './schema.ts';

/**
 * The render caches of the store: the stored documents of vulnerabilities and of the v3
 * inventory tables are the wire shapes rendered by the HTTP face's render modules (through the
 * VulnerabilityRenderer and InventoryRenderer ports), each row tagged with the version that
 * rendered it. `render_state` keeps per table the version every row has reached.
 */

/** The renderers the store writes and refreshes its documents with. */
export interface Renderers {
  vulnerabilities: VulnerabilityRenderer;
  inventory: InventoryRenderer;
}

/** Rows rendered per statement when a cache is refreshed. */
const batch = 1000;

/** The columns a vulnerability's documents are rendered from (its finding and the context columns). */
export interface VulnerabilitySource {
  uuid: string;
  scan_source: string;
  scan_profile_token: string | null;
  created_at: number | string;
  updated_at: number | string;
  revision: number;
  finding: string;
  asset_name: string;
  asset_token: string;
}

/** A vulnerability's documents rendered from its stored finding and columns. */
export function renderStoredVulnerability(
  renderer: VulnerabilityRenderer,
  row: VulnerabilitySource,
): RenderedVulnerability {
  return renderer.render(decodeFinding(row.finding), {
    uuid: row.uuid,
    asset: { name: row.asset_name, token: row.asset_token },
    scanSource: row.scan_source as ScanSource,
    scanProfileToken: row.scan_profile_token,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    revision: Number(row.revision),
  });
}

/** The source columns of the given vulnerabilities (joined to their asset). */
export async function vulnerabilitySources(
  db: Kysely<Schema>,
  where: { ids: number[] } | { after: number; olderThan: number; limit: number },
): Promise<Array<VulnerabilitySource & { id: number; team_id: number }>> {
  let q = db
    .selectFrom('vulnerabilities as v')
    .innerJoin('assets as a', 'a.id', 'v.asset_id')
    .select([
      'v.id',
      'v.team_id',
      'v.uuid',
      'v.scan_source',
      'v.scan_profile_token',
      'v.created_at',
      'v.updated_at',
      'v.revision',
      'v.finding',
      'a.name as asset_name',
      'a.token as asset_token',
    ]);
  q =
    'ids' in where
      ? q.where('v.id', 'in', where.ids)
      : q
          .where('v.id', '>', where.after)
          .where('v.render_version', '<', where.olderThan)
          .orderBy('v.id')
          .limit(where.limit);
  const rows = await q.execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), team_id: Number(r.team_id) }));
}

/**
 * Records whose documents an older renderer version wrote (the store was not refreshed yet, or
 * an older process wrote them) get them rendered from their finding here, on the fly; the
 * stored rows are left to refreshRenderCache.
 */
export async function withFreshDocuments(
  db: Kysely<Schema>,
  renderer: VulnerabilityRenderer,
  records: Array<VulnerabilityRecord & { renderVersion: number }>,
): Promise<VulnerabilityRecord[]> {
  const stale = records.filter((r) => r.renderVersion < renderer.version);
  if (stale.length > 0) {
    const sources = new Map((await vulnerabilitySources(db, { ids: stale.map((r) => r.id) })).map((s) => [s.id, s]));
    for (const record of stale) {
      const source = sources.get(record.id);
      if (source === undefined) continue;
      const { document, detailsFull } = renderStoredVulnerability(renderer, source);
      record.document = document;
      record.detailsFull = detailsFull;
    }
  }
  return records.map(({ renderVersion, ...record }) => {
    void renderVersion;
    return record;
  });
}

/** The version every row of a table has reached (0 when none is recorded). */
async function stateOf(db: Kysely<Schema>, resource: string): Promise<number> {
  const row = await db.selectFrom('render_state').select('version').where('resource', '=', resource).executeTakeFirst();
  return Number(row?.version ?? 0);
}

async function setState(db: Kysely<Schema>, resource: string, version: number): Promise<void> {
  await db
    .insertInto('render_state')
    .values({ resource, version })
    .onConflict((oc) => oc.column('resource').doUpdateSet({ version }))
    .execute();
}

/** What a refresh rendered again, per table. */
export type RefreshResult = Record<'vulnerabilities' | DocumentedTable, number>;

/**
 * Renders again every row whose documents an older renderer version wrote (or none), a thousand
 * at a time in id order, and gives the teams whose rows changed a new data version of the list,
 * so a page cached before is not served again. A table whose `render_state` already has the
 * renderer's version costs one read. Run when the store opens (runtime.ts), before any role
 * starts; stopped half-way, it resumes where it was (each row carries its version). No data
 * migration: changing a wire shape is a version bump of its render module.
 */
export async function refreshRenderCache(db: Kysely<Schema>, renderers: Renderers): Promise<RefreshResult> {
  const result: RefreshResult = { vulnerabilities: 0, ip_addresses: 0, ports: 0, technologies: 0 };
  const vulnerabilities = renderers.vulnerabilities;
  if ((await stateOf(db, 'vulnerabilities')) < vulnerabilities.version) {
    let after = 0;
    for (;;) {
      const rows = await vulnerabilitySources(db, { after, olderThan: vulnerabilities.version, limit: batch });
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      const values = rows.map((row) => {
        const { document, detailsFull } = renderStoredVulnerability(vulnerabilities, row);
        return sql`(cast(${row.id} as bigint), cast(${document} as text), cast(${detailsFull} as text))`;
      });
      await db.transaction().execute(async (tx) => {
        await sql`with u(id, document, details_full) as (values ${sql.join(values)})
          update vulnerabilities set document = u.document, details_full = u.details_full, render_version = ${vulnerabilities.version}
          from u where vulnerabilities.id = u.id`.execute(tx);
        await tx
          .updateTable('teams')
          .set((eb) => ({ vuln_version: eb('vuln_version', '+', 1) }))
          .where('id', 'in', [...new Set(rows.map((r) => r.team_id))])
          .execute();
      });
      result.vulnerabilities += rows.length;
    }
    await setState(db, 'vulnerabilities', vulnerabilities.version);
  }
  const inventory = renderers.inventory;
  for (const table of ['ip_addresses', 'ports', 'technologies'] as const) {
    if ((await stateOf(db, table)) >= inventory.version) continue;
    let after = 0;
    for (;;) {
      const ids = (
        await db
          .selectFrom(table)
          .select('id')
          .where('id', '>', after)
          .where('render_version', '<', inventory.version)
          .orderBy('id')
          .limit(batch)
          .execute()
      ).map((r) => Number(r.id));
      if (ids.length === 0) break;
      after = ids[ids.length - 1]!;
      await db.transaction().execute(async (tx) => {
        const teams = await rewriteDocuments(tx, inventory, table, undefined, ids);
        for (const teamId of teams) {
          if (table === 'ip_addresses')
            await tx
              .insertInto('ip_inventory_versions')
              .values({ team_id: teamId, version: 1 })
              .onConflict((oc) =>
                oc.column('team_id').doUpdateSet((eb) => ({ version: eb('ip_inventory_versions.version', '+', 1) })),
              )
              .execute();
          else await bumpInventoryVersion(tx, teamId, table);
        }
      });
      result[table] += ids.length;
    }
    await setState(db, table, inventory.version);
  }
  return result;
}
