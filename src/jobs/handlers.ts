import type { Runtime } from '../runtime.ts';
import type { JobHandler } from './job-queue.ts';
import { scanHandler } from './scan.job.ts';
import { surfaceRunHandler } from './surface-run.job.ts';
import { zoneLookupHandler } from './zone-lookup.job.ts';

/** Every job kind the worker role runs, wired to the runtime's services. */
export function jobHandlers(runtime: Runtime): JobHandler[] {
  return [
    zoneLookupHandler(runtime.store, runtime.zoneEngine.resolver) as JobHandler,
    scanHandler(runtime.scanRunner, runtime.config.scanConcurrency) as JobHandler,
    surfaceRunHandler(runtime.surfaceRunner, runtime.config.monitoringConcurrency) as JobHandler,
  ];
}
