import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { Dialect } from '../database.ts';

/**
 * PostgreSQL: the vulnerabilities' stored documents (the list's wire JSON, 1–3 KB each, and the
 * full details) are compressed with lz4 instead of pglz where the server supports it (Debian's
 * and most builds do; a server built without lz4 keeps pglz). Two thirds of the list documents
 * are long enough to be compressed; reading a page of 100 of them cost the backend 0.48 ms of
 * CPU with pglz against 0.26 ms with lz4 at about the same size (1M-row store, docs/benchmarks.md).
 *
 * A metadata change: rows written from now on are lz4, rows already stored keep pglz until they
 * are rewritten (docs/operations.md says how to rewrite them at once). The embedded store does
 * not compress its rows: nothing to do there.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  const supported = await sql<{
    ok: boolean;
  }>`select 'lz4' = any(enumvals) as ok from pg_settings where name = 'default_toast_compression'`.execute(db);
  if (supported.rows[0]?.ok !== true) return;
  await sql`alter table vulnerabilities alter column document set compression lz4, alter column details_full set compression lz4`.execute(
    db,
  );
}
