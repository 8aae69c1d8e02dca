import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { createWebhook, listWebhooks } from '../../../core/webhooks/webhook.service.ts';
import type { WebhookBody } from '../../../core/webhooks/webhook-input.ts';
import type { Webhook } from '../../../core/webhooks/webhook.types.ts';
import { webhookRoutes } from '../../v3/webhooks.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { consoleCaller } from './console-caller.ts';
import { webhookDeliveryRoutes } from './team-webhook-deliveries.page.ts';
import {
  bodyOf,
  formValuesOf,
  kindsText,
  rootAssetsOf,
  webhookForm,
  type WebhookFormValues,
} from './team-webhook-form.ts';
import { oneWebhookRoutes, webhookPage } from './team-webhook.page.ts';
import { failingOf, lastDeliveryOf, outcomeBadge, stateOf, targetOf, webhookPath } from './team-webhook-view.ts';
import { checkedBody, problemFrom, teamPage, whenOf, type FormProblem } from './team-shared.ts';

/**
 * The team's webhooks (Team, "Webhooks" tab): each one's name, format, where it delivers (the
 * URL's host or the recipients), kinds, state (disabled with the reason), failing since and the
 * outcome of its last delivery; and for Admins the create form, the body of POST
 * /rest/v3/webhooks checked by that route's validator and the same core service (a bad field:
 * the API's 1051 naming it). A created webhook's page shows its signing secret once.
 */

/** Most webhooks the page lists (a team has a handful; the API pages them). */
const pageLimit = 200;

/** The kinds of a webhook, short: every kind of an area reads as `area.*`. */
function kindsOf(webhook: Webhook): Html {
  return html`${kindsText(webhook.kinds)}`;
}

async function webhookRows(ctx: ConsoleContext, webhooks: Webhook[]): Promise<Html> {
  const last = await Promise.all(webhooks.map((w) => lastDeliveryOf(ctx, w)));
  return html`${webhooks.map((w, i) => {
    const delivery = last[i];
    return html`<tr data-webhook="${w.publicId}">
  <td class="wrap"><a href="${webhookPath(w)}">${w.name}</a></td>
  <td>${w.format}</td>
  <td class="wrap">${targetOf(w)}</td>
  <td class="wrap">${kindsOf(w)}${w.minSeverity === null ? '' : html`<br><span class="muted">${w.minSeverity} or above</span>`}</td>
  <td class="wrap">${stateOf(w)}</td>
  <td class="nowrap">${failingOf(w)}</td>
  <td class="nowrap">${delivery === undefined ? html`<span class="muted">none yet</span>` : html`${outcomeBadge(delivery)} ${whenOf(delivery.created)}`}<br><a href="${`${webhookPath(w)}/deliveries`}">Deliveries<span class="visually-hidden"> of ${w.name}</span></a></td>
</tr>`;
  })}`;
}

const emptyValues: WebhookFormValues = {
  name: '',
  format: 'json',
  url: '',
  recipients: '',
  digest_minutes: '0',
  min_severity: '',
  events: [],
  assets: [],
  enabled: true,
};

async function listPage(
  ctx: ConsoleContext,
  extra: { problem?: FormProblem; values?: WebhookFormValues } = {},
  status = 200,
): Promise<ConsoleAnswer> {
  const { member } = ctx.signedIn;
  const listed = await listWebhooks(ctx.deps.store, consoleCaller(ctx.signedIn, 'v3'), undefined, pageLimit);
  const isAdmin = roleAllows(member.role, 'administer');
  const table =
    listed.items.length === 0
      ? html`<p id="webhooks-empty">The team has no webhooks.</p>`
      : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Webhooks of the team"><table id="webhooks">
<thead><tr><th scope="col">Name</th><th scope="col">Format</th><th scope="col">Target</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Failing since</th><th scope="col">Last delivery</th></tr></thead>
<tbody>${await webhookRows(ctx, listed.items)}</tbody></table></div>`;
  const form = isAdmin
    ? webhookForm(ctx, {
        form: 'webhook',
        action: '/team/webhooks',
        title: 'Create a webhook',
        submit: 'Create the webhook',
        values: extra.values ?? emptyValues,
        problem: extra.problem,
        assets: await rootAssetsOf(ctx),
        hasEmail: ctx.deps.webhooks.channels.email !== undefined,
        folded: listed.items.length > 0,
      })
    : html`<p class="hint">Your role (${member.role}) reads the webhooks and their deliveries; an Admin manages them.</p>`;
  const body = html`<section aria-labelledby="webhooks-title"><h2 id="webhooks-title">Webhooks</h2>
<p class="hint">Each webhook receives the events of the kinds it subscribes to as they happen (the Events tab lists them), signed, retried for a day when its receiver fails (docs/webhooks.md).</p>
${table}${listed.next === undefined ? '' : html`<p class="hint">The first ${pageLimit} webhooks are listed; the API lists them all.</p>`}</section>
${form}`;
  return teamPage(ctx, 'webhooks', 'Webhooks', body, status);
}

async function createHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const values = formValuesOf(ctx.form);
  try {
    const body = checkedBody(webhookRoutes, 'createWebhook', bodyOf(values, true)) as WebhookBody;
    const { webhook, secret } = await createWebhook(ctx.deps.webhooks, consoleCaller(ctx.signedIn, 'v3'), body);
    return await webhookPage(ctx, webhook, { secret, notice: 'Webhook created.' });
  } catch (err) {
    const { problem, status } = problemFrom(err, 'webhook', {});
    return listPage(ctx, { problem, values }, status);
  }
}

/** The Webhooks pages: read by every role, managed by Admins. */
export const teamWebhookRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team/webhooks', access: 'read', handler: (ctx) => listPage(ctx) },
  { method: 'POST', path: '/team/webhooks', access: 'administer', handler: createHandler },
  ...oneWebhookRoutes,
  ...webhookDeliveryRoutes,
];
