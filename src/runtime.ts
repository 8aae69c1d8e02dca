import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from './config/config.ts';
import { VerificationService } from './core/assets/verification.service.ts';
import { LruCache } from './core/shared/lru-cache.ts';
import { MarkerCodec } from './core/shared/marker.ts';
import { SecretBox } from './core/shared/secret-box.ts';
import type { Store } from './core/shared/store.ts';
import { matchGroupsForVulnerabilities } from './core/vulnerabilities/group-filter.ts';
import { VulnerabilityLister } from './core/vulnerabilities/vulnerability-list.service.ts';
import { EgressGuard } from './engine/net/egress-guard.ts';
import { createBulkResolver } from './engine/dns/bulk-resolver.ts';
import { createDnsResolver } from './engine/dns/resolver.ts';
import { createNameResolver } from './engine/name-resolver.ts';
import { createZoneEngine } from './engine/zone-engine.ts';
import type { ZoneEngine } from './core/zones/zone-engine.ts';
import { NameTokenCodec } from './core/zones/name-token.ts';
import { createOwnershipChecker } from './engine/verify/ownership-checker.ts';
import { createJobQueue } from './jobs/create-queue.ts';
import type { JobQueue, QueueOptions } from './jobs/job-queue.ts';
import { openDatabase, type Database } from './storage/database.ts';
import type { ScanEngine } from './core/scans/scan-engine.ts';
import type { ScanRunnerDeps } from './core/scans/scan-runner.service.ts';
import type { ScanQueue } from './core/scans/scan.service.ts';
import { createHttpScanEngine } from './engine/http-scan/http-scan-engine.ts';
import { scanQueueOf } from './jobs/scan.job.ts';
import { migrateToLatest } from './storage/migrate.ts';
import { createStore } from './storage/store.ts';

/** Everything wired once: the store, the server key, the engine parts, the core services. */
export interface Runtime {
  config: Config;
  log: Logger;
  database: Database;
  store: Store;
  box: SecretBox;
  markers: MarkerCodec;
  verification: VerificationService;
  vulnerabilities: VulnerabilityLister;
  pageCache: LruCache<Buffer>;
  /** The durable job queue; the worker role works it, every role may enqueue. */
  jobs: JobQueue;
  /** Zone-file parsing, zone transfers and name lookups (engine/dns behind the core's port). */
  zoneEngine: ZoneEngine;
  /** Application scans: endpoint validation and the crawler with its checks (engine/http-scan). */
  scanEngine: ScanEngine;
  /** Scans as jobs of the queue. */
  scanQueue: ScanQueue;
  /** What the scan job runs with. */
  scanRunner: ScanRunnerDeps;
  close(): Promise<void>;
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

/** Opens the store (migrating it) and wires the services; `jobs` tunes the queue (tests shorten the lease). */
export async function openRuntime(config: Config, options: { log?: Logger; database?: Database; jobs?: Omit<QueueOptions, 'log'> } = {}): Promise<Runtime> {
  const log = options.log ?? pino({ level: config.logLevel });
  const database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, cacheMb: config.storeCacheMb, ...(config.databaseSchema === undefined ? {} : { pgSchema: config.databaseSchema }) }));
  await migrateToLatest(database);
  const box = new SecretBox(loadServerKey(config));
  const store = createStore(database, { nameTokens: new NameTokenCodec(box.blockCipher('discovered-name-token')) });
  const guard = new EgressGuard(config.egressAllow);
  const resolver = createDnsResolver(config.dnsResolvers);
  const verification = new VerificationService(store, createOwnershipChecker({ guard, resolver }), config.verifyTimeoutMs, log);
  const markers = new MarkerCodec(box);
  // Zone lookup jobs resolve in bulk over their own UDP sockets (opened on first use).
  const bulk = createBulkResolver({ servers: config.dnsResolvers });
  const jobs = await createJobQueue(database, { ...options.jobs, log: log.child({ component: 'jobs' }) });
  const scanEngine = createHttpScanEngine({ guard, resolver, canary: { listen: config.scanCanaryListen, url: config.scanCanaryUrl } });
  return {
    config,
    log,
    database,
    store,
    box,
    markers,
    verification,
    vulnerabilities: new VulnerabilityLister(store, markers, matchGroupsForVulnerabilities),
    pageCache: new LruCache<Buffer>(config.pageCacheMb * 1024 * 1024, (page) => page.length),
    jobs,
    zoneEngine: createZoneEngine({ guard, resolver, names: createNameResolver(bulk) }),
    scanEngine,
    scanQueue: scanQueueOf(jobs),
    scanRunner: {
      store,
      engine: scanEngine,
      limits: { maxPages: config.scanMaxPages, maxDepth: config.scanMaxDepth, maxDurationMs: config.scanMaxDurationMs, requestTimeoutMs: config.scanRequestTimeoutMs },
      perTeamLimit: config.scanTeamConcurrency,
      ingestion: { detailsPageBase: config.publicUrl ?? `http://localhost:${config.port}` },
      log: log.child({ component: 'scans' }),
    },
    close: async () => {
      // Running jobs go back to the queue before the store closes under them.
      await jobs.stop();
      await verification.close();
      bulk.close();
      await database.close();
    },
  };
}
