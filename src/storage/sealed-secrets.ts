import type { Database } from './database.ts';

/**
 * One secret the store holds sealed with the server key (a key's signing secret, else a
 * connector's options, else a team's single sign-on client secret), or undefined when it holds
 * none yet: enough to tell at start whether the configured server key is the one the store was
 * made with.
 */
export async function sampleSealedSecret(database: Database): Promise<string | undefined> {
  const signing = await database.db
    .selectFrom('api_keys')
    .select('secret_enc')
    .where('secret_enc', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  const connector =
    signing === undefined
      ? await database.db.selectFrom('connectors').select('options_sealed').limit(1).executeTakeFirst()
      : undefined;
  const sso =
    signing === undefined && connector === undefined
      ? await database.db.selectFrom('team_sso').select('client_secret_sealed').limit(1).executeTakeFirst()
      : undefined;
  return signing?.secret_enc ?? connector?.options_sealed ?? sso?.client_secret_sealed ?? undefined;
}
