import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from './config/config.ts';
import { VerificationService } from './core/assets/verification.service.ts';
import { SecretBox } from './core/shared/secret-box.ts';
import type { Store } from './core/shared/store.ts';
import { startKeyUsageRecording } from './core/teams/key-usage.service.ts';
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
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(path, Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'), { mode: 0o600 });
    chmodSync(path, 0o600);
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
}

/** Opens the store (migrating it), reads the server key and wires the ownership check. */
export async function openCoreRuntime(config: Config, options: CoreRuntimeOptions = {}): Promise<CoreRuntime> {
  const log = options.log ?? pino({ level: config.logLevel });
  const database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, cacheMb: config.storeCacheMb, ...(config.storeReaders === undefined ? {} : { readers: config.storeReaders }), ...(config.storePoolSize === undefined ? {} : { poolSize: config.storePoolSize }), ...(config.databaseSchema === undefined ? {} : { pgSchema: config.databaseSchema }), onBackgroundError: (message, err) => log.warn({ err }, message) }));
  await migrateToLatest(database);
  const box = new SecretBox(loadServerKey(config));
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
