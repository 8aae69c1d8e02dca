import { KyselyEventRepository } from './repositories/event.repository.ts';
import { KyselyJiraRepository } from './repositories/jira.repository.ts';
import { KyselyImportRepository } from './repositories/import.repository.ts';
import { KyselyWebhookRepository } from './repositories/webhook.repository.ts';
import type { Kysely } from 'kysely';
import type { AssetRenderer, DiscoveredNameRenderer } from '../core/assets/asset-renderer.ts';
import type { Repositories, Store } from '../core/store.ts';
import type { NameTokenCodec } from '../core/zones/name-token.ts';
import type { Database } from './database.ts';
import { isMigrated } from './migrate.ts';
import { KyselyAssetPatternRepository } from './repositories/asset-pattern.repository.ts';
import { KyselyAssetRepository } from './repositories/asset.repository.ts';
import { KyselyConnectorRepository } from './repositories/connector.repository.ts';
import { KyselyAccountRepository } from './repositories/account.repository.ts';
import { KyselyGroupMemberRepository } from './repositories/group-member.repository.ts';
import { KyselyGroupRepository } from './repositories/group.repository.ts';
import { KyselyIpInventoryRepository } from './repositories/ip-inventory.repository.ts';
import { KyselyPortInventoryRepository } from './repositories/port-inventory.repository.ts';
import { KyselyTechnologyInventoryRepository } from './repositories/technology-inventory.repository.ts';
import { KyselySurfaceRunRepository } from './repositories/surface-run.repository.ts';
import { KyselySurfaceNameRepository } from './repositories/surface-name.repository.ts';
import { KyselyMemberRepository } from './repositories/member.repository.ts';
import { KyselyApiKeyRepository, KyselyTeamRepository } from './repositories/team.repository.ts';
import { KyselyVulnerabilityRepository } from './repositories/vulnerability.repository.ts';
import { KyselyLookupJobRepository } from './repositories/zone-lookup.repository.ts';
import { KyselyZoneRepository } from './repositories/zone.repository.ts';
import { KyselyScanProfileRepository } from './repositories/scan-profile.repository.ts';
import { KyselyScanRepository } from './repositories/scan.repository.ts';
import { KyselyBreachRepository } from './repositories/breach.repository.ts';
import { KyselyOverviewRepository } from './repositories/overview.repository.ts';
import { KyselyTeamSsoRepository } from './repositories/team-sso.repository.ts';
import { KyselySurfaceRecordRepository } from './repositories/surface-record.repository.ts';
import type { Renderers } from './render-cache.ts';
import type { Schema } from './schema.ts';

function repositories(
  db: Kysely<Schema>,
  database: Database,
  isTransaction: boolean,
  options: StoreOptions,
  tableChanged: Database['tableChanged'],
): Repositories {
  return {
    teams: new KyselyTeamRepository(db),
    keys: new KyselyApiKeyRepository(db),
    assets: new KyselyAssetRepository(
      db,
      database.dialect,
      options.renderers.assets,
      isTransaction ? undefined : database.rawRows,
      isTransaction ? undefined : database.readPage,
    ),
    members: new KyselyMemberRepository(db, database.dialect),
    groups: new KyselyGroupRepository(db),
    groupMembers: new KyselyGroupMemberRepository(db),
    assetPatterns: new KyselyAssetPatternRepository(db),
    vulnerabilities: new KyselyVulnerabilityRepository(
      db,
      options.renderers.vulnerabilities,
      isTransaction ? undefined : database,
      tableChanged,
    ),
    zones: new KyselyZoneRepository(
      db,
      database.dialect,
      options.nameTokens,
      options.renderers.discoveredNames,
      database.prepare,
    ),
    zoneLookups: new KyselyLookupJobRepository(db),
    scanProfiles: new KyselyScanProfileRepository(db),
    scans: new KyselyScanRepository(db, database.dialect),
    ipAddresses: new KyselyIpInventoryRepository(
      db,
      database.dialect,
      options.renderers.inventory,
      isTransaction ? undefined : database,
      tableChanged,
    ),
    ports: new KyselyPortInventoryRepository(
      db,
      database.dialect,
      options.renderers.inventory,
      isTransaction ? undefined : database,
      tableChanged,
    ),
    technologies: new KyselyTechnologyInventoryRepository(
      db,
      database.dialect,
      options.renderers.inventory,
      isTransaction ? undefined : database,
      tableChanged,
    ),
    surfaceRuns: new KyselySurfaceRunRepository(db, database.dialect),
    surfaceNames: new KyselySurfaceNameRepository(db),
    breaches: new KyselyBreachRepository(db),
    overview: new KyselyOverviewRepository(db),
    surfaceRecords: new KyselySurfaceRecordRepository(db),
    connectors: new KyselyConnectorRepository(db),
    accounts: new KyselyAccountRepository(db),
    teamSso: new KyselyTeamSsoRepository(db),
    events: new KyselyEventRepository(db, database.dialect, isTransaction),
    jira: new KyselyJiraRepository(db),
    webhooks: new KyselyWebhookRepository(db),
    imports: new KyselyImportRepository(db),
  };
}

/** What the store needs beside the database. */
export interface StoreOptions {
  /** Makes and reads the tokens of discovered names (keyed with the server key). */
  nameTokens: NameTokenCodec;
  /** The wire shapes the HTTP face owns, which the store renders (see StoreRenderers). */
  renderers: StoreRenderers;
}

/**
 * The renderers of the store: those of its stored documents, a render cache (render-cache.ts),
 * and those of the list documents it builds per read, never stored (the v2 asset shape, which
 * it compiles to SQL, and the entries of discovered names).
 */
export interface StoreRenderers extends Renderers {
  assets: AssetRenderer;
  discoveredNames: DiscoveredNameRenderer;
}

/** How many times a transaction runs when PostgreSQL keeps choosing it to break deadlocks. */
const deadlockAttempts = 3;

function isDeadlock(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '40P01';
}

/** The core's Store over an open database. */
export function createStore(database: Database, options: StoreOptions): Store {
  return {
    ...repositories(database.db, database, false, options, database.tableChanged),
    transaction: async (work) => {
      for (let attempt = 1; ; attempt++) {
        // Bulk writes count toward their table's next ANALYZE once committed: one started before
        // the commit would not see them (table-statistics.ts).
        const changed: Array<Parameters<NonNullable<Database['tableChanged']>>> = [];
        const collect =
          database.tableChanged === undefined
            ? undefined
            : (...change: (typeof changed)[number]) => void changed.push(change);
        try {
          const result = await database.db
            .transaction()
            .execute((trx) => work(repositories(trx, database, true, options, collect)));
          for (const [table, rows] of changed) database.tableChanged?.(table, rows);
          return result;
        } catch (err) {
          // PostgreSQL breaks a deadlock by rolling one of its transactions back (40P01): nothing
          // of it stayed, and the other went on, so this one runs again (Transactional's contract).
          if (database.dialect !== 'postgres' || !isDeadlock(err) || attempt >= deadlockAttempts) throw err;
        }
      }
    },
    isReady: async () => {
      try {
        return await isMigrated(database);
      } catch {
        return false;
      }
    },
  };
}
