import { appError } from '../../../core/errors/app-error.ts';
import { collectFindings } from '../../../core/legacy/legacy-findings.service.ts';
import { requireReport } from '../../../core/legacy/legacy-reports.service.ts';
import type { Scan } from '../../../core/scans/scan.types.ts';
import { isToken } from '../../../core/shared/ids.ts';
import { presentVulnerability } from '../../v2/vulnerability.presenter.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { page } from '../layout.ts';
import { timeOf } from './assets-shared.page.ts';
import { severityBadge, statusBadge, type WireFinding } from './findings-view.ts';
import {
  countsText,
  profileOf,
  profilePath,
  scanDuration,
  scanProgressOf,
  scanStatusBadge,
  scanStatusLabel,
} from './scans-shared.page.ts';

/**
 * A report (one finished scan of a profile: the core's requireReport, as the v2 report reads
 * use) with the findings it reported, each linking to its page; and status.json, the small
 * document static/scans.js polls to move a running scan's progress without a reload.
 */

/** Most findings a report page lists (the v2 full report's cap). */
const reportFindingCap = 1000;

/** The report the path names, of the profile the path names; a malformed token answers not-found too. */
async function reportOf(ctx: ConsoleContext): Promise<Scan> {
  const profile = await profileOf(ctx);
  const reportToken = ctx.params['report'] ?? '';
  if (!isToken(reportToken)) throw appError(2604, 'Report does not exist for this scan profile', ['reportToken']);
  const { scan } = await requireReport(ctx.deps, ctx.signedIn.team, profile.token, () => reportToken);
  return scan;
}

function findingRows(findings: WireFinding[]): Html {
  return html`${findings.map(
    (f) => html`<tr>
  <td>${severityBadge(f.severity)}</td>
  <td><a href="${`/vulnerabilities/${f.uuid}`}">${f.title}</a></td>
  <td>${f.host}</td>
  <td>${statusBadge(f.status)}</td>
</tr>`,
  )}`;
}

async function reportPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const profile = await profileOf(ctx);
  const scan = await reportOf(ctx);
  const found = await collectFindings(ctx.deps.store, ctx.signedIn.team, { scanId: scan.id }, {}, reportFindingCap);
  const findings = found.records.map(
    (r) => (JSON.parse(presentVulnerability(r)) as { vulnerability: WireFinding }).vulnerability,
  );
  const title = `Scan of ${profile.name}`;
  const list =
    findings.length === 0
      ? html`<p>This scan reported no findings.</p>`
      : html`<div class="table-wrap"><table aria-label="Findings this scan reported">
<thead><tr><th scope="col">Severity</th><th scope="col">Title</th><th scope="col">Host</th><th scope="col">Status now</th></tr></thead>
<tbody>${findingRows(findings)}</tbody>
</table></div>
${found.isTruncated ? html`<p class="hint">The first ${reportFindingCap} findings are listed.</p>` : ''}`;
  const body = html`<p class="hint"><a href="/scans">Scans</a> / <a href="${profilePath(profile.token)}">${profile.name}</a></p>
<h1>${title}</h1>
<section class="panel" aria-labelledby="facts"><h2 id="facts">The scan</h2>
<dl class="facts">
  <dt>Status</dt><dd>${scanStatusBadge(scan.status)}</dd>
  ${scan.error === null ? '' : html`<dt>Error</dt><dd>${scan.error}</dd>`}
  <dt>Endpoint</dt><dd><code>${scan.endpoint}</code></dd>
  <dt>Trigger</dt><dd>${scan.trigger === 'schedule' ? 'the schedule' : 'on request'}</dd>
  <dt>Queued</dt><dd>${timeOf(scan.created)}</dd>
  <dt>Started</dt><dd>${timeOf(scan.started)}</dd>
  <dt>Ended</dt><dd>${timeOf(scan.ended)}</dd>
  <dt>Took</dt><dd>${scanDuration(scan)}</dd>
  <dt>Pages crawled</dt><dd>${scan.progress.pagesCrawled}</dd>
  <dt>Requests sent</dt><dd>${scan.progress.requestsSent}</dd>
  <dt>Checks done</dt><dd>${scan.progress.checksDone}</dd>
  <dt>Findings</dt><dd>${countsText(scan)}</dd>
  <dt>Highest CVSS</dt><dd>${scan.highestCvss === 0 ? 'none' : scan.highestCvss.toFixed(1)}</dd>
</dl>
${scan.warnings.length === 0 ? '' : html`<h3>Warnings</h3><ul class="warnings">${scan.warnings.map((w) => html`<li>${w}</li>`)}</ul>`}
</section>
<section aria-labelledby="found">
  <h2 id="found">Findings it reported</h2>
  ${list}
</section>`;
  return { page: page({ title, signedIn: ctx.signedIn, section: 'scans' }, body) };
}

/**
 * The latest scan of the profile as the page's script reads it: status, where it stands
 * (scanProgressOf: a percentage that never goes down, the seconds left, the report once it
 * ended), the counters and the warnings; `status: "none"` for a profile never scanned.
 */
async function statusDocument(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const profile = await profileOf(ctx);
  const scan = (await ctx.deps.store.scans.latestOf(ctx.signedIn.team.id, [profile.id])).get(profile.id);
  if (scan === undefined) return { json: { status: 'none', live: false } };
  const { live, percentage, secondsLeft, eta, reportUrl } = scanProgressOf(profile.token, scan, new Date());
  return {
    json: {
      status: scan.status,
      status_label: scanStatusLabel(scan.status),
      live,
      percentage,
      seconds_left: secondsLeft,
      eta,
      progress: {
        pages_crawled: scan.progress.pagesCrawled,
        requests_sent: scan.progress.requestsSent,
        checks_done: scan.progress.checksDone,
        findings: scan.progress.findings,
      },
      warnings: scan.warnings,
      started: scan.started?.toISOString() ?? null,
      ended: scan.ended?.toISOString() ?? null,
      report_url: reportUrl,
    },
  };
}

/** A report with its findings, and the status document of the running scan. */
export const scanReportRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/scans/:token/status.json', access: 'read', handler: statusDocument },
  { method: 'GET', path: '/scans/:token/reports/:report', access: 'read', handler: reportPage },
];
