import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * The console's accounts (core/accounts): how members sign in to the web console.
 *
 * `member_credentials`: at most one per member (the primary key). `password_hash` is an scrypt
 * hash in its own self-describing string (parameters and salt included); `totp_secret_sealed` the
 * member's TOTP secret encrypted with the server key, null until enrolment; `totp_confirmed_at`
 * set once a first code proved the enrolment; `totp_last_step` the last 30-second step a code was
 * accepted for, so a code is never accepted twice.
 *
 * `console_sessions`: one row per sign-in. The cookie carries a random id; only its SHA-256 is
 * stored (`token_hash`, unique). `stage` is `second_factor` between the password and the TOTP
 * code, `signed_in` after; `csrf_token` is the session's synchroniser token. A session ends at
 * `expires_at` (absolute), after `last_seen_at` + the idle limit, or when `revoked_at` is set.
 *
 * `account_links`: one-time links (`invitation` to set a first password, `reset` to set a new
 * one). Only the SHA-256 of the token is stored; `used_at` is set in the transaction that uses it.
 *
 * `sign_in_failures`: failed sign-ins counted per key (`account:<email>`, `address:<ip>`) in a
 * window that starts at the first failure.
 *
 * Every row cascades from its member (and team), so removing a member ends its sessions.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('member_credentials')
    .addColumn('member_id', 'integer', (c) => c.primaryKey().references('members.id').onDelete('cascade'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('totp_secret_sealed', 'text')
    .addColumn('totp_confirmed_at', 'bigint')
    .addColumn('totp_last_step', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await idColumn(db.schema.createTable('console_sessions'), dialect)
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('member_id', 'integer', (c) => c.notNull().references('members.id').onDelete('cascade'))
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('console_sessions_token_unique')
    .on('console_sessions')
    .column('token_hash')
    .unique()
    .execute();
  await db.schema.createIndex('console_sessions_member_idx').on('console_sessions').column('member_id').execute();

  await idColumn(db.schema.createTable('account_links'), dialect)
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('member_id', 'integer', (c) => c.notNull().references('members.id').onDelete('cascade'))
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('account_links_token_unique').on('account_links').column('token_hash').unique().execute();
  await db.schema.createIndex('account_links_member_idx').on('account_links').column('member_id').execute();

  await db.schema
    .createTable('sign_in_failures')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .execute();
}
