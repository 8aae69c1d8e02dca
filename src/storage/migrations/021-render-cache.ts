import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { sql } from '../kysely.ts';

const batch = 1000;
const inventoryTables = ['ip_addresses', 'ports', 'technologies'] as const;

/**
 * The stored documents become a render cache of the wire shapes (http/v2/vulnerability.render.ts,
 * http/v3/inventory.render.ts), keyed by a render version:
 *
 * - each documented table gets `render_version`, the version of the renderer that wrote the row's
 *   documents (0: never rendered); `render_state` keeps, per table, the version every row has
 *   reached, so a store already rendered costs one read at start (storage/render-cache.ts);
 * - each vulnerability gets `finding`, the core's record of what the scanner reported
 *   (StoredFinding, core/vulnerabilities/vulnerability.types.ts): until now it lived only inside
 *   the wire document, and the cache must be rebuildable from it.
 *
 * Documents stored before this migration are the shape of render version 1. Each vulnerability's
 * finding is read back from its documents here, a thousand rows at a time (frozen code below: a
 * migration imports no live code). Inventory rows whose document is still `{}` (stored before
 * migration 014) stay at version 0 and are rendered from their columns when the store opens.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('render_state')
    .addColumn('resource', 'text', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  for (const table of inventoryTables) {
    await db.schema
      .alterTable(table)
      .addColumn('render_version', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update ${sql.table(table)} set render_version = 1 where document <> '{}'`.execute(db);
    const unrendered = await sql`select 1 from ${sql.table(table)} where render_version = 0 limit 1`.execute(db);
    if (unrendered.rows.length === 0)
      await sql`insert into render_state (resource, version) values (${table}, 1)`.execute(db);
  }
  await db.schema
    .alterTable('vulnerabilities')
    .addColumn('render_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('vulnerabilities')
    .addColumn('finding', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  if (dialect === 'postgres') {
    const supported = await sql<{
      ok: boolean;
    }>`select 'lz4' = any(enumvals) as ok from pg_settings where name = 'default_toast_compression'`.execute(db);
    if (supported.rows[0]?.ok === true)
      await sql`alter table vulnerabilities alter column finding set compression lz4`.execute(db);
  }
  let after = 0;
  for (;;) {
    const { rows } = await sql<{
      id: number | string;
      document: string;
      details_full: string | null;
      severity_v3: string | null;
    }>`select id, document, details_full, severity_v3 from vulnerabilities where id > ${after} order by id limit ${batch}`.execute(
      db,
    );
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]!.id);
    const values = rows.map(
      (row) => sql`(cast(${Number(row.id)} as bigint), ${findingOf(row.document, row.details_full, row.severity_v3)})`,
    );
    await sql`update vulnerabilities set finding = u.column2, render_version = 1 from (values ${sql.join(values)}) as u where vulnerabilities.id = u.column1`.execute(
      db,
    );
  }
  await sql`insert into render_state (resource, version) values ('vulnerabilities', 1)`.execute(db);
}

/** A header as the wire wrote it (with a derived uuid). */
interface WireHeader {
  name: string;
  uuid: string;
  value: string;
}

/**
 * The StoredFinding of a vulnerability from its version-1 documents: the wire fields the
 * renderer took from the finding, with the derived ones (reference and header uuids) dropped and
 * the full details in place of the truncated ones. Times stay ISO 8601 text, as the finding
 * column keeps them. Rendering it again gives the same documents.
 */
function findingOf(document: string, detailsFull: string | null, severityV3: string | null): string {
  const doc = JSON.parse(document) as Record<string, unknown> & {
    uuid: string;
    links: { details_page: string };
    source: { value: string };
    references: Array<Record<string, unknown>>;
    request?: Record<string, unknown> & { headers: WireHeader[] };
    response?: Record<string, unknown> & { headers: WireHeader[] };
  };
  const suffix = `/vulnerabilities/${doc.uuid}`;
  const page = doc.links.details_page;
  const detailsPageBase = page.endsWith(suffix) ? page.slice(0, page.length - suffix.length) : page;
  const headers = (list: WireHeader[]) => list.map((h) => ({ name: h.name, value: h.value }));
  const finding = {
    host: doc['host'],
    title: doc['title'],
    severity: doc['severity'],
    ...(severityV3 === null ? {} : { severityV3 }),
    version: doc['version'],
    cwe: doc['cwe'],
    cvss: doc['cvss_scores'],
    definition: doc['definition'],
    owasp: doc['owasp'],
    references: doc.references.map((r) => {
      const { uuid, ...rest } = r;
      void uuid;
      return rest;
    }),
    source: doc.source.value,
    ...(doc['cookie'] === undefined ? {} : { cookie: doc['cookie'] }),
    ...(doc.request === undefined ? {} : { request: { ...doc.request, headers: headers(doc.request.headers) } }),
    ...(doc.response === undefined ? {} : { response: { ...doc.response, headers: headers(doc.response.headers) } }),
    details: detailsFull === null ? doc['details'] : (JSON.parse(detailsFull) as unknown),
  };
  return JSON.stringify({ finding, detailsPageBase });
}
