import type { Store } from '../core/store.ts';
import type { SecretBox } from '../core/shared/secret-box.ts';
import { createJiraClientFactory } from '../engine/jira/jira-client.ts';
import type { AddressResolver, EgressGuard } from '../engine/net/egress-guard.ts';
import { jiraSyncHandler } from './jira-sync.job.ts';
import type { WebhookSendDeps } from '../core/webhooks/webhook-send.ts';
import { webhookDeliveryHandler } from './webhook-delivery.job.ts';
import type { WebhookDeliveryThread } from './threaded-webhook-delivery.ts';
import type { ScanRunnerDeps } from '../core/scans/scan-runner.service.ts';
import type { SurfaceRunnerDeps } from '../core/surface/surface-runner.service.ts';
import type { NameResolver } from '../core/zones/zone-lookup.types.ts';
import type { JobHandler } from './job-queue.ts';
import { scanHandler } from './scan.job.ts';
import { surfaceRunHandler } from './surface-run.job.ts';
import { zoneLookupHandler } from './zone-lookup.job.ts';
import { importHandler } from './import.job.ts';
import { connectorRunHandler } from './connector-run.job.ts';
import type { ConnectorRunDeps } from '../core/connectors/connector-run.service.ts';

/** What the job kinds run with: the runtime (src/runtime.ts) has all of it. */
export interface WorkerServices {
  config: { scanConcurrency: number; monitoringConcurrency: number };
  store: Store;
  zoneEngine: { resolver: NameResolver };
  scanRunner: ScanRunnerDeps;
  surfaceRunner: SurfaceRunnerDeps;
  /** The Jira sync opens the sealed API token and reaches Jira through the egress guard. */
  box: SecretBox;
  guard: EgressGuard;
  resolver: AddressResolver;
  /** Webhook deliveries: the store, the sealed secrets, the channels through the egress guard. */
  webhooks: WebhookSendDeps;
  /** The thread deliveries run on, when the process has one (config webhookThreads). */
  webhookThread: WebhookDeliveryThread | undefined;
  /** Connector runs: the adapters behind the egress guard and the store. */
  connectorRuns: ConnectorRunDeps;
}

/** Every job kind the worker role runs, wired to the runtime's services. */
export function jobHandlers(services: WorkerServices): JobHandler[] {
  return [
    zoneLookupHandler(services.store, services.zoneEngine.resolver) as JobHandler,
    scanHandler(services.scanRunner, services.config.scanConcurrency) as JobHandler,
    surfaceRunHandler(services.surfaceRunner, services.config.monitoringConcurrency) as JobHandler,
    jiraSyncHandler({
      store: services.store,
      box: services.box,
      client: createJiraClientFactory({ guard: services.guard, resolver: services.resolver }),
    }) as JobHandler,
    webhookDeliveryHandler(services.webhooks, services.webhookThread) as JobHandler,
    importHandler(services.store, services.scanRunner.findings) as JobHandler,
    connectorRunHandler(services.connectorRuns) as JobHandler,
  ];
}
