import type { Kysely } from 'kysely';
import type { Repositories, Store } from '../core/shared/store.ts';
import type { Database } from './database.ts';
import { isMigrated } from './migrate.ts';
import { KyselyAssetRepository } from './repositories/asset.repository.ts';
import { KyselyApiKeyRepository, KyselyTeamRepository } from './repositories/team.repository.ts';
import type { Schema } from './schema.ts';

function repositories(db: Kysely<Schema>, database: Database): Repositories {
  return {
    teams: new KyselyTeamRepository(db),
    keys: new KyselyApiKeyRepository(db),
    assets: new KyselyAssetRepository(db, database.dialect),
  };
}

/** The core's Store over an open database. */
export function createStore(database: Database): Store {
  return {
    ...repositories(database.db, database),
    transaction: (work) => database.db.transaction().execute((trx) => work(repositories(trx, database))),
    isReady: async () => {
      try {
        return await isMigrated(database);
      } catch {
        return false;
      }
    },
  };
}
