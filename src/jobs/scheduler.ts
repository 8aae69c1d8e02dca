import type { ServiceLogger } from '../core/shared/service-logger.ts';
import { pruneReports, recoverScans, type ScanDeps } from '../core/scans/scan.service.ts';
import { fireDueSchedules } from '../core/scans/schedule.service.ts';
import { fireDueSurfaceRuns, type MonitoringDeps } from '../core/surface/monitoring.service.ts';
import { enqueueJiraSyncs } from './jira-sync.job.ts';
import type { JiraRepository } from '../core/integrations/jira.types.ts';
import type { JobQueue } from './job-queue.ts';
import type { WebhookRepositories } from '../core/webhooks/webhook.types.ts';
import { pruneWebhookDeliveries } from '../core/webhooks/webhook-delivery.service.ts';
import { startWebhookPump } from './webhook-delivery.job.ts';
import { fireDueConnectorRuns, type ConnectorRunDeps } from '../core/connectors/connector-run.service.ts';

/** A running scheduler loop. */
export interface Scheduler {
  /** Runs one round now (tests, and the first round at start). */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The scheduler role: every intervalMs it fires due scan schedules (once each, however many
 * schedulers run: see fireDueSchedules), repairs live scans that nothing runs (recoverScans),
 * starts the surface-monitoring runs that are due (fireDueSurfaceRuns, once per due time too),
 * queues the daily connector runs that are due (fireDueConnectorRuns)
 * and, hourly, deletes reports past their lifespan (pruneReports).
 * The first round runs at start, so a fire missed while the service was down runs then.
 */
export function startScheduler(
  deps: ScanDeps & {
    log: ServiceLogger;
    monitoring?: MonitoringDeps;
    /** Jira syncs to enqueue for connected teams whose log moved on (absent: none). */
    jira?: { store: { jira: JiraRepository }; jobs: JobQueue };
    /** Webhooks: the pump enqueues deliveries every pollMs; deliveries older than 30 days are pruned hourly. */
    webhooks?: { store: Pick<WebhookRepositories, 'webhooks'>; jobs: JobQueue; pollMs: number };
    /** Connector runs: the daily runs that are due are queued each round (absent: none). */
    connectors?: Pick<ConnectorRunDeps, 'store' | 'enqueueRun'>;
  },
  options: { intervalMs: number },
): Scheduler {
  let isStopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  let nextPrune = 0;
  const tick = (): Promise<void> => {
    round = round.then(async () => {
      if (isStopped) return;
      try {
        const fired = await fireDueSchedules(deps);
        if (fired.started.length + fired.skipped.length > 0)
          deps.log.info({ started: fired.started.map((s) => s.token), skipped: fired.skipped }, 'scan schedules fired');
        const repaired = await recoverScans(deps);
        if (repaired > 0) deps.log.info({ repaired }, 'live scans without a running job repaired');
        if (deps.monitoring !== undefined) {
          const surface = await fireDueSurfaceRuns(deps.monitoring);
          if (surface.started + surface.recovered > 0) deps.log.info(surface, 'surface-monitoring runs started');
        }
        if (deps.jira !== undefined) await enqueueJiraSyncs(deps.jira);
        if (deps.connectors !== undefined) {
          const queued = await fireDueConnectorRuns(deps.connectors);
          if (queued > 0) deps.log.info({ queued }, 'daily connector runs queued');
        }
        if (Date.now() >= nextPrune) {
          nextPrune = Date.now() + 3600 * 1000;
          const pruned = await pruneReports(deps.store);
          if (deps.webhooks !== undefined) await pruneWebhookDeliveries(deps.webhooks.store);
          if (pruned > 0) deps.log.info({ pruned }, 'reports past their lifespan deleted');
        }
      } catch (err) {
        deps.log.warn({ err }, 'scheduler round failed');
      }
    });
    return round;
  };
  const loop = () => {
    timer = setTimeout(() => {
      void tick().finally(() => {
        if (!isStopped) loop();
      });
    }, options.intervalMs);
  };
  void tick().finally(() => {
    if (!isStopped) loop();
  });
  const webhookPump = deps.webhooks === undefined ? undefined : startWebhookPump(deps.webhooks, deps.log);
  return {
    tick,
    async stop() {
      isStopped = true;
      clearTimeout(timer);
      await webhookPump?.stop();
      await round;
    },
  };
}
