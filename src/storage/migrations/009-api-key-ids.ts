import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { sql } from '../kysely.ts';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';

/** The shape of newKeyId() when this migration was written (kept here: a migration never changes). */
function keyId(): string {
  return `key_${[...randomBytes(10)].map((b) => alphabet[b & 31]).join('')}`;
}

/**
 * API keys get a public id (`key_` and 10 random characters, unique in the store), which
 * operators see and may revoke by, since the key itself is never stored; existing keys get one
 * here. `last_used` is when the key last authenticated a request, null when never (written at
 * most once a minute per key, see KeyUsageRecorder).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('public_id', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used', 'bigint').execute();
  const rows = (await sql<{ id: number }>`select id from api_keys order by id`.execute(db)).rows;
  for (const row of rows) await sql`update api_keys set public_id = ${keyId()} where id = ${row.id}`.execute(db);
  // SQLite cannot add NOT NULL to an existing column without rebuilding the table; every insert writes it.
  if (dialect === 'postgres') await sql`alter table api_keys alter column public_id set not null`.execute(db);
  await db.schema.createIndex('api_keys_public_id_unique').on('api_keys').column('public_id').unique().execute();
}
