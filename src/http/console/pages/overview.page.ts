import { readSurfaceOverview, type SurfaceOverview } from '../../../core/overview/overview.service.ts';
import { listScanProfiles, type ProfileView } from '../../../core/scans/scan-profile.service.ts';
import type { Scan } from '../../../core/scans/scan.types.ts';
import { listSurfaceRuns } from '../../../core/surface/monitoring.service.ts';
import type { SurfaceRunListing } from '../../../core/surface/surface-run.types.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { page } from '../layout.ts';
import { findingsHref, findingSections, cachedFindingOverview, openFindingsHref } from './overview-findings.ts';
import { time } from './findings-view.ts';

/**
 * The overview, the console's first page: the team's open findings by severity and status, new
 * and fixed findings over the last 30 days (a chart, and its numbers as a table), the assets
 * under surface monitoring, the open policy breaches, and the latest scans and monitoring runs.
 * Every number links to the list it counts. It reads the same core services as the lists it
 * links to, for the signed-in member's team only.
 */

/** Rows of the latest scans and runs tables. */
const latestRows = 5;

/** Monitored assets listed by name (a plan's monitoring slots are few; more are counted, not listed). */
const monitoredListed = 50;

function tile(n: number, label: string, href: string): Html {
  return html`<a class="tile" href="${href}"><span class="big">${n.toLocaleString('en')}</span> <span class="what">${label}</span></a>`;
}

function tiles(openFindings: number, surface: SurfaceOverview): Html {
  return html`<section class="tiles" aria-label="Totals">
${tile(openFindings, openFindings === 1 ? 'open finding' : 'open findings', openFindingsHref())}
${tile(surface.monitoredCount, surface.monitoredCount === 1 ? 'asset under monitoring' : 'assets under monitoring', '#monitored')}
${tile(surface.openBreaches, surface.openBreaches === 1 ? 'open policy breach' : 'open policy breaches', '/surface/breaches?status=open')}
</section>`;
}

/**
 * A scan's or a run's status (`unable_to_resolve` reads "unable to resolve"); a scan's badge has
 * the scans pages' colours (`status-scan-…`).
 */
function statusBadge(status: string, kind: 'scan' | 'run'): Html {
  const style = kind === 'scan' ? `status-scan-${status}` : `status-${status}`;
  return html`<span class="status ${style}">${status.replaceAll('_', ' ')}</span>`;
}

/** A UTC time as `YYYY-MM-DD HH:MM`, or a dash. */
function when(date: Date | string | null | undefined): Html | string {
  if (date === null || date === undefined) return '–';
  return time(new Date(date).toISOString());
}

function scanRow(view: ProfileView & { latest: Scan }): Html {
  const { profile, latest } = view;
  const findings = latest.progress.findings;
  return html`<tr>
<td><a href="/scans/${profile.token}">${profile.name}</a><div class="muted">${profile.endpoint}</div></td>
<td>${statusBadge(latest.status, 'scan')}${latest.ended === null ? '' : html`<div class="muted">ended ${when(latest.ended)}</div>`}</td>
<td class="nowrap">${when(latest.started ?? latest.created)}</td>
<td><a href="${findingsHref([['scan_profile_token[]', profile.token]])}">${findings.toLocaleString('en')}<span class="visually-hidden"> findings of ${profile.name}</span></a></td>
</tr>`;
}

function scansSection(profiles: ProfileView[]): Html {
  const latest = profiles
    .filter((p): p is ProfileView & { latest: Scan } => p.latest !== undefined)
    .sort((a, b) => new Date(b.latest.created).getTime() - new Date(a.latest.created).getTime())
    .slice(0, latestRows);
  return html`<section class="panel" aria-labelledby="last-scans">
<h2 id="last-scans">Last scans</h2>
${
  latest.length === 0
    ? html`<p class="muted">No scan yet.</p>`
    : html`<div class="table-wrap"><table>
<caption class="visually-hidden">The latest scan of each profile, newest first</caption>
<thead><tr><th scope="col">Profile</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Findings</th></tr></thead>
<tbody>${latest.map(scanRow)}</tbody>
</table></div>`
}
<p><a href="/scans">All scan profiles (${profiles.length.toLocaleString('en')})</a></p>
</section>`;
}

/** What a finished run found, in a few words. */
function runFound(run: SurfaceRunListing): string {
  const s = run.summary;
  if (s === null) return run.error ?? '';
  const parts = [`${s.names} names (${s.newNames} new)`, `${s.findings.created} new findings`];
  if (s.ports !== null) parts.push(`${s.ports.open} open ports`);
  if (s.breaches !== null && s.breaches.opened > 0) parts.push(`${s.breaches.opened} new breaches`);
  return parts.join(', ');
}

function runsSection(runs: SurfaceRunListing[]): Html {
  return html`<section class="panel" aria-labelledby="last-runs">
<h2 id="last-runs">Last monitoring runs</h2>
${
  runs.length === 0
    ? html`<p class="muted">No monitoring run yet.</p>`
    : html`<div class="table-wrap"><table>
<caption class="visually-hidden">The latest surface-monitoring runs, newest first</caption>
<thead><tr><th scope="col">Asset, and what the run found</th><th scope="col">Status</th><th scope="col">Started</th></tr></thead>
<tbody>${runs.map(
        (r) => html`<tr>
<td><a href="/surface/runs/${r.id}">${r.assetName}</a><div class="muted">${runFound(r)}</div></td>
<td>${statusBadge(r.status, 'run')}</td>
<td class="nowrap">${when(r.started ?? r.created)}</td>
</tr>`,
      )}</tbody>
</table></div>`
}
<p><a href="/surface/runs">All monitoring runs</a></p>
</section>`;
}

function monitoredSection(surface: SurfaceOverview): Html {
  const more = surface.monitoredCount - surface.monitored.length;
  return html`<section class="panel" id="monitored" aria-labelledby="monitored-title" tabindex="-1">
<h2 id="monitored-title">Assets under monitoring</h2>
${
  surface.monitored.length === 0
    ? html`<p class="muted">No asset is monitored. Turn surface monitoring on in a verified root domain's settings.</p>`
    : html`<ul class="asset-list">${surface.monitored.map((a) => html`<li><a href="/assets/${a.token}">${a.name}</a></li>`)}</ul>`
}
${more > 0 ? html`<p class="muted">And ${more.toLocaleString('en')} more.</p>` : ''}
</section>`;
}

async function overviewPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const team = ctx.signedIn.team;
  const { store, ports } = ctx.deps;
  const [findings, surface, profiles, runs] = await Promise.all([
    cachedFindingOverview(ctx, team, new Date()),
    readSurfaceOverview(store, team, monitoredListed),
    listScanProfiles({ store, ports }, team),
    listSurfaceRuns(store, { teamId: team.id, limit: latestRows }),
  ]);
  const body = html`<h1>Overview</h1>
${tiles(findings.openTotal, surface)}
${findingSections(findings)}
<div class="grid2">
${scansSection(profiles)}
${runsSection(runs)}
</div>
${monitoredSection(surface)}`;
  return {
    page: page(
      {
        title: 'Overview',
        signedIn: ctx.signedIn,
        section: 'overview',
        assets: ['uplot.css', 'uplot.iife.js', 'overview.js'],
      },
      body,
    ),
  };
}

/** The overview page. */
export const overviewRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/overview', access: 'read', handler: overviewPage },
];
