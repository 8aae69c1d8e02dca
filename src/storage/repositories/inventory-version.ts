import type { Kysely } from 'kysely';
import type { Schema } from '../schema.ts';

/** The v3 lists whose version lives in `inventory_versions` (/ips keeps its own table). */
export type VersionedList = 'ports' | 'technologies';

/** The team's version of a list: it changes whenever the list could answer differently; 0 before any change. */
export async function readInventoryVersion(db: Kysely<Schema>, teamId: number, list: VersionedList): Promise<number> {
  const row = await db
    .selectFrom('inventory_versions')
    .select('version')
    .where('team_id', '=', teamId)
    .where('list', '=', list)
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** Counts one change of the team's list (inside the transaction that made it). */
export async function bumpInventoryVersion(db: Kysely<Schema>, teamId: number, list: VersionedList): Promise<void> {
  await db
    .insertInto('inventory_versions')
    .values({ team_id: teamId, list, version: 1 })
    .onConflict((oc) =>
      oc.columns(['team_id', 'list']).doUpdateSet((eb) => ({ version: eb('inventory_versions.version', '+', 1) })),
    )
    .execute();
}
