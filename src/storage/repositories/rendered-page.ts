import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../database.ts';
import { renderPage, type PageSpec, type RenderedPage } from '../../shared/page-render.mjs';
import type { Schema } from '../schema.ts';

/**
 * Reads a list page rendered as wire JSON (page-render.mjs): through the store's readPage outside
 * a transaction (`readPage` given), else on the transaction's own connection, whose uncommitted
 * rows the page must see. The query selects its columns in the spec's layout, each under its
 * own name (rows come back as objects there, read in column order).
 */
export async function readRenderedPage(
  db: Kysely<Schema>,
  readPage: Database['readPage'] | undefined,
  compiled: CompiledQuery,
  spec: PageSpec,
): Promise<RenderedPage> {
  if (readPage !== undefined) return readPage(compiled.sql, compiled.parameters, spec);
  const { rows } = await db.executeQuery(compiled);
  return renderPage(
    rows.map((row) => Object.values(row as object)),
    spec,
  );
}
