import { openStatuses, readFindingOverview, type FindingOverview } from '../../../core/overview/overview.service.ts';
import type { Team } from '../../../core/teams/team.types.ts';
import { cachedPage } from '../../cached-page.ts';
import type { ConsoleContext } from '../console-route.ts';
import { html, trusted, type Html } from '../html.ts';
import { severityBadge, statusBadge } from './findings-view.ts';

/**
 * The findings part of the overview: open findings by severity, findings by status, and new and
 * fixed findings per day (a chart drawn by static/overview.js with uPlot, and the same numbers as
 * a table). Every number links to the findings list filtered to exactly the findings it counts,
 * with the v2 list's query parameters, so the list's total is the number clicked.
 */

/** A link to the findings list with these v2 filters (`name[]` parameters repeat). */
export function findingsHref(filters: Array<[string, string]>): string {
  return `/vulnerabilities?${new URLSearchParams(filters).toString()}`;
}

const openFilters = (): Array<[string, string]> => openStatuses.map((s) => ['status[]', s]);

/** The list of the findings first recorded on a day (the findings page reads a bare day as the whole day, UTC). */
export function createdOnHref(date: string): string {
  return findingsHref([
    ['created_after', date],
    ['created_before', date],
  ]);
}

/**
 * The list of the findings fixed on a day: patched, last changed that day. modified_after is
 * exclusive at the second, so the bounds are the last second of the day before and the first
 * second of the day after.
 */
export function fixedOnHref(date: string): string {
  const day = Date.parse(`${date}T00:00:00Z`);
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  return findingsHref([
    ['status[]', 'patched'],
    ['modified_after', iso(day - 1000)],
    ['modified_before', iso(day + 86_400_000)],
  ]);
}

/** A count that links to the list behind it, with words a screen reader reads after the number. */
function countLink(n: number, href: string, said: string): Html {
  return html`<a class="count-link" href="${href}">${n.toLocaleString('en')}<span class="visually-hidden"> ${said}</span></a>`;
}

function severityTable(overview: FindingOverview): Html {
  return html`<section class="panel" aria-labelledby="by-severity">
<h2 id="by-severity">Open findings by severity</h2>
<table class="tally">
<caption class="visually-hidden">Open findings (new, active or regression) by severity</caption>
<tbody>${overview.openBySeverity.map(
    (s) =>
      html`<tr><th scope="row">${severityBadge(s.severity)}</th><td>${countLink(
        s.n,
        findingsHref([['severity[]', s.severity], ...openFilters()]),
        `open ${s.severity} findings`,
      )}</td></tr>`,
  )}</tbody>
</table>
<p class="hint">Open: new, active or regression (not marked, not patched).</p>
</section>`;
}

function statusTable(overview: FindingOverview): Html {
  return html`<section class="panel" aria-labelledby="by-status">
<h2 id="by-status">Findings by status</h2>
<table class="tally">
<caption class="visually-hidden">Findings by status, open statuses first</caption>
<tbody>${overview.byStatus.map(
    (s) =>
      html`<tr${s.status === 'patched' ? html` class="closed-first"` : ''}><th scope="row">${statusBadge(s.status)}${s.isOpen ? '' : html` <span class="muted">closed</span>`}</th><td>${countLink(
        s.n,
        findingsHref([['status[]', s.status]]),
        `findings ${s.status.replace('_', ' ')}`,
      )}</td></tr>`,
  )}</tbody>
</table>
<p class="hint">${html`${countLink(overview.total, '/vulnerabilities', 'findings in all')} findings in all.`}</p>
</section>`;
}

/**
 * The chart's data for overview.js, as JSON in a data block (`<script type="application/json">`
 * is never run, so the CSP allows it); `<` is escaped so the text cannot close the element.
 */
function chartData(overview: FindingOverview): Html {
  const json = JSON.stringify({
    days: overview.days.map((d) => d.date),
    created: overview.days.map((d) => d.created),
    fixed: overview.days.map((d) => d.fixed),
  }).replace(/</g, '\\u003c');
  return trusted(`<script type="application/json" id="activity-data">${json}</script>`);
}

function activitySection(overview: FindingOverview): Html {
  const days = overview.days;
  const created = days.reduce((sum, d) => sum + d.created, 0);
  const fixed = days.reduce((sum, d) => sum + d.fixed, 0);
  const first = days[0]!.date;
  const last = days[days.length - 1]!.date;
  return html`<section class="panel" aria-labelledby="activity">
<h2 id="activity">New and fixed findings, last ${days.length} days</h2>
<p class="chart-legend"><span class="swatch swatch-new"></span> New: ${created.toLocaleString('en')}
<span class="swatch swatch-fixed"></span> Fixed: ${fixed.toLocaleString('en')}
<span class="muted">(${first} to ${last}, UTC)</span></p>
<div class="chart" data-chart="activity" role="img" aria-label="Chart of new and fixed findings per day from ${first} to ${last}; the table below holds the same numbers."></div>
${chartData(overview)}
<details class="chart-table">
<summary>The chart's numbers as a table</summary>
<div class="table-wrap"><table id="activity-table">
<caption class="visually-hidden">New and fixed findings per day (UTC)</caption>
<thead><tr><th scope="col">Day</th><th scope="col">New</th><th scope="col">Fixed</th></tr></thead>
<tbody>${[...days]
    .reverse()
    .map(
      (d) =>
        html`<tr><th scope="row"><time datetime="${d.date}">${d.date}</time></th><td>${countLink(
          d.created,
          createdOnHref(d.date),
          `new findings on ${d.date}`,
        )}</td><td>${countLink(d.fixed, fixedOnHref(d.date), `findings fixed on ${d.date}`)}</td></tr>`,
    )}</tbody>
</table></div>
<p class="hint">New: first recorded that day. Fixed: patched (by a scan that no longer found it, or marked fixed), counted on the day of its last change.</p>
</details>
</section>`;
}

/**
 * The team's finding overview, kept in the page cache (as JSON) under the team's vulnerability
 * version and the UTC day (the window moves at midnight): a reload before anything changed
 * reads nothing from the store.
 */
export async function cachedFindingOverview(ctx: ConsoleContext, team: Team, now: Date): Promise<FindingOverview> {
  const version = await ctx.deps.vulnerabilities.version(team);
  const key = `console:overview:${team.id}:${version}:${Math.floor(now.getTime() / 86_400_000)}`;
  const body = await cachedPage(ctx.deps.pageCache, key, async () =>
    Buffer.from(JSON.stringify(await readFindingOverview(ctx.deps.store, team, now))),
  );
  return JSON.parse(body.toString('utf8')) as FindingOverview;
}

/** The findings sections: by severity and by status side by side, then the days. */
export function findingSections(overview: FindingOverview): Html {
  return html`<div class="grid2">
${severityTable(overview)}
${statusTable(overview)}
</div>
${activitySection(overview)}`;
}

/** The findings list of the open findings (the first tile's link). */
export function openFindingsHref(): string {
  return findingsHref(openFilters());
}
