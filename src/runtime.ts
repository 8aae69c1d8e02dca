import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/config.ts';
import { addAsset, addAssetInTransaction, listAssets, requireTokenTarget } from './core/assets/asset.service.ts';
import { recordOwnershipCheck, VerificationService } from './core/assets/verification.service.ts';
import { loadGroupPatterns } from './core/groups/asset-pattern.service.ts';
import type { CorePorts } from './core/ports.ts';
import { requireProfile } from './core/scans/scan-profile.service.ts';
import type { ConnectorRunDeps } from './core/connectors/connector-run.service.ts';
import type { ScanEngine } from './core/scans/scan-engine.ts';
import type { ScanRunnerDeps } from './core/scans/scan-runner.service.ts';
import type { ScanQueue } from './core/scans/scan.service.ts';
import type { FindingSink } from './core/scans/scan.types.ts';
import type { LruCache } from './core/shared/lru-cache.ts';
import type { MarkerCodec } from './core/shared/marker.ts';
import { SecretBox } from './core/shared/secret-box.ts';
import type { Store } from './core/store.ts';
import type { IpInventoryService } from './core/surface/ip-inventory.service.ts';
import type { MonitoringControl, SurfaceQueue } from './core/surface/monitoring.service.ts';
import type { SurfaceRunnerDeps } from './core/surface/surface-runner.service.ts';
import { startKeyUsageRecording } from './core/teams/key-usage.service.ts';
import { OperatorError } from './core/errors/operator-error.ts';
import { NameTokenCodec } from './core/zones/name-token.ts';
import type { ZoneEngine } from './core/zones/zone-engine.ts';
import type { EmailSender } from './core/webhooks/webhook-format.types.ts';
import type { WebhookApiDeps } from './core/webhooks/webhook.service.ts';
import type { WebhookDeliveryThread } from './jobs/threaded-webhook-delivery.ts';
import type { VulnerabilityLister } from './core/vulnerabilities/vulnerability-list.service.ts';
import { requireVulnerability } from './core/vulnerabilities/vulnerability-status.service.ts';
import { createDnsResolver, type DnsResolver } from './engine/dns/resolver.ts';
import type { BulkResolver } from './engine/dns/bulk-resolver.ts';
import { EgressGuard } from './engine/net/egress-guard.ts';
import { lazyOidcClient } from './engine/sso/lazy-oidc-client.ts';
import type { OidcClient } from './core/accounts/sso.types.ts';
import { createOwnershipChecker } from './engine/verify/ownership-checker.ts';
import type { JobQueue, QueueOptions } from './jobs/job-queue.ts';
import type { Scheduler } from './jobs/scheduler.ts';
import { openDatabase, type Database } from './storage/database.ts';
import { migrateToLatest } from './storage/migrate.ts';
import { loadRuntimeParts, type RuntimeParts } from './runtime-parts.ts';
import { sampleSealedSecret } from './storage/sealed-secrets.ts';
import { createStore, type StoreRenderers } from './storage/store.ts';
import { refreshRenderCache } from './storage/render-cache.ts';
import { vulnerabilityRenderer } from './http/v2/vulnerability.render.ts';
import { inventoryRenderer } from './http/v3/inventory.render.ts';
import { assetRenderer } from './http/v2/asset.render.ts';
import { discoveredNameRenderer } from './http/v2/subdomain.render.ts';

/** The render modules of the HTTP face, owners of the wire shapes the store renders (and keeps, the first two). */
export const renderers: StoreRenderers = {
  vulnerabilities: vulnerabilityRenderer,
  inventory: inventoryRenderer,
  assets: assetRenderer,
  discoveredNames: discoveredNameRenderer,
};

// The composition root: the one module that wires the store, the core services, the engine, the
// job queue and the faces together, with plain factory functions. It is built in two parts:
// openCoreRuntime (the store, the server key, the ownership check) is what the admin commands
// need; openRuntime adds the rest. The rest (engine, jobs, HTTP app) is loaded with import()
// when it is built: under tsx it costs seconds, and `perimeter admin` must not pay for it.

/**
 * The store, the server key and the ownership check: what the admin commands need. Kept apart
 * from the full runtime (HTTP, jobs, scans) so that a command loads and starts only this.
 */
export interface CoreRuntime {
  config: Config;
  log: Logger;
  database: Database;
  store: Store;
  /** What the areas of the core lend each other (core/ports.ts); passed on with the store. */
  ports: CorePorts;
  box: SecretBox;
  verification: VerificationService;
  /** Every outbound connection is checked by this guard… */
  guard: EgressGuard;
  /** …and resolves names with this resolver. */
  resolver: DnsResolver;
  /** The OpenID client of console single sign-on (through the guard; loaded on first use). */
  oidc: OidcClient;
  close(): Promise<void>;
}

/**
 * The capabilities the areas of the core lend each other (core/ports.ts), each implemented by the
 * area that owns the rule. They take the store (or the transaction) they act on, so one object
 * serves every store and every transaction.
 */
export const corePorts: CorePorts = {
  assets: { requireTokenTarget, listAssets, addAsset, addAssetInTransaction, recordOwnershipCheck },
  profiles: { requireProfile },
  vulnerabilities: { requireVulnerability },
  groups: { loadGroupPatterns },
};

/** How the core runtime is opened (tests bring their own database and a silent logger). */
export interface CoreRuntimeOptions {
  log?: Logger;
  database?: Database;
}

/**
 * The server key: PERIMETER_SECRET_KEY when configured, else a key generated once into
 * DATA_DIR/server.key (mode 0600). Scaled deployments must configure the same key everywhere.
 */
export function loadServerKey(config: Config): Buffer {
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
  const sealed = await sampleSealedSecret(database);
  if (sealed === undefined) return;
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
  const database =
    options.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      cacheMb: config.storeCacheMb,
      ...(config.storeReaders === undefined ? {} : { readers: config.storeReaders }),
      ...(config.storePoolSize === undefined ? {} : { poolSize: config.storePoolSize }),
      ...(config.databaseSchema === undefined ? {} : { pgSchema: config.databaseSchema }),
      onBackgroundError: (message, err) => log.warn({ err }, message),
    }));
  await migrateToLatest(database);
  const box = new SecretBox(loadServerKey(config));
  try {
    await assertServerKeyOpensStore(database, box);
  } catch (err) {
    if (options.database === undefined) await database.close();
    throw err;
  }
  // Rows an older render version wrote are rendered again before any role reads them.
  const refreshed = await refreshRenderCache(database.db, renderers);
  if (Object.values(refreshed).some((n) => n > 0)) log.info({ refreshed }, 'stored documents rendered again');
  const store = createStore(database, {
    nameTokens: new NameTokenCodec(box.blockCipher('discovered-name-token')),
    renderers,
  });
  const keyUsage = startKeyUsageRecording(store, (keyId, err) =>
    log.warn({ err, keyId }, 'could not record the last use of an API key'),
  );
  const guard = new EgressGuard(config.egressAllow);
  const resolver = createDnsResolver(config.dnsResolvers);
  const verification = new VerificationService(
    store,
    createOwnershipChecker({ guard, resolver }),
    config.verifyTimeoutMs,
    log,
  );
  return {
    config,
    log,
    database,
    store,
    ports: corePorts,
    box,
    verification,
    guard,
    resolver,
    oidc: lazyOidcClient({ guard, resolver }),
    close: async () => {
      await keyUsage.flush();
      await verification.close();
      await database.close();
    },
  };
}

/** Everything wired once: the core runtime, the engine parts, the job queue, the core services. */
export interface Runtime extends CoreRuntime {
  markers: MarkerCodec;
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
  /** The IP inventory: monitoring runs record what they resolved (recordRun). */
  ipInventory: IpInventoryService;
  /** Surface-monitoring runs as durable jobs. */
  surfaceQueue: SurfaceQueue;
  /** What the settings update tells monitoring (turned on: a run now; off: the live run stops). */
  monitoring: MonitoringControl;
  /** What the surface-run job runs with (tests may replace the engine or the ports). */
  surfaceRunner: SurfaceRunnerDeps;
  /** The e-mail channel of webhooks (SMTP through the egress guard); undefined when PERIMETER_SMTP_URL is unset. */
  emailSender: EmailSender | undefined;
  /** The webhook pipeline's dependencies (the API's test and redeliver, the delivery job); built on first use. */
  webhooks: WebhookApiDeps;
  /** The thread the worker role delivers webhooks on (config webhookThreads 1; started by the first delivery). */
  webhookThread: WebhookDeliveryThread | undefined;
  /** Connector runs: the provider adapters behind the egress guard, and the run job's queue. */
  connectorRuns: ConnectorRunDeps;
}

/** What the connector-run job runs with: the adapters behind the egress guard, the store's ports. */
function connectorRunsOf(parts: RuntimeParts, config: Config, core: CoreRuntime, jobs: JobQueue): ConnectorRunDeps {
  const { store, box, guard, resolver, log } = core;
  return {
    store,
    box,
    ports: { assets: corePorts.assets, names: { indexRecords: parts.indexRecords } },
    collector: parts.createConnectorCollector({
      guard,
      resolver,
      endpoints: config.connectorEndpoints,
      requestTimeoutMs: config.connectorRequestTimeoutMs,
    }),
    enqueueRun: (teamId, connectorId, request) => parts.enqueueConnectorRun(jobs, teamId, connectorId, request),
    log: log.child({ component: 'connectors' }),
  };
}

/** What the surface-run job runs with, over the runtime's parts. */
function surfaceRunnerOf(
  parts: RuntimeParts,
  config: Config,
  deps: CoreRuntime & {
    bulk: BulkResolver;
    scanEngine: ScanEngine;
    ipInventory: IpInventoryService;
    findings: FindingSink;
  },
): SurfaceRunnerDeps {
  const { store, guard, resolver, log, bulk, scanEngine, ipInventory, findings } = deps;
  return {
    store,
    engine: parts.createSurfaceEngine({ guard, resolver, bulk }, scanEngine),
    ipInventory,
    exposure: { engines: parts.createExposureEngines({ guard, resolver }) },
    portInventory: new parts.PortInventoryService(store),
    technologyInventory: new parts.TechnologyInventoryService(store),
    findings,
    names: { indexRecords: parts.indexRecords },
    breaches: { evaluateBreaches: parts.evaluateBreaches },
    log: log.child({ component: 'monitoring' }),
    requestTimeoutMs: config.scanRequestTimeoutMs,
  };
}

/**
 * Loads the webhook pipeline's parts (with the SMTP sender when one is configured) and answers
 * how to wire them over the core runtime: the e-mail sender, the deliveries' dependencies, and the
 * delivery thread (config webhookThreads; it starts with the first delivery).
 */
async function loadWebhookParts(config: Config) {
  const [smtp, { webhookDepsOf }, { createWebhookDeliveryThread }] = await Promise.all([
    config.smtpUrl === undefined ? undefined : import('./engine/mail/smtp-sender.ts'),
    import('./jobs/webhook-delivery.job.ts'),
    import('./jobs/threaded-webhook-delivery.ts'),
  ]);
  return (core: CoreRuntime): Pick<Runtime, 'emailSender' | 'webhooks' | 'webhookThread'> => {
    const { store, box, guard, resolver, log } = core;
    // Webhooks of the e-mail format send through the operator's SMTP server, when one is set.
    const emailSender = smtp?.configuredSmtpSender(config, guard, resolver);
    return {
      emailSender,
      webhooks: webhookDepsOf({
        store,
        box,
        config,
        guard,
        resolver,
        emailSender,
        log: log.child({ component: 'webhooks' }),
      }),
      webhookThread: config.webhookThreads === 0 ? undefined : createWebhookDeliveryThread(config),
    };
  };
}

/** Opens the store (migrating it) and wires the services; `jobs` tunes the queue (tests shorten the lease). */
export async function openRuntime(
  config: Config,
  options: CoreRuntimeOptions & { jobs?: Omit<QueueOptions, 'log'> } = {},
): Promise<Runtime> {
  // The parts load before the store opens (as static imports did): a part that fails to load leaves nothing open.
  const parts = await loadRuntimeParts();
  const webhookParts = await loadWebhookParts(config);
  const core = await openCoreRuntime(config, options);
  const { log, database, store, box, guard, resolver } = core;
  const markers = new parts.MarkerCodec(box);
  // Zone lookup jobs and discovery resolve in bulk over their own UDP sockets (opened on first use).
  const bulk = parts.createBulkResolver({ servers: config.dnsResolvers, udpSockets: config.dnsUdpSockets });
  const sockets = parts.udpBatch();
  if (config.dnsUdpSockets === 'batch' && sockets.binding === undefined)
    log.warn({ reason: sockets.reason }, 'dns: batch UDP sockets unavailable, bulk lookups use dgram sockets');
  const jobs = await parts.createJobQueue(database, { ...options.jobs, log: log.child({ component: 'jobs' }) });
  const canary = { listen: config.scanCanaryListen, url: config.scanCanaryUrl };
  const inProcessScans = parts.createHttpScanEngine({ guard, resolver, canary });
  // Scans run on threads of their own (crawling and page work off the event loop) unless scanThreads is 0.
  const threaded =
    config.scanThreads === 0
      ? undefined
      : parts.createThreadedScanEngine(inProcessScans, {
          threads: config.scanThreads,
          config: { egressAllow: config.egressAllow, dnsResolvers: config.dnsResolvers, canary },
        });
  const scanEngine: ScanEngine = threaded ?? inProcessScans;
  const webhookWiring = webhookParts(core);
  const ipInventory = new parts.IpInventoryService(store, new parts.OfflineIpEnricher());
  const surfaceQueue = parts.surfaceQueueOf(jobs);
  // Scans and monitoring runs record their findings through the vulnerabilities' ingestion.
  const ingestion = { detailsPageBase: config.publicUrl ?? `http://localhost:${config.port}` };
  const findings: FindingSink = {
    begin: (target, report, scanId, afterBatch) =>
      new parts.ScanIngestion(target, report, ingestion, scanId, afterBatch),
  };
  return {
    ...core,
    markers,
    vulnerabilities: new parts.VulnerabilityLister(store, markers, (target, team, groupTokens) =>
      parts.matchGroupsForVulnerabilities(target, team, groupTokens, corePorts.groups),
    ),
    pageCache: new parts.LruCache<Buffer>(config.pageCacheMb * 1024 * 1024, (page) => page.length),
    jobs,
    zoneEngine: parts.createZoneEngine({ guard, resolver, names: parts.createNameResolver(bulk) }),
    scanEngine,
    scanQueue: parts.scanQueueOf(jobs),
    scanRunner: {
      store,
      engine: scanEngine,
      limits: {
        maxPages: config.scanMaxPages,
        maxDepth: config.scanMaxDepth,
        maxDurationMs: config.scanMaxDurationMs,
        requestTimeoutMs: config.scanRequestTimeoutMs,
      },
      perTeamLimit: config.scanTeamConcurrency,
      findings,
      log: log.child({ component: 'scans' }),
    },
    ipInventory,
    surfaceQueue,
    monitoring: parts.monitoringControl({ store, queue: surfaceQueue }),
    surfaceRunner: surfaceRunnerOf(parts, config, { ...core, bulk, scanEngine, ipInventory, findings }),
    ...webhookWiring,
    connectorRuns: connectorRunsOf(parts, config, core, jobs),
    close: async () => {
      // Running jobs go back to the queue before the store closes under them.
      await jobs.stop();
      await threaded?.close();
      await webhookWiring.webhookThread?.close();
      bulk.close();
      await core.close();
    },
  };
}

/** The api role: the HTTP app over the runtime, built but not listening. */
export async function buildApi(runtime: Runtime): Promise<FastifyInstance> {
  const { buildApp } = await import('./http/app.ts');
  return buildApp({ ...runtime, logger: runtime.log });
}

/**
 * The worker role: works every job kind, then re-enqueues what a crash left without a job (a
 * zone lookup or an import whose upload committed but whose job was never enqueued; live scans whose job was
 * never enqueued or can no longer run).
 */
export async function startWorker(runtime: Runtime): Promise<void> {
  const [{ jobHandlers }, { recoverZoneLookups }, { recoverImports }, { recoverScans }, { recoverConnectorRuns }] =
    await Promise.all([
      import('./jobs/handlers.ts'),
      import('./jobs/zone-lookup.job.ts'),
      import('./jobs/import.job.ts'),
      import('./core/scans/scan.service.ts'),
      import('./jobs/connector-run.job.ts'),
    ]);
  await runtime.jobs.work(jobHandlers(runtime));
  const recovered = await recoverZoneLookups(runtime.store, runtime.jobs);
  if (recovered > 0) runtime.log.info({ recovered }, 'zone lookups re-enqueued');
  const imports = await recoverImports(runtime.store, runtime.jobs);
  if (imports > 0) runtime.log.info({ imports }, 'imports re-enqueued');
  const connectorRuns = await recoverConnectorRuns(runtime.connectorRuns, runtime.jobs);
  if (connectorRuns > 0) runtime.log.info({ connectorRuns }, 'connector runs re-enqueued');
  // The scheduler role repeats this.
  const repaired = await recoverScans({ store: runtime.store, queue: runtime.scanQueue });
  if (repaired > 0) runtime.log.info({ repaired }, 'live scans without a running job repaired');
}

/**
 * The scheduler role: fires due scan schedules (once each, however many schedulers run) and
 * repairs live scans that no job runs any more; its first round runs now, so a fire missed
 * while down runs once.
 */
export async function startSchedulerRole(runtime: Runtime): Promise<Scheduler> {
  const { startScheduler } = await import('./jobs/scheduler.ts');
  const { config } = runtime;
  return startScheduler(
    {
      store: runtime.store,
      queue: runtime.scanQueue,
      log: runtime.log.child({ component: 'scheduler' }),
      monitoring: { store: runtime.store, queue: runtime.surfaceQueue, intervalMs: config.monitoringIntervalMs },
      jira: { store: runtime.store, jobs: runtime.jobs },
      webhooks: { store: runtime.store, jobs: runtime.jobs, pollMs: config.webhookPollMs },
      connectors: runtime.connectorRuns,
    },
    { intervalMs: config.schedulerIntervalMs },
  );
}
