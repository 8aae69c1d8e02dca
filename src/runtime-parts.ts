/**
 * The modules of the full runtime beyond the core one (runtime.ts's openRuntime), loaded together
 * and only when the full runtime is built: the admin CLI and migrations never load them.
 */

/** The modules loadRuntimeParts() brings. */
export type RuntimeParts = Awaited<ReturnType<typeof loadRuntimeParts>>;

/** The modules of the full runtime beyond the core one, loaded together when it is built. */
export async function loadRuntimeParts() {
  const [services, engines] = await Promise.all([loadServiceParts(), loadEngineParts()]);
  return { ...services, ...engines };
}

/** The core services and job kinds of the full runtime. */
async function loadServiceParts() {
  const [
    { LruCache },
    { MarkerCodec },
    { matchGroupsForVulnerabilities },
    { VulnerabilityLister },
    { ScanIngestion },
    { evaluateBreaches },
    { indexRecords },
    { IpInventoryService },
    { PortInventoryService },
    { TechnologyInventoryService },
    { monitoringControl },
    { createJobQueue },
    { scanQueueOf },
    { surfaceQueueOf },
    { enqueueConnectorRun },
  ] = await Promise.all([
    import('./core/shared/lru-cache.ts'),
    import('./core/shared/marker.ts'),
    import('./core/vulnerabilities/group-filter.ts'),
    import('./core/vulnerabilities/vulnerability-list.service.ts'),
    import('./core/vulnerabilities/ingestion.service.ts'),
    import('./core/policies/breach.service.ts'),
    import('./core/zones/zone-index.service.ts'),
    import('./core/surface/ip-inventory.service.ts'),
    import('./core/surface/port-inventory.service.ts'),
    import('./core/surface/technology-inventory.service.ts'),
    import('./core/surface/monitoring.service.ts'),
    import('./jobs/create-queue.ts'),
    import('./jobs/scan.job.ts'),
    import('./jobs/surface-run.job.ts'),
    import('./jobs/connector-run.job.ts'),
  ]);
  return {
    LruCache,
    MarkerCodec,
    matchGroupsForVulnerabilities,
    VulnerabilityLister,
    ScanIngestion,
    evaluateBreaches,
    indexRecords,
    IpInventoryService,
    PortInventoryService,
    TechnologyInventoryService,
    monitoringControl,
    createJobQueue,
    scanQueueOf,
    surfaceQueueOf,
    enqueueConnectorRun,
  };
}

/** The engines of the full runtime. */
async function loadEngineParts() {
  const [
    { createExposureEngines },
    { OfflineIpEnricher },
    { createBulkResolver },
    { udpBatch },
    { createNameResolver },
    { createZoneEngine },
    { createHttpScanEngine },
    { createThreadedScanEngine },
    { createSurfaceEngine },
    { createConnectorCollector },
  ] = await Promise.all([
    import('./engine/exposure.ts'),
    import('./engine/ip-data/ip-enricher.ts'),
    import('./engine/dns/bulk-resolver.ts'),
    import('./engine/dns/udp-batch.ts'),
    import('./engine/name-resolver.ts'),
    import('./engine/zone-engine.ts'),
    import('./engine/http-scan/http-scan-engine.ts'),
    import('./engine/http-scan/threaded-scan-engine.ts'),
    import('./engine/discovery/surface-engine.ts'),
    import('./engine/connectors/connector-engine.ts'),
  ]);
  return {
    createExposureEngines,
    OfflineIpEnricher,
    createBulkResolver,
    udpBatch,
    createNameResolver,
    createZoneEngine,
    createHttpScanEngine,
    createThreadedScanEngine,
    createSurfaceEngine,
    createConnectorCollector,
  };
}
