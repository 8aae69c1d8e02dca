import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.ts';
import type { OidcClient } from '../core/accounts/sso.types.ts';
import type { VerificationService } from '../core/assets/verification.service.ts';
import type { MarkerCodec } from '../core/shared/marker.ts';
import type { SecretBox } from '../core/shared/secret-box.ts';
import type { LruCache } from '../core/shared/lru-cache.ts';
import type { CorePorts } from '../core/ports.ts';
import type { Store } from '../core/store.ts';
import type { ZoneEngine } from '../core/zones/zone-engine.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { ScanEngine } from '../core/scans/scan-engine.ts';
import type { ScanQueue } from '../core/scans/scan.service.ts';
import type { MonitoringControl } from '../core/surface/monitoring.service.ts';
import type { VulnerabilityLister } from '../core/vulnerabilities/vulnerability-list.service.ts';
import type { WebhookApiDeps } from '../core/webhooks/webhook.service.ts';
import type { ConnectorRunDeps } from '../core/connectors/connector-run.service.ts';

/** Everything the HTTP layer needs, wired once in main.ts (or by the test harness). */
export interface AppDeps {
  config: Config;
  store: Store;
  /** What the areas of the core lend each other; handlers pass it on with the store (`ctx.deps`). */
  ports: CorePorts;
  box: SecretBox;
  markers: MarkerCodec;
  verification: VerificationService;
  vulnerabilities: VulnerabilityLister;
  /** Serialised list pages; keys carry the team's data version, so a write makes old pages unreachable. */
  pageCache: LruCache<Buffer>;
  zoneEngine: ZoneEngine;
  jobs: JobQueue;
  /** Endpoint validation of new scan profiles. */
  scanEngine: Pick<ScanEngine, 'probe'>;
  /** Scans as durable jobs. */
  scanQueue: ScanQueue;
  /** Told when an asset's monitoring is switched on or off (absent: nothing runs). */
  monitoring?: MonitoringControl;
  /** The OpenID client of console single sign-on (engine/sso). */
  oidc: OidcClient;
  /** The webhook pipeline (test and redeliver send now; the guard checks URLs). */
  webhooks: WebhookApiDeps;
  /** Connector runs: requesting one queues its durable job. */
  connectorRuns: Pick<ConnectorRunDeps, 'store' | 'enqueueRun'>;
  /** Logger given to Fastify; defaults to a pino logger at config.logLevel. */
  logger?: FastifyBaseLogger;
}
