import type { Config } from './config/config.ts';
import { openCoreRuntime, type CoreRuntime, type CoreRuntimeOptions } from './core-runtime.ts';
import { LruCache } from './core/shared/lru-cache.ts';
import { MarkerCodec } from './core/shared/marker.ts';
import { matchGroupsForVulnerabilities } from './core/vulnerabilities/group-filter.ts';
import { VulnerabilityLister } from './core/vulnerabilities/vulnerability-list.service.ts';
import { IpInventoryService } from './core/surface/ip-inventory.service.ts';
import { PortInventoryService } from './core/surface/port-inventory.service.ts';
import { TechnologyInventoryService } from './core/surface/technology-inventory.service.ts';
import { createExposureEngines } from './engine/exposure.ts';
import { OfflineIpEnricher } from './engine/ip-data/ip-enricher.ts';
import { createBulkResolver } from './engine/dns/bulk-resolver.ts';
import { udpBatch } from './engine/dns/udp-batch.ts';
import { createNameResolver } from './engine/name-resolver.ts';
import { createZoneEngine } from './engine/zone-engine.ts';
import type { ZoneEngine } from './core/zones/zone-engine.ts';
import { createJobQueue } from './jobs/create-queue.ts';
import type { JobQueue, QueueOptions } from './jobs/job-queue.ts';
import type { ScanEngine } from './core/scans/scan-engine.ts';
import type { ScanRunnerDeps } from './core/scans/scan-runner.service.ts';
import type { ScanQueue } from './core/scans/scan.service.ts';
import { createHttpScanEngine } from './engine/http-scan/http-scan-engine.ts';
import { createThreadedScanEngine } from './engine/http-scan/threaded-scan-engine.ts';
import { scanQueueOf } from './jobs/scan.job.ts';
import { surfaceQueueOf } from './jobs/surface-run.job.ts';
import { monitoringControl, type MonitoringControl, type SurfaceQueue } from './core/surface/monitoring.service.ts';
import type { SurfaceRunnerDeps } from './core/surface/surface-runner.service.ts';
import { createSurfaceEngine } from './engine/discovery/surface-engine.ts';

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
}

/** Opens the store (migrating it) and wires the services; `jobs` tunes the queue (tests shorten the lease). */
export async function openRuntime(config: Config, options: CoreRuntimeOptions & { jobs?: Omit<QueueOptions, 'log'> } = {}): Promise<Runtime> {
  const core = await openCoreRuntime(config, options);
  const { log, database, store, box, guard, resolver } = core;
  const markers = new MarkerCodec(box);
  // Zone lookup jobs and discovery resolve in bulk over their own UDP sockets (opened on first use).
  const bulk = createBulkResolver({ servers: config.dnsResolvers, udpSockets: config.dnsUdpSockets });
  const sockets = udpBatch();
  if (config.dnsUdpSockets === 'batch' && sockets.binding === undefined) log.warn({ reason: sockets.reason }, 'dns: batch UDP sockets unavailable, bulk lookups use dgram sockets');
  const jobs = await createJobQueue(database, { ...options.jobs, log: log.child({ component: 'jobs' }) });
  const canary = { listen: config.scanCanaryListen, url: config.scanCanaryUrl };
  const inProcessScans = createHttpScanEngine({ guard, resolver, canary });
  // Scans run on threads of their own (crawling and page work off the event loop) unless scanThreads is 0.
  const threaded = config.scanThreads === 0 ? undefined : createThreadedScanEngine(inProcessScans, { threads: config.scanThreads, config: { egressAllow: config.egressAllow, dnsResolvers: config.dnsResolvers, canary } });
  const scanEngine: ScanEngine = threaded ?? inProcessScans;
  const ipInventory = new IpInventoryService(store, new OfflineIpEnricher());
  const surfaceQueue = surfaceQueueOf(jobs);
  return {
    ...core,
    markers,
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
    ipInventory,
    surfaceQueue,
    monitoring: monitoringControl({ store, queue: surfaceQueue }),
    surfaceRunner: {
      store,
      engine: createSurfaceEngine({ guard, resolver, bulk }, scanEngine),
      ipInventory,
      exposure: { engines: createExposureEngines({ guard, resolver }) },
      portInventory: new PortInventoryService(store),
      technologyInventory: new TechnologyInventoryService(store),
      ingestion: { detailsPageBase: config.publicUrl ?? `http://localhost:${config.port}` },
      log: log.child({ component: 'monitoring' }),
      requestTimeoutMs: config.scanRequestTimeoutMs,
    },
    close: async () => {
      // Running jobs go back to the queue before the store closes under them.
      await jobs.stop();
      await threaded?.close();
      bulk.close();
      await core.close();
    },
  };
}
