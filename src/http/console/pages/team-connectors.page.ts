import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { requestConnectorRun } from '../../../core/connectors/connector-run.service.ts';
import {
  createConnector,
  deleteConnector,
  listConnectors,
  type ConnectorBody,
} from '../../../core/connectors/connector.service.ts';
import { connectorProviders, type Connector } from '../../../core/connectors/connector.types.ts';
import { connectorProviderNames } from '../../../core/connectors/connector-options.ts';
import { connectorRoutes } from '../../v3/connectors.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { withNotice } from '../notices.ts';
import { consoleCaller } from './console-caller.ts';
import { oneConnectorRoutes } from './team-connector.page.ts';
import { connectorPath, deleteForm, lastRunOf, notFound, optionFieldsHint, runForm } from './team-connector-view.ts';
import {
  checkedBody,
  createPanel,
  notInPlan,
  planHas,
  problemFrom,
  teamPage,
  valueFor,
  whenOf,
  type FormProblem,
} from './team-shared.ts';

/**
 * The team's connectors: each one's name (linking to its page), provider, creation and last run
 * (its state, when it ended, a failure's error), and for Admins a create form (checked by the v3
 * create route's validator and createConnector: the API's 1051 naming the field; the first run
 * is queued at once, as the API does), Run now and Delete. The options are credentials: written
 * once, stored sealed, never shown again, not even in a refused form. Connectors are in the
 * enterprise plan, as in the API.
 */

/** Most connectors the page lists (the API pages them; a team has a handful). */
const pageLimit = 500;

/** The options typed as `NAME=value` lines; a line without `=` is refused before the API's rules. */
function optionsOf(text: string): Record<string, string> | string {
  const options: Record<string, string> = {};
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const eq = line.indexOf('=');
    if (eq <= 0) return `Options line ${index + 1} is not NAME=value.`;
    options[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return options;
}

function connectorRows(ctx: ConsoleContext, connectors: Connector[], isAdmin: boolean): Html {
  return html`${connectors.map(
    (c) => html`<tr data-connector="${c.publicId}">
  <td class="wrap" data-label="Name"><a href="${connectorPath(c)}">${c.name}</a></td>
  <td data-label="Provider"><span class="mono">${c.provider}</span></td>
  <td class="nowrap" data-label="Created">${whenOf(c.created)}</td>
  <td class="last-run" data-label="Last run">${lastRunOf(c.lastRun)}</td>
  ${isAdmin ? html`<td class="nowrap" data-label="Actions">${runForm(ctx, c, 'list')} ${deleteForm(ctx, c)}</td>` : ''}
</tr>`,
  )}`;
}

function createForm(ctx: ConsoleContext, problem: FormProblem | undefined): Html {
  const provider = valueFor(problem, 'connector', 'provider');
  const options = connectorProviders.map(
    (p) =>
      html`<option value="${p}"${p === provider ? html` selected` : ''}>${p} (${connectorProviderNames[p]})</option>`,
  );
  return createPanel(ctx, problem, {
    name: 'connector',
    title: 'Create a connector',
    action: '/team/connectors',
    fields: html`<label for="connector-provider">Provider</label>
    <select id="connector-provider" name="provider">${options}</select>
    <label for="connector-options">Options</label>
    <textarea id="connector-options" name="options" autocomplete="off" spellcheck="false" aria-describedby="options-hint"></textarea>
    <p class="hint" id="options-hint">One NAME=value per line: the account's credentials and settings, the provider's fields below. Stored encrypted and never shown again${problem?.form === 'connector' ? ': enter them again' : ''}. The first run is queued on create.</p>
    ${optionFieldsHint()}`,
  });
}

const runsHint =
  "A run imports the provider account's DNS zones and records, public addresses and CDN or load balancer host names as assets. " +
  'Each connector runs when it is created, then daily, and on demand (Run now); the last run shows its state, when it ended, and why it failed.';

async function connectorsPage(ctx: ConsoleContext, problem?: FormProblem, status = 200): Promise<ConsoleAnswer> {
  const { team, member } = ctx.signedIn;
  if (!planHas(team, 'connectors'))
    return teamPage(ctx, 'connectors', 'Connectors', notInPlan(team, 'connectors'), status);
  const listed = await listConnectors(ctx.deps.store, consoleCaller(ctx.signedIn, 'v3'), undefined, pageLimit);
  const isAdmin = roleAllows(member.role, 'administer');
  const head = ['Name', 'Provider', 'Created', 'Last run', ...(isAdmin ? ['Actions'] : [])];
  const table =
    listed.items.length === 0
      ? html`<p>The team has no connectors.</p>`
      : html`<div class="table-wrap stacks" role="region" tabindex="0" aria-label="Connectors of the team"><table id="connector-list">
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${connectorRows(ctx, listed.items, isAdmin)}</tbody></table></div>`;
  const body = html`${isAdmin ? createForm(ctx, problem) : html`<p class="hint">Your role (${member.role}) reads the connectors; an Admin creates, runs and deletes them.</p>`}
<section aria-labelledby="connectors"><h2 id="connectors">Connectors</h2>
<p class="hint">${runsHint}</p>
${table}</section>`;
  return teamPage(ctx, 'connectors', 'Connectors', body, status);
}

async function createHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  if (!planHas(ctx.signedIn.team, 'connectors')) return connectorsPage(ctx, undefined, 403);
  // The options are never put back in the form: they are credentials.
  const values = { name: ctx.form.get('name') ?? '', provider: ctx.form.get('provider') ?? '' };
  const options = optionsOf(ctx.form.get('options') ?? '');
  if (typeof options === 'string')
    return connectorsPage(ctx, { form: 'connector', code: 0, message: options, values }, 400);
  try {
    const body = checkedBody(connectorRoutes, 'createConnector', { ...values, options }) as ConnectorBody;
    const connector = await createConnector(ctx.deps.store, ctx.deps.box, consoleCaller(ctx.signedIn, 'v3'), body);
    // Its first run is queued at once, as the API's create does.
    await requestConnectorRun(ctx.deps.connectorRuns, connector);
  } catch (err) {
    const { problem, status } = problemFrom(err, 'connector', values);
    return connectorsPage(ctx, problem, status);
  }
  return { redirect: withNotice('/team/connectors', 'connector-created') };
}

async function deleteHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const caller = consoleCaller(ctx.signedIn, 'v3');
  const isDeleted =
    planHas(ctx.signedIn.team, 'connectors') && (await deleteConnector(ctx.deps.store, caller, ctx.params['id'] ?? ''));
  if (!isDeleted) return notFound(ctx);
  return { redirect: withNotice('/team/connectors', 'connector-deleted') };
}

/** The connector pages: read by every role, changed by Admins. */
export const teamConnectorRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team/connectors', access: 'read', handler: (ctx) => connectorsPage(ctx) },
  { method: 'POST', path: '/team/connectors', access: 'administer', handler: createHandler },
  { method: 'POST', path: '/team/connectors/:id/delete', access: 'administer', handler: deleteHandler },
  ...oneConnectorRoutes,
];
