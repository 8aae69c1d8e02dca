import type { Kysely } from 'kysely';

/**
 * Single sign-on of the console (core/accounts/sso.types.ts): one OpenID Connect provider per
 * team, at most (the primary key). `issuer` is the provider's issuer URL (its discovery document
 * is read from it), `client_id` the console's client at that provider, and
 * `client_secret_sealed` the client secret encrypted with the server key: it is never shown
 * back. The row cascades from its team.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('team_sso')
    .addColumn('team_id', 'integer', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret_sealed', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
