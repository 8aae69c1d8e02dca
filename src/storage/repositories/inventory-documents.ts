import type { Kysely, Selectable } from 'kysely';
import type { DocumentTokens, InventoryList, InventoryRenderer } from '../../core/surface/inventory-renderer.ts';
import type { IpVersion } from '../../core/surface/ip-inventory.types.ts';
import { sql } from '../kysely.ts';
import type { PageSpec } from '../../shared/page-render.mjs';
import type { IpAddressesTable, PortsTable, Schema, TechnologiesTable } from '../schema.ts';

/**
 * The stored documents of the inventory tables, a render cache of the v3 list items (rendered
 * by the InventoryRenderer port, http/v3/inventory.render.ts): the tokens they name, a row's
 * document from its columns, and the head fields a page read writes in front.
 */

/** The three inventory tables, each with a `document` column. */
export type DocumentedTable = 'ip_addresses' | 'ports' | 'technologies';

/** The v3 list of each table. */
export const listOfTable: Record<DocumentedTable, InventoryList> = {
  ip_addresses: 'ips',
  ports: 'ports',
  technologies: 'technologies',
};

/** The columns of each table's head fields, in the order of the renderer's heads. */
const headColumns: Record<DocumentedTable, string[]> = {
  ip_addresses: ['id', 'active', 'disappeared_at'],
  ports: ['id', 'status', 'disappeared_at'],
  technologies: ['id', 'active', 'disappeared_at'],
};

/**
 * How a list page of a table is read: [first_seen_at, id] (the position), the columns of the
 * list's head fields (the renderer's heads), the document. `active` is 0/1 and `status`
 * OPEN/CLOSED, both tied to disappeared_at.
 */
export function inventoryHeads(
  renderer: InventoryRenderer,
  table: DocumentedTable,
): { columns: string[]; head: PageSpec['head'] } {
  return { columns: headColumns[table], head: renderer.heads[listOfTable[table]] };
}

/** The asset and team tokens of the given root assets, by asset id. */
export async function documentTokens(
  db: Kysely<Schema>,
  assetIds: Iterable<number>,
): Promise<Map<number, DocumentTokens>> {
  const ids = [...new Set(assetIds)];
  const out = new Map<number, DocumentTokens>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('assets')
    .innerJoin('teams', 'teams.id', 'assets.team_id')
    .select(['assets.id as id', 'assets.token as assetToken', 'teams.token as teamToken'])
    .where('assets.id', 'in', ids)
    .execute();
  for (const row of rows) out.set(Number(row.id), { assetToken: row.assetToken, teamToken: row.teamToken });
  return out;
}

/** The tokens of one asset; a row always has its asset (the foreign key cascades). */
export function tokensOf(tokens: Map<number, DocumentTokens>, assetId: number): DocumentTokens {
  const found = tokens.get(assetId);
  if (found === undefined) throw new Error(`asset ${assetId} of an inventory row is missing`);
  return found;
}

/** The document of a stored address. */
export function ipRowDocument(
  renderer: InventoryRenderer,
  row: Selectable<IpAddressesTable>,
  tokens: DocumentTokens,
): string {
  return renderer.ip(
    {
      ipAddress: row.ip_address,
      ipVersion: row.ip_version as IpVersion,
      domainName: row.domain_name,
      firstSeenAt: Number(row.first_seen_at),
      enrichment:
        row.enriched === 1
          ? {
              asNumber: row.as_number === null ? null : Number(row.as_number),
              asName: row.as_name,
              asDomain: row.as_domain,
              continent: row.continent,
              continentName: row.continent_name,
              country: row.country,
              countryName: row.country_name,
            }
          : undefined,
    },
    tokens,
  );
}

/** The document of a stored port. */
export function portRowDocument(
  renderer: InventoryRenderer,
  row: Selectable<PortsTable>,
  tokens: DocumentTokens,
): string {
  return renderer.port(
    {
      ipAddress: row.ip_address,
      port: Number(row.port),
      domainName: row.domain_name,
      firstSeenAt: Number(row.first_seen_at),
    },
    tokens,
  );
}

/** The document of a stored technology. */
export function technologyRowDocument(
  renderer: InventoryRenderer,
  row: Selectable<TechnologiesTable>,
  tokens: DocumentTokens,
): string {
  const parsed = JSON.parse(row.categories) as unknown;
  const categories = Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === 'string') : [];
  return renderer.technology(
    {
      domainName: row.domain_name,
      serviceProtocol: row.service_protocol,
      port: Number(row.port),
      name: row.name,
      version: row.version,
      categories,
      firstSeenAt: Number(row.first_seen_at),
    },
    tokens,
  );
}

const rowDocument = {
  ip_addresses: (renderer: InventoryRenderer, row: object, tokens: DocumentTokens) =>
    ipRowDocument(renderer, row as Selectable<IpAddressesTable>, tokens),
  ports: (renderer: InventoryRenderer, row: object, tokens: DocumentTokens) =>
    portRowDocument(renderer, row as Selectable<PortsTable>, tokens),
  technologies: (renderer: InventoryRenderer, row: object, tokens: DocumentTokens) =>
    technologyRowDocument(renderer, row as Selectable<TechnologiesTable>, tokens),
} as const;

/**
 * Writes the documents of the given rows again from their columns, with the renderer's version:
 * after a change of a field the document holds (a host name, a protocol), and for rows rendered
 * by an older version or never (render-cache.ts). `teamId` undefined reads rows of every team.
 * Answers the teams of the rows rewritten.
 */
export async function rewriteDocuments(
  db: Kysely<Schema>,
  renderer: InventoryRenderer,
  table: DocumentedTable,
  teamId: number | undefined,
  ids: number[],
): Promise<Set<number>> {
  const teams = new Set<number>();
  if (ids.length === 0) return teams;
  let query = db.selectFrom(table).selectAll().where('id', 'in', ids);
  if (teamId !== undefined) query = query.where('team_id', '=', teamId);
  const rows = (await query.execute()) as Array<{ id: number; asset_id: number; team_id: number }>;
  const tokens = await documentTokens(
    db,
    rows.map((r) => Number(r.asset_id)),
  );
  if (rows.length === 0) return teams;
  for (const row of rows) teams.add(Number(row.team_id));
  // One statement for the batch (a re-render rewrites a million rows a thousand at a time).
  const values = rows.map(
    (row) =>
      sql`(cast(${Number(row.id)} as bigint), ${rowDocument[table](renderer, row, tokensOf(tokens, Number(row.asset_id)))})`,
  );
  await sql`with v(id, document) as (values ${sql.join(values)})
    update ${sql.table(table)} set document = v.document, render_version = ${renderer.version}
    from v where ${sql.table(table)}.id = v.id`.execute(db);
  return teams;
}
