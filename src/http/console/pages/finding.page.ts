import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { jiraIssuesOfVulnerability, type JiraIssueView } from '../../../core/integrations/jira-connection.service.ts';
import { isUuid } from '../../../core/shared/ids.ts';
import type { Mark } from '../../../core/vulnerabilities/vulnerability.types.ts';
import {
  listVulnerabilityEvents,
  requireVulnerability,
} from '../../../core/vulnerabilities/vulnerability-status.service.ts';
import { presentVulnerability } from '../../v2/vulnerability.presenter.ts';
import { safeNext, type ConsoleAnswer, type ConsoleContext, type ConsoleRoute } from '../console-route.ts';
import { html, safeHref, type Html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';
import { notFoundPage } from './error.page.ts';
import { applyAction, markActions } from './finding-actions.ts';
import {
  cvssOf,
  detailBody,
  highlighted,
  highlightValues,
  markdownText,
  messageText,
  severityBadge,
  statusBadge,
  time,
  type WireFinding,
} from './findings-view.ts';

/**
 * One finding: what it is (title, severity, CVSS, CWE, OWASP, description, references), the
 * evidence (request and response, the matched parts highlighted), its details and the history
 * of its status. Another team's finding, an unknown one and a malformed id all answer the same
 * not-found page.
 */

/** The finding's Jira issue (its key to the browse URL, and its state), when the team's sync made one. */
function jiraFacts(issues: readonly JiraIssueView[]): Html {
  if (issues.length === 0) return html``;
  return html`<dt>Jira</dt><dd id="jira-issue">${issues.map(
    (i) =>
      html`<a href="${safeHref(i.url)}" rel="noreferrer noopener" data-jira-key="${i.issueKey}">${i.issueKey}</a> <span class="${`status ${i.state === 'done' ? 'status-fixed' : 'status-unverified'}`}">${i.state}</span> `,
  )}</dd>`;
}

function facts(f: WireFinding, issues: readonly JiraIssueView[]): Html {
  const cvss = cvssOf(f);
  return html`<dl class="facts">
<dt>Severity</dt><dd>${severityBadge(f.severity)}</dd>
<dt>Status</dt><dd>${statusBadge(f.status)}</dd>
<dt>CVSS</dt><dd>${cvss === undefined ? 'none' : html`${cvss.score.toFixed(1)} (CVSS ${cvss.version}) <code>${cvss.vector}</code>`}</dd>
<dt>CWE</dt><dd>${f.cwe > 0 ? html`<a href="https://cwe.mitre.org/data/definitions/${f.cwe}.html" rel="noreferrer noopener">CWE-${f.cwe}</a>` : 'none'}</dd>
<dt>OWASP</dt><dd>${f.owasp.length === 0 ? 'none' : f.owasp.map((o) => `${o.classification} (${o.year})`).join(', ')}</dd>
<dt>Asset</dt><dd>${f.asset.name}</dd>
<dt>Host</dt><dd>${f.host}</dd>
<dt>Source</dt><dd>${f.scan_source}</dd>
<dt>First seen</dt><dd>${time(f.created_at)}</dd>
<dt>Last seen</dt><dd>${time(f.updated_at)}</dd>
<dt>Tags</dt><dd>${f.tags.length === 0 ? 'none' : f.tags.map((t) => t.name).join(', ')}</dd>
${jiraFacts(issues)}
</dl>`;
}

function evidence(f: WireFinding): Html {
  const needles = highlightValues(f);
  const request =
    f.request === undefined
      ? ''
      : html`<section aria-labelledby="req"><h3 id="req">Request</h3><pre class="evidence">${highlighted(
          messageText(`${f.request.method} ${f.request.url}`, f.request.headers, f.request.body),
          needles,
        )}</pre></section>`;
  const response =
    f.response === undefined
      ? ''
      : html`<section aria-labelledby="res"><h3 id="res">Response</h3><pre class="evidence">${highlighted(
          messageText(`HTTP ${f.response.status_code}`, f.response.headers, f.response.body),
          needles,
        )}</pre></section>`;
  const details = Object.entries(f.details).flatMap(([kind, entries]) =>
    entries.flatMap((entry) => {
      const body = detailBody(kind, entry, needles);
      return body === undefined ? [] : [html`<section><h3>${entry.topic}</h3>${body}</section>`];
    }),
  );
  if (request === '' && response === '' && details.length === 0) return html``;
  return html`<section class="panel" aria-labelledby="ev"><h2 id="ev">What the scan saw</h2>
<div class="grid2">${request}${response}</div>
${details}
</section>`;
}

function history(events: Awaited<ReturnType<typeof listVulnerabilityEvents>>): Html {
  if (events.length === 0) return html`<p class="muted">No status change yet.</p>`;
  return html`<ol class="history">${events.map(
    (e) =>
      html`<li>${time(e.at.toISOString())}: ${e.actor} — ${e.action.replace(/_/g, ' ')} (${e.from} → ${e.to})</li>`,
  )}</ol>`;
}

/** The triage form: set a mark the finding does not carry, or take off the one it does; add a tag. */
function markForm(ctx: ConsoleContext, f: WireFinding, mark: Mark | null): Html {
  if (!roleAllows(ctx.signedIn.member.role, 'triage')) return html``;
  const actions = markActions.filter((a) => (a.isSet ? a.mark !== mark : a.mark === mark));
  return html`<form method="post" action="/vulnerabilities/${f.uuid}/marks" class="toolbar" aria-label="Triage">
${csrfField(ctx.signedIn)}
${actions.map((a) => html`<button type="submit" name="action" value="${a.value}">${a.label}</button>`)}
<label for="tag" class="visually-hidden">Tag</label>
<input id="tag" name="tag" placeholder="Tag name" maxlength="64">
<button type="submit" name="action" value="tag">Add tag</button>
</form>`;
}

async function findingPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const uuid = ctx.params['uuid'] ?? '';
  // A malformed id is a finding that does not exist, as far as this page tells.
  if (!isUuid(uuid)) return { status: 404, page: notFoundPage({ signedIn: ctx.signedIn }) };
  const { store } = ctx.deps;
  const team = ctx.signedIn.team;
  const record = await requireVulnerability(store, team, uuid);
  const f = (JSON.parse(presentVulnerability(record)) as { vulnerability: WireFinding }).vulnerability;
  const events = await listVulnerabilityEvents(store, team, uuid);
  const issues = await jiraIssuesOfVulnerability(store, team.id, record.uuid);
  const notice = noticeOf(ctx.query);
  const body = html`<p><a href="/vulnerabilities">← Findings</a></p>
<h1>${f.title}</h1>
${markForm(ctx, f, record.mark)}
<div class="grid2">
<section class="panel" aria-labelledby="what"><h2 id="what">Summary</h2>${facts(f, issues)}</section>
<section class="panel" aria-labelledby="hist"><h2 id="hist">History</h2>${history(events)}</section>
</div>
<section class="panel" aria-labelledby="desc"><h2 id="desc">Description</h2>
${markdownText(f.definition.description)}
${f.definition.risk === '' ? '' : html`<h3>Risk</h3>${markdownText(f.definition.risk)}`}
</section>
${evidence(f)}
${
  f.references.length === 0
    ? ''
    : html`<section class="panel" aria-labelledby="refs"><h2 id="refs">References</h2><ul>${f.references.map(
        (r) =>
          html`<li><a href="${safeHref(r.link)}" rel="noreferrer noopener">${r.name || r.link}</a> (${r.source})</li>`,
      )}</ul></section>`
}`;
  return {
    page: page(
      { title: f.title, signedIn: ctx.signedIn, section: 'findings', ...(notice === undefined ? {} : { notice }) },
      body,
    ),
  };
}

/** One finding's page, its triage form, and the list's bulk form. */
export const findingDetailRoutes: ConsoleRoute[] = [
  {
    method: 'POST',
    path: '/vulnerabilities/bulk',
    access: 'triage',
    handler: async (ctx) => {
      const uuids = [...new Set(ctx.form.getAll('uuid'))];
      const n = await applyAction(ctx, ctx.form.get('action') ?? '', uuids);
      const back = safeNext(ctx.form.get('return') ?? '/vulnerabilities');
      const notice = ctx.form.get('action') === 'tag' ? 'tagged' : 'marked';
      return { redirect: withNotice(back.startsWith('/vulnerabilities') ? back : '/vulnerabilities', notice, n) };
    },
  },
  { method: 'GET', path: '/vulnerabilities/:uuid', access: 'read', handler: findingPage },
  {
    method: 'POST',
    path: '/vulnerabilities/:uuid/marks',
    access: 'triage',
    handler: async (ctx) => {
      const uuid = ctx.params['uuid'] ?? '';
      if (!isUuid(uuid)) return { status: 404, page: notFoundPage({ signedIn: ctx.signedIn }) };
      const action = ctx.form.get('action') ?? '';
      await applyAction(ctx, action, [uuid]);
      return {
        redirect: withNotice(`/vulnerabilities/${uuid.toLowerCase()}`, action === 'tag' ? 'tagged' : 'marked', 1),
      };
    },
  },
];
