import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { listReports } from '../../../core/legacy/legacy-reports.service.ts';
import { startScan, stopScan } from '../../../core/scans/scan.service.ts';
import { isLive, type Scan, type ScanProfile } from '../../../core/scans/scan.types.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';
import { staticUrl } from '../static-files.ts';
import { assetPath, problemOf, timeOf } from './assets-shared.page.ts';
import { isNotNotFound, refusalOf, type FormRefusal } from './form-refusal.ts';
import {
  applySchedule,
  dropSchedule,
  scheduleSection,
  scheduleValuesOf,
  type ScheduleProblem,
} from './scans-schedule.page.ts';
import {
  countsText,
  profileOf,
  profilePath,
  reportPath,
  scanDuration,
  scanProgressOf,
  scanStatusBadge,
} from './scans-shared.page.ts';

/**
 * A scan profile's page: what it scans, its latest scan (a running one with a progress bar, a
 * percentage that never goes backwards and the time left, moved by static/scans.js polling
 * status.json without a reload), its warnings, start and stop (the core's startScan and stopScan,
 * as POST and DELETE /rest/v2/scans/<token>/), its schedule, and its history of reports, each
 * linking to the findings it reported.
 */

/** Reports the history shows (newest first). */
const historyLimit = 50;

/** A refusal shown on the page: where (the scan's controls or the schedule form) and the API's words. */
export type PageProblem = ({ where: 'scan' } & FormRefusal) | ({ where: 'schedule' } & ScheduleProblem);

function counters(scan: Scan): Html {
  const items: Array<[string, string, number]> = [
    ['pages_crawled', 'Pages crawled', scan.progress.pagesCrawled],
    ['requests_sent', 'Requests sent', scan.progress.requestsSent],
    ['checks_done', 'Checks done', scan.progress.checksDone],
    ['findings', 'Findings', scan.progress.findings],
  ];
  return html`<dl class="facts counters">${items.map(
    ([key, label, value]) => html`<dt>${label}</dt><dd data-counter="${key}">${value}</dd>`,
  )}</dl>`;
}

function warningList(scan: Scan): Html {
  return html`<div data-scan-warnings-box${scan.warnings.length === 0 ? html` hidden` : ''}>
  <h3>Warnings</h3>
  <ul class="warnings" data-scan-warnings>${scan.warnings.map((w) => html`<li>${w}</li>`)}</ul>
</div>`;
}

/** Start and stop, both rendered for a role that may scan; the script shows the one the scan's state calls for. */
function controls(ctx: ConsoleContext, profile: ScanProfile, scan: Scan | undefined): Html {
  const { member } = ctx.signedIn;
  if (!roleAllows(member.role, 'scan'))
    return html`<p class="hint">Your role (${member.role}) watches scans; an Editor or an Admin starts and stops them.</p>`;
  const live = scan !== undefined && isLive(scan.status);
  return html`<div class="toolbar">
  <form method="post" action="${profilePath(profile.token, '/start')}" data-scan-start${live ? html` hidden` : ''}>${csrfField(ctx.signedIn)}<button type="submit" class="primary">Start a scan</button></form>
  <form method="post" action="${profilePath(profile.token, '/stop')}" data-scan-stop data-confirm="Stop this scan? A stopped scan patches nothing."${live ? '' : html` hidden`}>${csrfField(ctx.signedIn)}<button type="submit" class="danger">Stop the scan</button></form>
</div>`;
}

/** The latest scan with its progress; the script takes over while it is live. */
function scanSection(ctx: ConsoleContext, profile: ScanProfile, scan: Scan | undefined, problem: Html): Html {
  const statusUrl = profilePath(profile.token, '/status.json');
  if (scan === undefined)
    return html`<section class="panel" aria-labelledby="latest" id="scan-live" data-status-url="${statusUrl}" data-live="false">
  <h2 id="latest">Latest scan</h2>
  ${problem}
  <p>This profile was never scanned.</p>
  ${controls(ctx, profile, undefined)}
</section>`;
  const { live, percentage, eta, reportUrl } = scanProgressOf(profile.token, scan, new Date());
  const report =
    reportUrl === null ? '' : html`<p data-scan-report><a href="${reportUrl}">What this scan found</a></p>`;
  return html`<section class="panel" aria-labelledby="latest" id="scan-live" data-status-url="${statusUrl}" data-live="${live ? 'true' : 'false'}">
  <h2 id="latest" data-scan-heading>${live ? 'Running scan' : 'Latest scan'}</h2>
  ${problem}
  <dl class="facts">
    <dt>Status</dt><dd aria-live="polite">${scanStatusBadge(scan.status, true)}</dd>
    <dt>Started by</dt><dd>${scan.trigger === 'schedule' ? 'the schedule' : 'a member or the API'}</dd>
    <dt>Queued</dt><dd>${timeOf(scan.created)}</dd>
    <dt>Started</dt><dd data-scan-started>${scan.started === null ? 'not yet' : timeOf(scan.started)}</dd>
    <dt>Ended</dt><dd data-scan-ended>${scan.ended === null ? 'not yet' : timeOf(scan.ended)}</dd>
    ${scan.error === null ? '' : html`<dt>Error</dt><dd>${scan.error}</dd>`}
  </dl>
  <div class="scan-progress">
    <label for="scan-progress">Progress</label>
    <progress id="scan-progress" max="100" value="${percentage}" aria-describedby="scan-progress-text">${percentage}%</progress>
    <p id="scan-progress-text"><strong data-scan-percentage>${percentage}%</strong> <span data-scan-eta>${eta}</span></p>
  </div>
  ${counters(scan)}
  ${warningList(scan)}
  ${report}
  ${controls(ctx, profile, scan)}
</section>`;
}

function historySection(profile: ScanProfile, reports: Scan[], isTruncated: boolean): Html {
  if (reports.length === 0)
    return html`<section class="panel" aria-labelledby="history"><h2 id="history">History</h2>
  <p>No scan of this profile has ended yet. Each one that ends is kept as a report.</p></section>`;
  const rows = reports.map(
    (r) => html`<tr>
  <td class="nowrap"><a href="${reportPath(profile.token, r.token)}">${timeOf(r.created)}</a></td>
  <td>${scanStatusBadge(r.status)}</td>
  <td>${r.trigger === 'schedule' ? 'schedule' : 'on request'}</td>
  <td class="nowrap">${timeOf(r.started)}</td>
  <td class="nowrap">${timeOf(r.ended)}</td>
  <td class="nowrap">${scanDuration(r)}</td>
  <td>${r.progress.pagesCrawled}</td>
  <td>${countsText(r)}</td>
</tr>`,
  );
  return html`<section aria-labelledby="history">
  <h2 id="history">History</h2>
  <div class="table-wrap"><table aria-label="Reports of ${profile.name}, newest first">
<thead><tr><th scope="col">Report</th><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">Started</th><th scope="col">Ended</th><th scope="col">Took</th><th scope="col">Pages</th><th scope="col">Findings</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>
  ${isTruncated ? html`<p class="hint">The ${historyLimit} latest reports are shown.</p>` : ''}
</section>`;
}

function toolbar(ctx: ConsoleContext, profile: ScanProfile): Html {
  const remove = roleAllows(ctx.signedIn.member.role, 'administer')
    ? html`<form method="post" action="${profilePath(profile.token, '/delete')}" data-confirm="${`Delete the scan profile ${profile.name} and its reports? Its findings stay.`}">${csrfField(ctx.signedIn)}<button type="submit" class="danger">Delete the profile</button></form>`
    : '';
  return html`<div class="toolbar">
  <a class="button" href="${profilePath(profile.token, '/settings')}">Settings</a>
  <a class="button" href="${`/vulnerabilities?scan_profile_token[]=${profile.token}`}">All findings of this profile</a>
  ${remove}
</div>`;
}

/** The profile's page, with a refusal of one of its forms when there is one (and its status). */
export async function profilePage(ctx: ConsoleContext, problem?: PageProblem): Promise<ConsoleAnswer> {
  const profile = await profileOf(ctx);
  const team = ctx.signedIn.team;
  const [latest, history, asset] = await Promise.all([
    ctx.deps.store.scans.latestOf(team.id, [profile.id]),
    listReports(ctx.deps, team, profile.token, {}, historyLimit),
    ctx.deps.store.assets.findById(team.id, profile.assetId),
  ]);
  const scan = latest.get(profile.id);
  const notice = noticeOf(ctx.query);
  const scanProblem = problem?.where === 'scan' ? problemOf(problem, 'scan-problem') : html``;
  const body = html`<p class="hint"><a href="/scans">Scans</a></p>
<h1>${profile.name}</h1>
${toolbar(ctx, profile)}
<section class="panel" aria-labelledby="facts"><h2 id="facts">Profile</h2>
<dl class="facts">
  <dt>Endpoint</dt><dd><code>${profile.endpoint}</code></dd>
  <dt>Scanned over</dt><dd>${profile.scheme.toUpperCase()}, port ${profile.port}</dd>
  <dt>Asset</dt><dd>${asset === undefined ? 'unknown' : html`<a href="${assetPath(asset.token)}">${asset.name}</a>`}</dd>
  <dt>Active</dt><dd>${profile.isActive ? 'yes' : 'no: an operator deactivated it, it cannot be scanned'}</dd>
  <dt>Created</dt><dd>${timeOf(profile.created)}</dd>
</dl></section>
${scanSection(ctx, profile, scan, scanProblem)}
${scheduleSection(ctx, profile, problem?.where === 'schedule' ? problem : undefined)}
${historySection(profile, history.scans, history.isTruncated)}
<script type="module" src="${staticUrl('scans.js')}"></script>`;
  return {
    status: problem?.status ?? 200,
    page: page(
      { title: profile.name, signedIn: ctx.signedIn, section: 'scans', ...(notice === undefined ? {} : { notice }) },
      body,
    ),
  };
}

/** Runs a scan action of the core; a refusal (5009, 2021, 2616, 5004) shows the page with the API's message. */
async function scanAction(ctx: ConsoleContext, act: (profile: ScanProfile) => Promise<string>): Promise<ConsoleAnswer> {
  const profile = await profileOf(ctx);
  try {
    return { redirect: withNotice(profilePath(profile.token), await act(profile)) };
  } catch (err) {
    // 5004 (no live scan to stop) is a 404 the page shows beside its controls.
    const refusal = refusalOf(err, (code) => code === 5004 || isNotNotFound(code));
    return profilePage(ctx, { where: 'scan', ...refusal });
  }
}

/** Starts a scan as POST /rest/v2/scans/<token>/ does. */
function startHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  return scanAction(ctx, async (profile) => {
    await startScan({ store: ctx.deps.store, queue: ctx.deps.scanQueue }, ctx.signedIn.team, profile.token);
    return 'scan-started';
  });
}

/** Stops the live scan as DELETE /rest/v2/scans/<token>/ does. */
function stopHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  return scanAction(ctx, async (profile) => {
    const scan = await stopScan(ctx.deps.store, ctx.signedIn.team, profile.token);
    return scan.status === 'stopped' ? 'scan-stopped' : 'scan-stopping';
  });
}

/** Sets the schedule; a refusal (5066, 1085) shows the page with the API's message and the values as typed. */
async function scheduleHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const profile = await profileOf(ctx);
  const values = scheduleValuesOf(ctx.form);
  try {
    await applySchedule(ctx, profile, values);
  } catch (err) {
    return profilePage(ctx, { where: 'schedule', ...refusalOf(err), values });
  }
  return { redirect: withNotice(profilePath(profile.token), 'schedule-saved') };
}

async function removeScheduleHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const profile = await profileOf(ctx);
  await dropSchedule(ctx, profile);
  return { redirect: withNotice(profilePath(profile.token), 'schedule-removed') };
}

/** A profile's page, start and stop, and its schedule forms. */
export const scanProfileRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/scans/:token', access: 'read', handler: (ctx) => profilePage(ctx) },
  { method: 'POST', path: '/scans/:token/start', access: 'scan', handler: startHandler },
  { method: 'POST', path: '/scans/:token/stop', access: 'scan', handler: stopHandler },
  { method: 'POST', path: '/scans/:token/schedule', access: 'scan', handler: scheduleHandler },
  { method: 'POST', path: '/scans/:token/schedule/remove', access: 'scan', handler: removeScheduleHandler },
];
