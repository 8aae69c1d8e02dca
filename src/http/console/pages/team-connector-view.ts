import { findConnector } from '../../../core/connectors/connector.service.ts';
import {
  connectorOptionFields,
  connectorProviderNames,
  type OptionField,
} from '../../../core/connectors/connector-options.ts';
import {
  connectorProviders,
  type Connector,
  type ConnectorAssetKind,
  type ConnectorRun,
} from '../../../core/connectors/connector.types.ts';
import type { ConsoleAnswer, ConsoleContext } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { consoleCaller } from './console-caller.ts';
import { notFoundPage } from './error.page.ts';
import { whenOf } from './team-shared.ts';

/**
 * What the connector pages share: a connector of the member's team by its id (another team's, an
 * unknown and a malformed id are alike not found), its last run as a badge with its time and
 * error, the Run now and Delete buttons, and the option fields of each provider for the create
 * form's hint. A run's error is shown to every role: the core keeps credentials out of it.
 */

/** The connector of the path in the member's team, or undefined. */
export function connectorOf(ctx: ConsoleContext): Promise<Connector | undefined> {
  return findConnector(ctx.deps.store, consoleCaller(ctx.signedIn, 'v3'), ctx.params['id'] ?? '');
}

/** The not-found page every unknown connector answers. */
export function notFound(ctx: ConsoleContext): ConsoleAnswer {
  return { status: 404, page: notFoundPage({ signedIn: ctx.signedIn }) };
}

/** The path of a connector's page. */
export function connectorPath(connector: Connector): string {
  return `/team/connectors/${connector.publicId}`;
}

/** Badge style of each run state: the lookup jobs' colours (waiting amber, done green, failed red). */
const runStyles: Record<ConnectorRun['status'], string> = {
  QUEUED: 'job-queued',
  RUNNING: 'job-running',
  SUCCEEDED: 'job-done',
  FAILED: 'job-failed',
};

/** A run's state as a badge: the word in lower case, the API's value in `data-run-status`. */
export function runBadge(run: ConnectorRun): Html {
  return html`<span class="${`status ${runStyles[run.status]}`}" data-run-status="${run.status}">${run.status.toLowerCase()}</span>`;
}

/** The last run in a cell or a fact: its badge, when it ended, and a failure's error; "never run" before the first. */
export function lastRunOf(run: ConnectorRun | null): Html {
  if (run === null) return html`<span class="muted">never run</span>`;
  const ended = run.completedAt === null ? '' : html` ${whenOf(run.completedAt)}`;
  const error =
    run.status === 'FAILED' && run.error !== '' ? html`<p class="problem-text run-error">${run.error}</p>` : '';
  return html`${runBadge(run)}${ended}${error}`;
}

/** Whether a run is waiting or working (Run now then adds none). */
export function isRunLive(run: ConnectorRun | null): boolean {
  return run !== null && (run.status === 'QUEUED' || run.status === 'RUNNING');
}

/** The Run now button; `back` says which page the redirect returns to. */
export function runForm(ctx: ConsoleContext, connector: Connector, back: 'list' | 'detail'): Html {
  return html`<form method="post" action="${`${connectorPath(connector)}/run`}" class="inline">${csrfField(ctx.signedIn)}<input type="hidden" name="back" value="${back}"><button type="submit">Run now<span class="visually-hidden"> ${connector.name}</span></button></form>`;
}

/** The Delete button, confirmed first. */
export function deleteForm(ctx: ConsoleContext, connector: Connector): Html {
  return html`<form method="post" action="${`${connectorPath(connector)}/delete`}" class="inline" data-confirm="${`Delete the connector ${connector.name}?`}">${csrfField(ctx.signedIn)}<button type="submit" class="danger">Delete<span class="visually-hidden"> ${connector.name}</span></button></form>`;
}

/** How each kind of asset reads on the page. */
export const assetKindLabels: Record<ConnectorAssetKind, string> = {
  zone: 'DNS zone',
  name: 'DNS name',
  hostname: 'host name',
  address: 'address',
};

function fieldItem(field: OptionField): Html {
  const need = field.isRequired ? html`<strong>required</strong>` : html`<span class="muted">optional</span>`;
  const shape = field.shape === undefined ? '' : html` <span class="muted">— must be ${field.shape.says}</span>`;
  return html`<li><code>${field.name}</code> ${need}: ${field.meaning}${shape}</li>`;
}

/**
 * The option fields of every provider (connector-options.ts, the API's rules), one fold each, so
 * the hint stays short until a provider is opened and reads at a phone's width.
 */
export function optionFieldsHint(): Html {
  return html`<div class="option-fields" id="option-fields">${connectorProviders.map((provider) => {
    const fields = connectorOptionFields[provider];
    const required = fields.filter((f) => f.isRequired).map((f) => f.name);
    return html`<details data-provider="${provider}"><summary><span class="mono">${provider}</span> ${connectorProviderNames[provider]} <span class="muted">requires ${required.join(', ')}</span></summary>
<ul class="fields">${fields.map(fieldItem)}</ul></details>`;
  })}</div>`;
}
