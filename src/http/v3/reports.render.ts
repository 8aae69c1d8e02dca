import type { ReportData, ReportChanges } from '../../core/reports/report.service.ts';
import type { Scan } from '../../core/scans/scan.types.ts';
import type {
  CvssScore,
  Details,
  HttpHeader,
  Severity,
  VulnerabilityRecord,
} from '../../core/vulnerabilities/vulnerability.types.ts';
import { escapeHtml, html, type Html } from '../console/html.ts';

/**
 * The HTML of a report: one self-contained, printable document (inline CSS, an inline SVG chart,
 * no script and nothing fetched). Every value from a finding is escaped by the `html` template,
 * so evidence holding markup prints as text. The PDF is this document printed (engine/reports).
 */

/** The fields of a vulnerability's stored list document that a report reads. */
interface ReportDocument {
  title: string;
  host: string;
  severity: Severity;
  cwe: number;
  scan_profile_token: string;
  cvss_scores: { cvss_2_0?: CvssScore; cvss_3_0?: CvssScore; cvss_3_1?: CvssScore };
  definition: { description: string; risk: string };
  references: Array<{ link: string; name: string }>;
  links: { details_page: string };
  request?: { method: string; url: string; body: string; headers: HttpHeader[] };
  response?: { body: string; status_code: number; headers: HttpHeader[] };
  details: Details;
}

/** Severities from the most to the least severe, with their label and colour. */
const bands: Array<{ severity: Severity; label: string; colour: string }> = [
  { severity: 'critical', label: 'Critical', colour: '#7f1d1d' },
  { severity: 'high', label: 'High', colour: '#c2410c' },
  { severity: 'medium', label: 'Medium', colour: '#b45309' },
  { severity: 'low', label: 'Low', colour: '#1d4ed8' },
  { severity: 'information', label: 'Information', colour: '#4b5563' },
];

const statusLabels: Record<string, string> = {
  new: 'New',
  active: 'Active',
  regression: 'Regression',
  patched: 'Patched',
  accepted_risk: 'Accepted risk',
  false_positive: 'False positive',
};

/** Longest body excerpt shown of a request or a response. */
const bodyExcerpt = 1500;
/** Most headers shown of a request or a response. */
const headerExcerpt = 15;

interface ReportFinding {
  record: VulnerabilityRecord;
  doc: ReportDocument;
  details: Details;
}

function readFinding(record: VulnerabilityRecord): ReportFinding {
  const doc = JSON.parse(record.document) as ReportDocument;
  const details = record.detailsFull === null ? doc.details : (JSON.parse(record.detailsFull) as Details);
  return { record, doc, details };
}

/** A time as `YYYY-MM-DD HH:MM UTC`. */
function when(date: Date | null | undefined): string {
  if (date === null || date === undefined) return '—';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function excerpt(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n… (${text.length - limit} more characters)`;
}

function headerLines(headers: HttpHeader[]): string {
  const shown = headers.slice(0, headerExcerpt).map((h) => `${h.name}: ${h.value}`);
  if (headers.length > headerExcerpt) shown.push(`… (${headers.length - headerExcerpt} more headers)`);
  return shown.join('\n');
}

/** The highest CVSS version a finding has. */
function cvssOf(doc: ReportDocument): { version: string; score: CvssScore } | undefined {
  const s = doc.cvss_scores;
  if (s.cvss_3_1 !== undefined) return { version: '3.1', score: s.cvss_3_1 };
  if (s.cvss_3_0 !== undefined) return { version: '3.0', score: s.cvss_3_0 };
  if (s.cvss_2_0 !== undefined) return { version: '2.0', score: s.cvss_2_0 };
  return undefined;
}

/** Horizontal bars, one per severity, drawn as inline SVG (no script, no fonts fetched). */
function chart(counts: Record<Severity, number>): Html {
  const max = Math.max(1, ...bands.map((b) => counts[b.severity]));
  const row = 26;
  const barX = 96;
  const barWidth = 260;
  const height = bands.length * row + 4;
  const rows = bands.map((b, i) => {
    const y = i * row + 4;
    const width = counts[b.severity] === 0 ? 0 : Math.max(2, Math.round((counts[b.severity] / max) * barWidth));
    return html`<text x="0" y="${y + 14}" font-size="12" fill="#1f2937">${b.label}</text>
      <rect x="${barX}" y="${y}" width="${barWidth}" height="18" fill="#f3f4f6"/>
      <rect x="${barX}" y="${y}" width="${width}" height="18" fill="${b.colour}"/>
      <text x="${barX + barWidth + 8}" y="${y + 14}" font-size="12" font-weight="bold" fill="#1f2937">${counts[b.severity]}</text>`;
  });
  const label = bands.map((b) => `${b.label} ${counts[b.severity]}`).join(', ');
  return html`<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="400" height="${height}" viewBox="0 0 400 ${height}" role="img" aria-label="Findings by severity: ${label}"><title>Findings by severity: ${label}</title>${rows}</svg>`;
}

function countsOf(findings: ReportFinding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0, information: 0 };
  for (const f of findings) counts[f.doc.severity] += 1;
  return counts;
}

function changeList(title: string, cls: string, records: VulnerabilityRecord[]): Html {
  const items = records.slice(0, 20).map((r) => {
    const doc = JSON.parse(r.document) as ReportDocument;
    return html`<li><span class="sev sev-${doc.severity}">${doc.severity}</span> ${doc.title} <span class="muted">(${doc.host})</span></li>`;
  });
  const more = records.length > 20 ? html`<li class="muted">… and ${records.length - 20} more</li>` : '';
  return html`<div class="change ${cls}"><h3>${title} <span class="count">${records.length}</span></h3>${
    records.length === 0 ? html`<p class="muted">None.</p>` : html`<ul>${items}${more}</ul>`
  }</div>`;
}

function scanLabel(scan: Scan): string {
  return `${scan.profileName || scan.endpoint} (${when(scan.created)})`;
}

function changesSection(changes: ReportChanges | undefined, scan: Scan | undefined): Html {
  if (changes === undefined || scan === undefined)
    return html`<section class="changes"><h2>Changes since the previous scan</h2><p class="muted">No scan of this asset has finished yet.</p></section>`;
  const since =
    changes.previous === undefined
      ? html`<p class="muted">The scan of ${scanLabel(scan)} is the profile's first: every finding it saw is new.</p>`
      : html`<p class="muted">Scan of ${scanLabel(scan)} compared with the scan before it, ${when(changes.previous.created)}.</p>`;
  return html`<section class="changes"><h2>Changes since the previous scan</h2>${since}<div class="change-grid">${changeList('New', 'new', changes.fresh)}${changeList('Regressed', 'regressed', changes.regressed)}${changeList('Patched', 'patched', changes.patched)}</div></section>`;
}

function evidence(f: ReportFinding): Html {
  const parts: Html[] = [];
  const req = f.doc.request;
  if (req !== undefined) {
    const text = `${req.method} ${req.url}\n${headerLines(req.headers)}${req.body === '' ? '' : `\n\n${excerpt(req.body, bodyExcerpt)}`}`;
    parts.push(html`<h4>Request</h4><pre>${text}</pre>`);
  }
  const res = f.doc.response;
  if (res !== undefined) {
    const text = `HTTP ${res.status_code}\n${headerLines(res.headers)}${res.body === '' ? '' : `\n\n${excerpt(res.body, bodyExcerpt)}`}`;
    parts.push(html`<h4>Response</h4><pre>${text}</pre>`);
  }
  for (const t of f.details.text ?? [])
    parts.push(html`<h4>${t.topic}</h4><pre>${excerpt(t.value, bodyExcerpt)}</pre>`);
  if (parts.length === 0) return html``;
  return html`<div class="evidence">${parts}</div>`;
}

function remediationOf(f: ReportFinding): string | undefined {
  const entry = (f.details.markdown ?? []).find((m) => m.topic.toLowerCase() === 'remediation');
  return entry === undefined ? undefined : entry.fallback || entry.value;
}

function findingBlock(f: ReportFinding, index: number): Html {
  const { doc, record } = f;
  const cvss = cvssOf(doc);
  const remediation = remediationOf(f);
  return html`<article class="finding sev-border-${doc.severity}">
    <h3><span class="num">${index}.</span> ${doc.title}</h3>
    <table class="meta">
      <tr><th>Severity</th><td><span class="sev sev-${doc.severity}">${doc.severity}</span></td><th>Status</th><td>${statusLabels[record.status] ?? record.status}</td></tr>
      <tr><th>Host</th><td class="wrap">${doc.host}</td><th>CWE</th><td>${doc.cwe > 0 ? `CWE-${doc.cwe}` : '—'}</td></tr>
      <tr><th>CVSS</th><td colspan="3" class="wrap">${cvss === undefined ? '—' : `${cvss.score.score.toFixed(1)} (CVSS ${cvss.version}) ${cvss.score.vector}`}</td></tr>
      <tr><th>First seen</th><td>${when(record.createdAt)}</td><th>Last seen</th><td>${when(record.updatedAt)}</td></tr>
      ${doc.request === undefined ? '' : html`<tr><th>Location</th><td colspan="3" class="wrap">${doc.request.url}</td></tr>`}
    </table>
    ${doc.definition.description === '' ? '' : html`<h4>Description</h4><p>${doc.definition.description}</p>`}
    ${doc.definition.risk === '' ? '' : html`<h4>Risk</h4><p>${doc.definition.risk}</p>`}
    ${remediation === undefined ? '' : html`<h4>Remediation</h4><p class="remediation">${remediation}</p>`}
    ${evidence(f)}
  </article>`;
}

function findingsSection(findings: ReportFinding[], kind: ReportData['kind']): Html {
  const groups = bands.map((b) => {
    const inBand = findings.filter((f) => f.doc.severity === b.severity);
    if (inBand.length === 0) return html``;
    return html`<section class="band"><h2 class="band-title sev-border-${b.severity}">${b.label} <span class="count">${inBand.length}</span></h2>${inBand.map((f, i) => findingBlock(f, i + 1))}</section>`;
  });
  const none =
    findings.length === 0
      ? html`<p class="muted">${kind === 'scan' ? 'This scan reported no findings.' : 'This asset has no open findings.'}</p>`
      : '';
  return html`<section class="findings"><h2 class="page-break">Findings by severity</h2>${none}${groups}</section>`;
}

const styles = `
@page { size: A4; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #1f2937; font-size: 11px; line-height: 1.45; margin: 0 auto; max-width: 960px; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; color: #111827; }
h2 { font-size: 16px; margin: 22px 0 8px; color: #111827; border-bottom: 1px solid #d1d5db; padding-bottom: 4px; }
h3 { font-size: 13px; margin: 10px 0 6px; }
h4 { font-size: 11px; margin: 10px 0 4px; text-transform: uppercase; letter-spacing: .04em; color: #4b5563; }
p { margin: 4px 0; }
.muted { color: #6b7280; }
.brand { font-size: 11px; letter-spacing: .12em; text-transform: uppercase; color: #6b7280; }
header.title { border-bottom: 3px solid #111827; padding-bottom: 12px; margin-bottom: 8px; }
table { border-collapse: collapse; }
table.facts td, table.facts th { text-align: left; padding: 3px 14px 3px 0; vertical-align: top; }
table.facts th { color: #4b5563; font-weight: normal; }
.summary-grid { display: flex; gap: 28px; align-items: flex-start; flex-wrap: wrap; }
table.counts { min-width: 220px; }
table.counts th, table.counts td { padding: 4px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; }
table.counts td.n { text-align: right; font-weight: bold; }
table.counts tr.total td { border-top: 2px solid #111827; border-bottom: none; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; vertical-align: middle; }
.change-grid { display: flex; gap: 16px; flex-wrap: wrap; }
.change { flex: 1 1 200px; border: 1px solid #e5e7eb; border-radius: 4px; padding: 6px 10px; }
.change h3 { margin: 2px 0 4px; }
.change ul { margin: 0; padding-left: 16px; }
.change.new { border-top: 3px solid #c2410c; }
.change.regressed { border-top: 3px solid #7f1d1d; }
.change.patched { border-top: 3px solid #15803d; }
.count { display: inline-block; min-width: 20px; padding: 0 6px; border-radius: 10px; background: #e5e7eb; font-size: 11px; text-align: center; }
.sev { display: inline-block; padding: 0 6px; border-radius: 3px; color: #fff; font-size: 10px; text-transform: uppercase; font-weight: bold; }
${bands.map((b) => `.sev-${b.severity} { background: ${b.colour}; } .sev-border-${b.severity} { border-left: 5px solid ${b.colour}; padding-left: 8px; }`).join('\n')}
.finding { margin: 12px 0 16px; break-inside: avoid-page; page-break-inside: avoid; }
.finding .num { color: #6b7280; }
table.meta { width: 100%; margin: 4px 0 6px; }
table.meta th { text-align: left; color: #4b5563; font-weight: normal; width: 80px; padding: 2px 8px 2px 0; vertical-align: top; }
table.meta td { padding: 2px 12px 2px 0; vertical-align: top; }
.wrap { word-break: break-all; }
pre { background: #f9fafb; border: 1px solid #e5e7eb; padding: 6px 8px; font-family: "DejaVu Sans Mono", monospace; font-size: 9.5px; white-space: pre-wrap; word-break: break-all; margin: 2px 0 6px; }
.remediation { background: #f0fdf4; border-left: 3px solid #15803d; padding: 4px 8px; }
.notice { background: #fffbeb; border: 1px solid #fcd34d; padding: 6px 10px; }
footer.end { margin-top: 24px; color: #6b7280; font-size: 10px; border-top: 1px solid #e5e7eb; padding-top: 6px; }
@media print { body { padding: 0; max-width: none; } .page-break { break-before: page; } .band-title { break-after: avoid; } }
`;

/** The report's title: what it is about. */
export function reportTitle(data: ReportData): string {
  const target = data.asset?.name ?? data.scan?.endpoint ?? 'unknown asset';
  return data.kind === 'scan' ? `Scan report: ${target}` : `Asset report: ${target}`;
}

/** The whole report as one HTML document. */
export function renderReportHtml(data: ReportData): string {
  const findings = data.findings.map(readFinding);
  const counts = countsOf(findings);
  const total = findings.length;
  const scan = data.scan;
  const facts: Array<[string, string]> = [
    ['Team', data.team.name],
    ['Target', data.asset?.name ?? scan?.endpoint ?? '—'],
  ];
  if (data.kind === 'scan' && scan !== undefined) {
    facts.push(['Scan profile', `${scan.profileName} (${scan.endpoint})`]);
    facts.push(['Scan', `${scan.token}, ${scan.status.replace(/_/g, ' ')}`]);
    facts.push(['Started', when(scan.started ?? scan.created)]);
    facts.push(['Ended', when(scan.ended)]);
  } else {
    facts.push(['Asset token', data.asset?.token ?? '—']);
    facts.push([
      'Latest scan',
      scan === undefined ? 'none finished yet' : `${scanLabel(scan)}, ${scan.status.replace(/_/g, ' ')}`,
    ]);
  }
  facts.push(['Generated', when(data.generated)]);
  const countRows = bands.map(
    (b) =>
      html`<tr><td><span class="swatch" style="background:${b.colour}"></span>${b.label}</td><td class="n">${counts[b.severity]}</td></tr>`,
  );
  const scope =
    data.kind === 'scan'
      ? 'Findings this scan reported, with their status today.'
      : `Open findings of the asset and its subdomains (new, active, regression)${data.closed > 0 ? `; ${data.closed} closed (patched, accepted risk, false positive) are not listed` : ''}.`;
  const truncated = data.isTruncated
    ? html`<p class="notice">Only the first ${total} findings are listed and counted; list the rest through the API (/rest/v2/vulnerabilities/).</p>`
    : '';
  const title = reportTitle(data);
  const body = html`<header class="title">
  <div class="brand">perimeter · security report</div>
  <h1>${title}</h1>
  <table class="facts">${facts.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</table>
</header>
<section class="summary">
  <h2>Summary</h2>
  <p>${scope}</p>
  ${truncated}
  <div class="summary-grid">
    <table class="counts"><thead><tr><th>Severity</th><th>Findings</th></tr></thead><tbody>${countRows}<tr class="total"><td>Total</td><td class="n">${total}</td></tr></tbody></table>
    ${chart(counts)}
  </div>
</section>
${changesSection(data.changes, scan)}
${findingsSection(findings, data.kind)}
<footer class="end">Generated by perimeter on ${when(data.generated)} for team ${data.team.name}. Evidence excerpts are cut at ${bodyExcerpt} characters.</footer>`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${styles}</style></head>
<body>${body.text}</body></html>
`;
}
