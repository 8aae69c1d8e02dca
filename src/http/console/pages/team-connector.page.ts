import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { requestConnectorRun } from '../../../core/connectors/connector-run.service.ts';
import { listConnectorAssets } from '../../../core/connectors/connector.service.ts';
import type { Connector, ConnectorAsset } from '../../../core/connectors/connector.types.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';
import {
  assetKindLabels,
  connectorOf,
  connectorPath,
  deleteForm,
  isRunLive,
  lastRunOf,
  notFound,
  runForm,
} from './team-connector-view.ts';
import { whenOf } from './team-shared.ts';

/**
 * One connector of the team: its fields and last run, and the names and addresses its runs
 * brought in (GET /rest/v3/connectors/{id}/assets: those the provider still has first, each
 * gone one marked with the time a run first no longer saw it), with the totals. Every role reads
 * it; Admins run the connector now (POST /rest/v3/connectors/{id}/run's core call) and delete it.
 */

/** Most assets the page lists: the API's largest page (the totals count them all). */
const assetLimit = 1000;

function facts(connector: Connector): Html {
  return html`<dl class="facts">
  <dt>Provider</dt><dd class="mono">${connector.provider}</dd>
  <dt>Last run</dt><dd id="last-run">${lastRunOf(connector.lastRun)}</dd>
  <dt>Runs</dt><dd>On create, daily, and on demand (Run now).</dd>
  <dt>Options</dt><dd><span class="muted">Stored encrypted; never shown again.</span></dd>
  <dt>Created</dt><dd>${whenOf(connector.created)}</dd>
  <dt>Id</dt><dd class="mono">${connector.publicId}</dd>
</dl>`;
}

/** Present, or gone with the time a run first no longer saw it. */
function stateCell(asset: ConnectorAsset): Html {
  if (asset.goneAt === null) return html`<span class="status job-done">present</span>`;
  return html`<span class="status job-failed">gone from provider</span><br><span class="gone-since">since ${whenOf(asset.goneAt)}</span>`;
}

function assetRows(assets: ConnectorAsset[]): Html[] {
  return assets.map(
    (
      a,
    ) => html`<tr data-asset="${a.name}" data-kind="${a.kind}"${a.goneAt === null ? '' : html` data-gone class="gone"`}>
<td class="wrap" data-label="Name"><span class="mono">${a.name}</span></td>
<td class="nowrap" data-label="Kind">${assetKindLabels[a.kind]}</td>
<td class="wrap" data-label="Source">${a.source}</td>
<td class="nowrap" data-label="First seen">${whenOf(a.firstSeen)}</td>
<td class="nowrap" data-label="Last seen">${whenOf(a.lastSeen)}</td>
<td class="nowrap" data-label="State">${stateCell(a)}</td>
</tr>`,
  );
}

function totalsOf(total: number, gone: number, shown: number): Html {
  const words = (n: number) => `${n} ${n === 1 ? 'name or address' : 'names and addresses'}`;
  const more = shown < total ? html` Showing the first ${shown}: those the provider still has first.` : '';
  return html`<p id="asset-totals">${words(total)}: <strong>${total - gone}</strong> at the provider, <strong>${gone}</strong> gone from it.${more}</p>`;
}

async function assetsSection(ctx: ConsoleContext, connector: Connector): Promise<Html> {
  const { items, total, gone } = await listConnectorAssets(ctx.deps.store, connector, assetLimit);
  const head = ['Name', 'Kind', 'Source', 'First seen', 'Last seen', 'State'];
  const table =
    items.length === 0
      ? html`<p class="muted" id="assets-empty">No asset yet: the first run that succeeds brings in the account's zones, names and addresses.</p>`
      : html`<div class="table-wrap stacks" role="region" tabindex="0" aria-label="Assets of the connector"><table id="connector-assets">
<caption class="visually-hidden">Names and addresses ${connector.name} brought in</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${assetRows(items)}</tbody></table></div>`;
  return html`<section aria-labelledby="connector-assets-heading"><h2 id="connector-assets-heading">Assets</h2>
${items.length === 0 ? '' : totalsOf(total, gone, items.length)}
<p class="hint">What runs found at the provider. Runs never delete an asset: one a later run no longer sees stays, marked gone from the provider since that run.</p>
${table}</section>`;
}

async function connectorPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const connector = await connectorOf(ctx);
  if (connector === undefined) return notFound(ctx);
  const isAdmin = roleAllows(ctx.signedIn.member.role, 'administer');
  const actions = isAdmin
    ? html`<div class="toolbar" role="group" aria-label="Actions">${runForm(ctx, connector, 'detail')}${deleteForm(ctx, connector)}</div>`
    : html`<p class="hint">Your role (${ctx.signedIn.member.role}) reads the connector; an Admin runs and deletes it.</p>`;
  const main = html`<p><a href="/team/connectors">← Connectors</a></p>
<h1>${connector.name}</h1>
${actions}
<section class="panel" aria-labelledby="connector-facts"><h2 id="connector-facts">Connector</h2>${facts(connector)}</section>
${await assetsSection(ctx, connector)}`;
  const notice = noticeOf(ctx.query);
  const frame = { title: connector.name, signedIn: ctx.signedIn, section: 'team' as const };
  return { page: page(notice === undefined ? frame : { ...frame, notice }, main) };
}

/** Run now: queues a run unless one is queued or running (then that one stands), and goes back. */
async function runHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const connector = await connectorOf(ctx);
  if (connector === undefined) return notFound(ctx);
  const wasLive = isRunLive(connector.lastRun);
  await requestConnectorRun(ctx.deps.connectorRuns, connector);
  const back = ctx.form.get('back') === 'detail' ? connectorPath(connector) : '/team/connectors';
  return { redirect: withNotice(back, wasLive ? 'connector-run-live' : 'connector-run-queued') };
}

/** One connector's page (every role) and Run now (Admins). */
export const oneConnectorRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team/connectors/:id', access: 'read', handler: connectorPage },
  { method: 'POST', path: '/team/connectors/:id/run', access: 'administer', handler: runHandler },
];
