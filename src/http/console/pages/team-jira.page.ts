import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { appError } from '../../../core/errors/app-error.ts';
import {
  deleteJiraConnection,
  findJiraConnection,
  jiraDefaults,
  parseJiraSettings,
  saveJiraConnection,
} from '../../../core/integrations/jira-connection.service.ts';
import type { JiraConnection } from '../../../core/integrations/jira.types.ts';
import { severities } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { jiraRoutes } from '../../v3/jira.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, safeHref, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { withNotice } from '../notices.ts';
import { notFoundPage } from './error.page.ts';
import { checkedBody, problemFor, problemFrom, teamPage, whenOf, type FormProblem } from './team-shared.ts';

/**
 * The team's Jira connection (Team, "Jira" tab): what it is (site, account, project, rule,
 * transitions), how the sync stands (active, retrying, stopped; last sync, last error). Admins
 * connect, replace and disconnect it; the form is the body of PUT /rest/v3/integrations/jira,
 * checked by that route's validator and the same core service (a bad field: the API's 1051
 * naming it). The API token is write-only: never rendered back, not even in a refused form; on
 * a replacement a blank token keeps the stored one, but only for the same site (the token is
 * never sent to a site it was not given for).
 */

/** The text fields of the form (every one but the token), as the API names them. */
const textFields = [
  'base_url',
  'account_email',
  'project_key',
  'issue_type',
  'min_severity',
  'done_transition',
  'reopen_transition',
] as const;

/** `active`, `retrying` or `stopped`, as the API's `status` says it. */
function statusOf(c: JiraConnection): 'active' | 'retrying' | 'stopped' {
  return c.stoppedAt !== null ? 'stopped' : c.failures > 0 ? 'retrying' : 'active';
}

function statusBadge(c: JiraConnection): Html {
  const status = statusOf(c);
  const style = status === 'active' ? 'state-active' : status === 'retrying' ? 'job-running' : 'job-failed';
  return html`<span class="${`status ${style}`}" data-jira-status="${status}">${status}</span>`;
}

function connectionFacts(c: JiraConnection): Html {
  return html`<dl class="facts">
  <dt>Site</dt><dd><a href="${safeHref(c.baseUrl)}" rel="noreferrer noopener">${c.baseUrl}</a></dd>
  <dt>Account</dt><dd>${c.accountEmail}</dd>
  <dt>API token</dt><dd><span class="muted">stored encrypted; never shown</span></dd>
  <dt>Project</dt><dd><code>${c.projectKey}</code>, issue type ${c.issueType}</dd>
  <dt>Rule</dt><dd>findings of severity ${c.minSeverity} or above</dd>
  <dt>Transitions</dt><dd>done: ${c.doneTransition}; reopen: ${c.reopenTransition}</dd>
  <dt>Status</dt><dd>${statusBadge(c)}${c.retryAt === null || c.stoppedAt !== null ? '' : html` <span class="muted">next try ${whenOf(c.retryAt)}</span>`}</dd>
  <dt>Last sync</dt><dd>${whenOf(c.lastSyncedAt)}</dd>
  <dt>Last error</dt><dd id="jira-last-error">${c.lastError === null ? html`<span class="muted">none</span>` : c.lastError}</dd>
  <dt>Connected</dt><dd>${whenOf(c.created)}; changed ${whenOf(c.updated)}</dd>
</dl>`;
}

/** A field's value: as typed after a refusal, else the stored connection's, else the API's default. */
function valueOf(problem: FormProblem | undefined, c: JiraConnection | undefined, field: string): string {
  if (problem?.form === 'jira') return problem.values[field] ?? '';
  const stored: Record<string, string | undefined> = {
    base_url: c?.baseUrl,
    account_email: c?.accountEmail,
    project_key: c?.projectKey,
    issue_type: c?.issueType,
    min_severity: c?.minSeverity,
    done_transition: c?.doneTransition,
    reopen_transition: c?.reopenTransition,
  };
  return stored[field] ?? (jiraDefaults as Record<string, string>)[field] ?? '';
}

/** ` aria-invalid` pointing at the message, on the field a refusal names (its message names it as `field`). */
function invalidMark(problem: FormProblem | undefined, field: string): Html {
  return problem?.form === 'jira' && problem.message.includes(` ${field} `)
    ? html` aria-invalid="true" aria-errormessage="jira-problem"`
    : html``;
}

function input(
  problem: FormProblem | undefined,
  c: JiraConnection | undefined,
  field: string,
  label: string,
  extra: Html = html``,
): Html {
  return html`<label for="${`jira-${field}`}">${label}</label>
    <input id="${`jira-${field}`}" name="${field}" autocomplete="off" spellcheck="false" value="${valueOf(problem, c, field)}"${extra}${invalidMark(problem, field)}>`;
}

function connectForm(ctx: ConsoleContext, c: JiraConnection | undefined, problem: FormProblem | undefined): Html {
  const severity = valueOf(problem, c, 'min_severity');
  const heading = html`<h2 id="jira-connect">${c === undefined ? 'Connect a Jira project' : 'Replace the connection'}</h2>`;
  const inner = html`${problemFor(problem, 'jira')}
  <form method="post" action="/team/jira" class="stack">
    ${csrfField(ctx.signedIn)}
    ${input(problem, c, 'base_url', 'Jira site', html` type="url" required placeholder="https://acme.atlassian.net"`)}
    ${input(problem, c, 'account_email', 'Account e-mail', html` type="email" required`)}
    <label for="jira-api_token">API token</label>
    <input id="jira-api_token" name="api_token" type="password" autocomplete="new-password"${c === undefined ? html` required` : ''} aria-describedby="jira-token-hint"${invalidMark(problem, 'api_token')}>
    <p class="hint" id="jira-token-hint">${c === undefined ? 'Made at id.atlassian.com → Security → API tokens. Stored encrypted and never shown again.' : 'Stored encrypted and never shown. Leave blank to keep the stored token (only while the site stays the same).'}</p>
    ${input(problem, c, 'project_key', 'Project key', html` required placeholder="SEC" pattern="[A-Z][A-Z0-9_]+"`)}
    ${input(problem, c, 'issue_type', 'Issue type')}
    <label for="jira-min_severity">Minimum severity</label>
    <select id="jira-min_severity" name="min_severity"${invalidMark(problem, 'min_severity')}>${severities.map(
      (s) => html`<option value="${s}"${s === severity ? html` selected` : ''}>${s}</option>`,
    )}</select>
    ${input(problem, c, 'done_transition', 'Transition that closes an issue')}
    ${input(problem, c, 'reopen_transition', 'Transition that reopens an issue')}
    <p class="hint">Each finding of this severity or above gets one issue, closed when it is patched or marked and reopened when it comes back. ${c === undefined ? 'Only what happens from now on is sent.' : 'Another site or project starts again from now, with no issues.'}</p>
    <button type="submit" class="primary">${c === undefined ? 'Connect' : 'Save'}</button>
  </form>`;
  // Once connected, the form waits folded under its heading (open to show a refusal).
  if (c !== undefined)
    return html`<details class="panel fold" id="jira-fold"${problem?.form === 'jira' ? html` open` : ''}><summary>${heading}</summary>${inner}</details>`;
  return html`<section class="panel" aria-labelledby="jira-connect">${heading}${inner}</section>`;
}

function disconnectForm(ctx: ConsoleContext): Html {
  return html`<section class="panel" aria-labelledby="jira-disconnect">
  <h2 id="jira-disconnect">Disconnect</h2>
  <p>perimeter stops sending to Jira and forgets its links to the issues; the issues stay in Jira.</p>
  <form method="post" action="/team/jira/delete" class="inline" data-confirm="Disconnect Jira? The issues stay in Jira.">${csrfField(ctx.signedIn)}<button type="submit" class="danger">Disconnect Jira</button></form>
</section>`;
}

async function jiraPage(ctx: ConsoleContext, problem?: FormProblem, status = 200): Promise<ConsoleAnswer> {
  const connection = await findJiraConnection(ctx.deps.store, ctx.signedIn.team.id);
  const isAdmin = roleAllows(ctx.signedIn.member.role, 'administer');
  const state =
    connection === undefined
      ? html`<p id="jira-none">The team has no Jira connection.</p>`
      : connectionFacts(connection);
  const body = html`<section class="panel" aria-labelledby="jira-state">
  <h2 id="jira-state">Jira</h2>
  <p class="hint">A finding that matches the rule gets one issue in the team's Jira project, keyed by its fingerprint: updated, never duplicated (docs/integrations.md). Its page links to the issue.</p>
  ${state}
</section>
${isAdmin ? html`${connectForm(ctx, connection, problem)}${connection === undefined ? '' : disconnectForm(ctx)}` : html`<p class="hint">Your role (${ctx.signedIn.member.role}) reads the connection; an Admin connects and disconnects it.</p>`}`;
  return teamPage(ctx, 'jira', 'Jira', body, status);
}

/**
 * The body the form stands for. A blank token on a replacement is the stored one when the site
 * is the same (compared as the core stores it); for another site it stays blank, so the API's
 * rule asks for it.
 */
function bodyOf(
  ctx: ConsoleContext,
  values: Record<string, string>,
  stored: JiraConnection | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of textFields) if (values[field] !== '') body[field] = values[field];
  const token = ctx.form.get('api_token') ?? '';
  const sameSite = stored !== undefined && (values['base_url'] ?? '').trim().replace(/\/+$/, '') === stored.baseUrl;
  if (token !== '') body['api_token'] = token;
  else if (sameSite) body['api_token'] = ctx.deps.box.decrypt(stored.apiTokenSealed);
  else if (stored !== undefined)
    throw appError(
      1051,
      'Request body malformed: api_token is required: the stored token is kept only for the same site',
      ['api_token'],
    );
  // base_url, account_email and project_key are required by the API: a blank one is sent as such.
  for (const field of ['base_url', 'account_email', 'project_key'] as const) body[field] ??= values[field] ?? '';
  return body;
}

async function saveHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  // The token is never put back in the form: it is a credential.
  const values = Object.fromEntries(textFields.map((f) => [f, (ctx.form.get(f) ?? '').slice(0, 4096)]));
  const teamId = ctx.signedIn.team.id;
  try {
    const stored = await findJiraConnection(ctx.deps.store, teamId);
    const body = checkedBody(jiraRoutes, 'putJiraConnection', bodyOf(ctx, values, stored));
    await saveJiraConnection(ctx.deps.store, ctx.deps.box, teamId, parseJiraSettings(body), new Date());
  } catch (err) {
    const { problem, status } = problemFrom(err, 'jira', values);
    return jiraPage(ctx, problem, status);
  }
  return { redirect: withNotice('/team/jira', 'jira-saved') };
}

async function deleteHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  if (!(await deleteJiraConnection(ctx.deps.store, ctx.signedIn.team.id)))
    return { status: 404, page: notFoundPage({ signedIn: ctx.signedIn }) };
  return { redirect: withNotice('/team/jira', 'jira-deleted') };
}

/** The Jira connection page: read by every role, changed by Admins. */
export const teamJiraRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team/jira', access: 'read', handler: (ctx) => jiraPage(ctx) },
  { method: 'POST', path: '/team/jira', access: 'administer', handler: saveHandler },
  { method: 'POST', path: '/team/jira/delete', access: 'administer', handler: deleteHandler },
];
