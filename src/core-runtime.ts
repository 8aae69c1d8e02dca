import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from './config/config.ts';
import { VerificationService } from './core/assets/verification.service.ts';
import { SecretBox } from './core/shared/secret-box.ts';
import type { Store } from './core/shared/store.ts';
import { startKeyUsageRecording } from './core/teams/key-usage.service.ts';
import { OperatorError } from './core/teams/team.service.ts';
import { NameTokenCodec } from './core/zones/name-token.ts';
import { createDnsResolver, type DnsResolver } from './engine/dns/resolver.ts';
import { EgressGuard } from './engine/net/egress-guard.ts';
import { createOwnershipChecker } from './engine/verify/ownership-checker.ts';
import { openDatabase, type Database } from './storage/database.ts';
import { migrateToLatest } from './storage/migrate.ts';
import { createStore } from './storage/store.ts';

/**
 * The store, the server key and the ownership check: what the admin commands need. Kept apart
 * from the full runtime (HTTP, jobs, scans) so that a command loads and starts only this.
 */
export interface CoreRuntime {
  config: Config;
  log: Logger;
  database: Database;
  store: Store;
  box: SecretBox;
  verification: VerificationService;
  /** Every outbound connection is checked by this guard… */
  guard: EgressGuard;
  /** …and resolves names with this resolver. */
  resolver: DnsResolver;
  close(): Promise<void>;
}

/** How the core runtime is opened (tests bring their own database and a silent logger). */
export interface CoreRuntimeOptions {
  log?: Logger;
  database?: Database;
}

/**
 * The server key: PERIMETER_SECRET_KEY when configured, else a key generated once into
 * DATA_DIR/server.key (mode 0600). Scaled deployments must configure the same key everywhere.
 */
function loadServerKey(config: Config): Buffer {
  if (config.secretKey !== undefined) return Buffer.from(config.secretKey, 'base64');
  const path = join(config.dataDir, 'server.key');
  if (!existsSync(path)) {
    if (!existsSync(config.dataDir)) mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(path, Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'), { mode: 0o600 });
    chmodSync(path, 0o600);
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
}

/**
 * Refuses a server key that is not the one the store's secrets were sealed with (another
 * PERIMETER_SECRET_KEY, or a DATA_DIR/server.key that does not belong to the database): every
 * signed request and every connector would fail later, as a server fault. A store with no sealed
 * secret yet has nothing to check.
 */
async function assertServerKeyOpensStore(database: Database, box: SecretBox): Promise<void> {
  const signing = await database.db.selectFrom('api_keys').select('secret_enc').where('secret_enc', 'is not', null).limit(1).executeTakeFirst();
  const connector = signing === undefined ? await database.db.selectFrom('connectors').select('options_sealed').limit(1).executeTakeFirst() : undefined;
  const sealed = signing?.secret_enc ?? connector?.options_sealed;
  if (sealed === undefined || sealed === null) return;
  try {
    box.decrypt(sealed);
  } catch {
    throw new OperatorError(
      `the server key does not open this store's secrets (${database.description}): it was made with another key. Set PERIMETER_SECRET_KEY, or DATA_DIR/server.key, to the key the store was made with`,
    );
  }
}

/** Opens the store (migrating it), reads the server key and wires the ownership check. */
export async function openCoreRuntime(config: Config, options: CoreRuntimeOptions = {}): Promise<CoreRuntime> {
  const log = options.log ?? pino({ level: config.logLevel });
  const database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, cacheMb: config.storeCacheMb, ...(config.storeReaders === undefined ? {} : { readers: config.storeReaders }), ...(config.storePoolSize === undefined ? {} : { poolSize: config.storePoolSize }), ...(config.databaseSchema === undefined ? {} : { pgSchema: config.databaseSchema }), onBackgroundError: (message, err) => log.warn({ err }, message) }));
  await migrateToLatest(database);
  const box = new SecretBox(loadServerKey(config));
  try {
    await assertServerKeyOpensStore(database, box);
  } catch (err) {
    if (options.database === undefined) await database.close();
    throw err;
  }
  const store = createStore(database, { nameTokens: new NameTokenCodec(box.blockCipher('discovered-name-token')) });
  const keyUsage = startKeyUsageRecording(store, (keyId, err) => log.warn({ err, keyId }, 'could not record the last use of an API key'));
  const guard = new EgressGuard(config.egressAllow);
  const resolver = createDnsResolver(config.dnsResolvers);
  const verification = new VerificationService(store, createOwnershipChecker({ guard, resolver }), config.verifyTimeoutMs, log);
  return {
    config,
    log,
    database,
    store,
    box,
    verification,
    guard,
    resolver,
    close: async () => {
      await keyUsage.flush();
      await verification.close();
      await database.close();
    },
  };
}
