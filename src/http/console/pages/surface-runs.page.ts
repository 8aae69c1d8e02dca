import { listAssets, requireTokenTarget } from '../../../core/assets/asset.service.ts';
import { appError, isAppError } from '../../../core/errors/app-error.ts';
import { toWireTime } from '../../../core/shared/time.ts';
import { findRun, listRuns } from '../../../core/surface/surface-record.service.ts';
import type { RunRecord } from '../../../core/surface/surface-record.types.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { page } from '../layout.ts';
import { notFoundPage } from './error.page.ts';
import { parseDocuments } from './findings.page.ts';
import { crumb, filterBox, pager, recordId, table, when } from './surface-view.ts';

/**
 * Monitoring runs: the team's runs newest first (filtered by root asset with `asset_token`, the
 * v2 token), and one run with what it found: its summary as v2's monitoring status tells it, and
 * links to the inventory records first seen or gone while it ran.
 */

const runsPerPage = 50;
const cursorScope = 'console:surface-runs';

const statusClass: Record<string, string> = {
  completed: 'status-fixed',
  failed: 'status-regression',
  running: 'status-unverified',
  queued: 'status-unverified',
  stopping: 'status-unverified',
};

function runBadge(status: string): Html {
  return html`<span class="status ${statusClass[status] ?? ''}">${status}</span>`;
}

/** What a run found, in a line: its summary's counts, or why it has none. */
function foundLine(run: RunRecord): string {
  const s = run.summary;
  if (s === null) return run.error ?? (run.status === 'completed' ? 'Nothing recorded' : 'Not finished');
  const parts = [`${s.names} names`, `${s.addresses} addresses`];
  if (s.ports !== null) parts.push(`${s.ports.open} open ports (${s.ports.opened} new)`);
  if (s.technologies !== null) parts.push(`${s.technologies.seen} technologies (${s.technologies.added} new)`);
  parts.push(`${s.findings.created} new findings`);
  if (s.breaches !== null) parts.push(`${s.breaches.breached} breaches (${s.breaches.opened} new)`);
  return parts.join(' · ');
}

/** The asset filter's root asset: the v2 token, checked as v2 checks it (2014 "Asset does not exist"). */
async function assetFilter(ctx: ConsoleContext): Promise<number | undefined> {
  const token = ctx.query.get('asset_token') ?? '';
  if (token === '') return undefined;
  const target = await requireTokenTarget(ctx.deps.store, ctx.signedIn.team, token);
  // A discovered name is not monitored on its own: its root's runs are the ones that saw it.
  if (target.asset === undefined) throw appError(2014, 'Asset does not exist', ['asset_token']);
  return target.asset.id;
}

function beforeIdOf(ctx: ConsoleContext): number | undefined {
  const cursor = ctx.query.get('cursor') ?? '';
  const position = ctx.deps.markers.decode(ctx.signedIn.team.id, cursorScope, cursor, 'cursor');
  if (position === undefined) return undefined;
  if (typeof position !== 'number' || !Number.isSafeInteger(position))
    throw appError(4150, 'cursor is malformed: pass the cursor of a `next` URL unchanged, or none for the first page', [
      'cursor',
    ]);
  return position;
}

async function runList(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const team = ctx.signedIn.team;
  const assets = await listAssets(ctx.deps.store, ctx.deps.markers, team, {
    scope: 'roots',
    marker: undefined,
    pageSize: 100,
  });
  const choices = parseDocuments<{ name: string; token: string }>(assets.items);
  const chosen = ctx.query.get('asset_token') ?? '';
  const fields = html`<div class="field"><label for="f-asset">Asset</label>
<select id="f-asset" name="asset_token"><option value="">Any</option>${choices.map(
    (a) => html`<option value="${a.token}"${a.token === chosen ? html` selected` : ''}>${a.name}</option>`,
  )}</select></div>`;
  let problem: string | undefined;
  let section: Html = html``;
  try {
    const assetId = await assetFilter(ctx);
    const beforeId = beforeIdOf(ctx);
    const { runs, hasMore } = await listRuns(ctx.deps.store, team.id, {
      ...(assetId === undefined ? {} : { assetId }),
      ...(beforeId === undefined ? {} : { beforeId }),
      limit: runsPerPage,
    });
    const last = runs[runs.length - 1];
    const next = hasMore && last !== undefined ? ctx.deps.markers.encode(team.id, cursorScope, last.id) : undefined;
    section = html`${table(
      'runs',
      'Monitoring runs',
      ['Run', 'Asset', 'Status', 'Trigger', 'Started', 'Ended', 'Found'],
      runs.map(
        (r) => html`<tr>
<td class="nowrap"><a href="/surface/runs/${r.id}">Run ${r.id}</a></td>
<td>${r.assetName}</td>
<td>${runBadge(r.status)}</td>
<td>${r.trigger}</td>
<td class="nowrap">${when(r.started ?? r.created)}</td>
<td class="nowrap">${when(r.ended)}</td>
<td class="prose">${foundLine(r)}</td>
</tr>`,
      ),
      'No monitoring run yet. Runs start when monitoring is turned on in an asset’s settings.',
    )}
${pager('/surface/runs', ctx.query, next)}`;
  } catch (err) {
    if (!isAppError(err)) throw err;
    problem = err.message;
  }
  const body = html`${crumb('/surface', 'Surface')}
<h1>Monitoring runs</h1>
<p class="muted">Each surface-monitoring run of a root asset, newest first, with what it found.</p>
${filterBox('/surface/runs', ctx.query, fields)}
${problem === undefined ? '' : html`<p class="problem" role="alert">${problem}</p>`}
${section}`;
  return {
    ...(problem === undefined ? {} : { status: 400 }),
    page: page({ title: 'Monitoring runs', signedIn: ctx.signedIn, section: 'surface' }, body),
  };
}

/** The list filters that bound a time to a run's span (exclusive bounds, whole seconds): from start to end, both in. */
function spanQuery(run: RunRecord, kind: 'first_seen' | 'disappeared'): string {
  const start = (run.started ?? run.created).getTime();
  const end = (run.ended ?? new Date()).getTime();
  const q = new URLSearchParams({
    [`${kind}_after`]: toWireTime(Math.floor(start / 1000) * 1000 - 1000),
    [`${kind}_before`]: toWireTime(Math.floor(end / 1000) * 1000 + 1000),
  });
  return q.toString();
}

function summaryFacts(run: RunRecord): Html {
  const s = run.summary;
  if (s === null) return html`<p class="muted">${run.error ?? 'The run has not finished: it has no summary yet.'}</p>`;
  const na = html`<span class="muted">not scanned</span>`;
  return html`<dl class="facts">
<dt>Names</dt><dd>${s.names} live (${s.newNames} new, ${s.goneNames} gone)${s.isWildcard ? ' · wildcard DNS' : ''}</dd>
<dt>Addresses</dt><dd>${s.addresses}</dd>
<dt>Ports</dt><dd>${s.ports === null ? na : `${s.ports.open} open: ${s.ports.opened} newly open, ${s.ports.reopened} open again, ${s.ports.closed} closed`}</dd>
<dt>TLS endpoints</dt><dd>${s.tlsEndpoints === null ? na : s.tlsEndpoints}</dd>
<dt>Technologies</dt><dd>${s.technologies === null ? na : `${s.technologies.seen} seen: ${s.technologies.added} new, ${s.technologies.returned} back, ${s.technologies.disappeared} gone`}</dd>
<dt>Takeover candidates</dt><dd>${s.takeovers}</dd>
<dt>Findings</dt><dd>${s.findings.created} new, ${s.findings.updated} updated, ${s.findings.regressions} regressions, ${s.findings.patched} patched</dd>
<dt>Policy breaches</dt><dd>${s.breaches === null ? html`<span class="muted">not evaluated</span>` : `${s.breaches.breached} in force: ${s.breaches.opened} new, ${s.breaches.reopened} back, ${s.breaches.resolved} resolved`}</dd>
</dl>`;
}

async function runPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const id = recordId(ctx.params['id']);
  const run = id === undefined ? undefined : await findRun(ctx.deps.store, ctx.signedIn.team.id, id);
  if (run === undefined) return { status: 404, page: notFoundPage({ signedIn: ctx.signedIn }) };
  const p = run.progress;
  const first = spanQuery(run, 'first_seen');
  const gone = spanQuery(run, 'disappeared');
  const title = `Run ${run.id} of ${run.assetName}`;
  const body = html`${crumb(`/surface/runs?asset_token=${run.assetToken}`, `Runs of ${run.assetName}`)}
<h1>${title}</h1>
<div class="grid2">
<section class="panel" aria-labelledby="about"><h2 id="about">Run</h2>
<dl class="facts">
<dt>Status</dt><dd>${runBadge(run.status)}${run.status === 'running' ? ` (${p.phase})` : ''}</dd>
<dt>Asset</dt><dd><a href="/assets/${run.assetToken}">${run.assetName}</a></dd>
<dt>Trigger</dt><dd>${run.trigger === 'enable' ? 'monitoring turned on' : 'the interval came round'}</dd>
<dt>Queued</dt><dd>${when(run.created)}</dd>
<dt>Started</dt><dd>${when(run.started)}</dd>
<dt>Ended</dt><dd>${when(run.ended)}</dd>
${run.error === null ? '' : html`<dt>Error</dt><dd>${run.error}</dd>`}
</dl></section>
<section class="panel" aria-labelledby="found"><h2 id="found">What it found</h2>${summaryFacts(run)}</section>
</div>
<section class="panel" aria-labelledby="records"><h2 id="records">Records of the team’s inventory while it ran</h2>
<ul>
<li>First seen: <a href="/surface/ips?${first}">IP addresses</a>, <a href="/surface/ports?${first}">ports</a>, <a href="/surface/technologies?${first}">technologies</a>, <a href="/surface/breaches?${first}">policy breaches</a></li>
<li>Gone: <a href="/surface/ips?${gone}">IP addresses</a>, <a href="/surface/ports?${gone}">ports</a>, <a href="/surface/technologies?${gone}">technologies</a>, <a href="/surface/breaches?${gone}">policy breaches</a></li>
</ul>
<p class="muted">Runs of other assets that ran at the same time may have recorded some of them.</p>
</section>
${
  run.warnings.length === 0
    ? ''
    : html`<section class="panel" aria-labelledby="warn"><h2 id="warn">Warnings (${run.warnings.length})</h2><ul>${run.warnings.map((w) => html`<li>${w}</li>`)}</ul></section>`
}`;
  return { page: page({ title, signedIn: ctx.signedIn, section: 'surface' }, body) };
}

/** The monitoring runs and one run. */
export const surfaceRunRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/surface/runs', access: 'read', handler: runList },
  { method: 'GET', path: '/surface/runs/:id', access: 'read', handler: runPage },
];
