import type { Runtime } from '../runtime.ts';
import type { JobHandler } from './job-queue.ts';

/** Every job kind the worker role runs, wired to the runtime's services. */
export function jobHandlers(_runtime: Runtime): JobHandler[] {
  return [];
}
