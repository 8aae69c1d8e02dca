import type { Database } from './database.ts';

/**
 * One secret the store holds sealed with the server key (a key's signing secret, else a
 * connector's options, a team's single sign-on client secret, a webhook's signing secret or a
 * Jira API token, in that order), or undefined when it holds none yet: enough to tell at start
 * whether the configured server key is the one the store was made with.
 */
export async function sampleSealedSecret(database: Database): Promise<string | undefined> {
  const { db } = database;
  const samples = [
    async () =>
      (
        await db
          .selectFrom('api_keys')
          .select('secret_enc')
          .where('secret_enc', 'is not', null)
          .limit(1)
          .executeTakeFirst()
      )?.secret_enc ?? undefined,
    async () =>
      (await db.selectFrom('connectors').select('options_sealed').limit(1).executeTakeFirst())?.options_sealed,
    async () =>
      (await db.selectFrom('team_sso').select('client_secret_sealed').limit(1).executeTakeFirst())
        ?.client_secret_sealed,
    async () => (await db.selectFrom('webhooks').select('secret_sealed').limit(1).executeTakeFirst())?.secret_sealed,
    async () =>
      (await db.selectFrom('jira_connections').select('api_token_sealed').limit(1).executeTakeFirst())
        ?.api_token_sealed,
  ];
  for (const sample of samples) {
    const sealed = await sample();
    if (sealed !== undefined) return sealed;
  }
  return undefined;
}
