import { isAppError } from '../../../core/errors/app-error.ts';
import { getLookupJob } from '../../../core/zones/zone-lookup.service.ts';
import type { LookupJob } from '../../../core/zones/zone-lookup.types.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import { staticUrl } from '../static-files.ts';
import { notFoundPage } from './error.page.ts';

/**
 * A zone lookup's progress: the page shows the job's counts as the v2 status operation reads them
 * (getLookupJob, the team's jobs only), and zones.js polls the same figures as JSON from
 * `/zones/lookups/<uuid>/status` until the job is done or failed, so the bar moves without a
 * reload. Another team's job, an unknown one, a malformed UUID and one past its 10 days of
 * retention all answer the not-found page (or a 404 for the JSON).
 */

/** The job's figures, as v2's GET /zone/lookup/{uuid}/ answers them. */
export interface LookupProgress {
  uuid: string;
  status: LookupJob['status'];
  total: number;
  succeeded: number;
  failed: number;
}

function progressOf(job: LookupJob): LookupProgress {
  return { uuid: job.uuid, status: job.status, total: job.total, succeeded: job.succeeded, failed: job.failed };
}

/** The job of the path, or undefined for one the team cannot see (6001 and 6002 alike). */
async function jobOf(ctx: ConsoleContext): Promise<LookupJob | undefined> {
  try {
    return await getLookupJob(ctx.deps.store, ctx.signedIn.team, ctx.params['uuid'] ?? '');
  } catch (err) {
    if (isAppError(err) && (err.code === 6001 || err.code === 6002)) return undefined;
    throw err;
  }
}

/** Names looked up so far, as a whole percentage of the names received (100 once done). */
export function percentOf(progress: Pick<LookupProgress, 'status' | 'total' | 'succeeded' | 'failed'>): number {
  if (progress.status === 'done') return 100;
  if (progress.total === 0) return 0;
  return Math.min(100, Math.floor(((progress.succeeded + progress.failed) * 100) / progress.total));
}

/** A lookup's status in words. */
export const lookupStatusWords: Record<LookupJob['status'], string> = {
  queued: 'Queued',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
};

async function lookupPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const job = await jobOf(ctx);
  if (job === undefined) return { status: 404, page: notFoundPage({ signedIn: ctx.signedIn }) };
  const p = progressOf(job);
  const percent = percentOf(p);
  const isFinished = p.status === 'done' || p.status === 'failed';
  const body = html`<p class="hint"><a href="/zones">Zones</a> / Lookup</p>
<h1>Zone lookup</h1>
<section class="panel" aria-labelledby="progress-title" data-lookup-status="${`/zones/lookups/${p.uuid}/status`}">
  <h2 id="progress-title">Progress</h2>
  <dl class="facts">
    <dt>Job</dt><dd class="mono">${p.uuid}</dd>
    <dt>Status</dt><dd><span class="status job-${p.status}" data-field="status">${lookupStatusWords[p.status]}</span></dd>
    <dt>Names received</dt><dd data-field="total">${p.total}</dd>
    <dt>Resolved</dt><dd data-field="succeeded">${p.succeeded}</dd>
    <dt>Failed</dt><dd data-field="failed">${p.failed}</dd>
  </dl>
  <div class="progress-line">
    <progress id="lookup-progress" max="100" value="${percent}" aria-label="Names looked up" data-field="bar">${percent}%</progress>
    <span data-field="percent">${percent}%</span>
  </div>
  <p class="hint" data-field="note" role="status">${
    p.status === 'failed'
      ? 'The lookup failed. Upload the list again to retry.'
      : isFinished
        ? 'The lookup has finished. Resolved names appear as subdomains of their root asset.'
        : html`This page follows the lookup until it is done. Without scripts, <a href="${`/zones/lookups/${p.uuid}`}">reload it</a>.`
  }</p>
  <p class="hint">Failed counts invalid, duplicate and unresolved names, IP addresses and names outside the team's root domain assets.</p>
</section>
<script type="module" src="${staticUrl('zones.js')}"></script>`;
  return { page: page({ title: 'Zone lookup', signedIn: ctx.signedIn, section: 'zones' }, body) };
}

async function statusHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const job = await jobOf(ctx);
  if (job === undefined) return { status: 404, json: { error: 'not found' } };
  const progress = progressOf(job);
  return { json: { ...progress, percent: percentOf(progress) } };
}

/** The lookup's page and the JSON its script polls; readable by every role of the team. */
export const lookupRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/zones/lookups/:uuid', access: 'read', handler: lookupPage },
  { method: 'GET', path: '/zones/lookups/:uuid/status', access: 'read', handler: statusHandler },
];
