import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { deleteWebhook, testWebhook, updateWebhook } from '../../../core/webhooks/webhook.service.ts';
import type { WebhookBody } from '../../../core/webhooks/webhook-input.ts';
import type { Webhook, WebhookDelivery } from '../../../core/webhooks/webhook.types.ts';
import { webhookRoutes } from '../../v3/webhooks.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';
import { consoleCaller } from './console-caller.ts';
import {
  bodyOf,
  kindsText,
  formValuesOf,
  rootAssetsOf,
  storedValuesOf,
  webhookForm,
  type WebhookFormValues,
} from './team-webhook-form.ts';
import {
  assetsOf,
  deliveryMarks,
  failingOf,
  lastDeliveryOf,
  notFound,
  outcomeBadge,
  secretPanel,
  stateOf,
  targetOf,
  webhookOf,
  webhookPath,
} from './team-webhook-view.ts';
import { checkedBody, problemFor, problemFrom, whenOf, type FormProblem } from './team-shared.ts';

/**
 * One webhook of the team: what it delivers and where, its state and last delivery, and for
 * Admins "Send test event" (its outcome shown at once), enable or disable, rotate the secret
 * (the new one shown once), the edit form (PATCH's body, checked by its route's validator) and
 * delete. Every change goes through the API's core service. The full URL is shown to Admins only,
 * in the edit form: a Slack or Teams URL is itself a credential.
 */

/** What a page answered after an action shows beside the webhook. */
export interface WebhookExtra {
  /** A signing secret just made (create, rotation): shown once. */
  secret?: string;
  isRotated?: boolean;
  /** The delivery "Send test event" just made. */
  tested?: WebhookDelivery;
  /** A refused edit (its form) or action (`actions`), with the values as typed. */
  problem?: FormProblem;
  values?: WebhookFormValues;
  notice?: string;
}

function facts(webhook: Webhook, assets: string[], last: WebhookDelivery | undefined): Html {
  return html`<dl class="facts">
  <dt>Format</dt><dd>${webhook.format}</dd>
  <dt>Target</dt><dd>${targetOf(webhook)}</dd>
  ${webhook.format === 'email' ? html`<dt>Digest</dt><dd>${webhook.digestMinutes === 0 ? 'each event alone' : `every ${webhook.digestMinutes} minutes`}</dd>` : ''}
  <dt>Events</dt><dd>${kindsText(webhook.kinds)}</dd>
  <dt>Minimum severity</dt><dd>${webhook.minSeverity ?? html`<span class="muted">any</span>`}</dd>
  <dt>Assets</dt><dd>${assets.length === 0 ? html`<span class="muted">every asset</span>` : assets.join(', ')}</dd>
  <dt>State</dt><dd>${stateOf(webhook)}</dd>
  <dt>Failing since</dt><dd>${failingOf(webhook)}</dd>
  <dt>Last delivery</dt><dd>${last === undefined ? html`<span class="muted">none yet</span>` : html`${outcomeBadge(last)} ${whenOf(last.created)}`} · <a href="${`${webhookPath(webhook)}/deliveries`}">all deliveries</a></dd>
  <dt>Created</dt><dd>${whenOf(webhook.created)}; changed ${whenOf(webhook.updated)}</dd>
  <dt>Id</dt><dd class="mono">${webhook.publicId}</dd>
</dl>`;
}

/** The outcome of "Send test event", at the top of the page it answers. */
function testedPanel(delivery: WebhookDelivery): Html {
  const ok = delivery.outcome === 'succeeded';
  return html`<section class="${`panel ${ok ? 'tested-ok' : 'tested-failed'}`}" aria-labelledby="webhook-tested" role="status">
  <h2 id="webhook-tested">Test event ${ok ? 'delivered' : 'not delivered'}</h2>
  <dl class="facts">
    <dt>Outcome</dt><dd>${outcomeBadge(delivery)}${deliveryMarks(delivery)}</dd>
    <dt>Duration</dt><dd>${delivery.durationMs} ms</dd>
    ${delivery.error === null ? '' : html`<dt>Error</dt><dd class="wrap">${delivery.error}</dd>`}
    <dt>Answer</dt><dd>${delivery.responseExcerpt === null || delivery.responseExcerpt === '' ? html`<span class="muted">empty</span>` : html`<pre class="excerpt">${delivery.responseExcerpt}</pre>`}</dd>
  </dl>
</section>`;
}

function actionForms(ctx: ConsoleContext, webhook: Webhook): Html {
  const base = webhookPath(webhook);
  const form = (action: string, label: string, style = '', confirm?: string) =>
    html`<form method="post" action="${`${base}/${action}`}" class="inline"${confirm === undefined ? '' : html` data-confirm="${confirm}"`}>${csrfField(ctx.signedIn)}<button type="submit"${style === '' ? '' : html` class="${style}"`}>${label}</button></form>`;
  return html`<div class="toolbar" role="group" aria-label="Actions">
  ${form('test', 'Send test event', 'primary')}
  ${webhook.enabled ? form('disable', 'Disable') : form('enable', 'Enable')}
  ${form('rotate', 'Rotate secret', '', `Rotate the secret of ${webhook.name}? The old secret stops signing at once: the receiver needs the new one.`)}
  ${form('delete', 'Delete', 'danger', `Delete the webhook ${webhook.name} and its delivery log?`)}
</div>`;
}

/** The page of one webhook, with what an action just made or refused. */
export async function webhookPage(
  ctx: ConsoleContext,
  webhook: Webhook,
  extra: WebhookExtra = {},
  status = 200,
): Promise<ConsoleAnswer> {
  const isAdmin = roleAllows(ctx.signedIn.member.role, 'administer');
  const [assets, last] = await Promise.all([assetsOf(ctx, webhook), lastDeliveryOf(ctx, webhook)]);
  const edit = isAdmin
    ? webhookForm(ctx, {
        form: 'edit',
        action: webhookPath(webhook),
        title: 'Edit the webhook',
        submit: 'Save',
        values: extra.values ?? storedValuesOf(webhook, assets.tokens),
        problem: extra.problem,
        assets: await rootAssetsOf(ctx),
        hasEmail: ctx.deps.webhooks.channels.email !== undefined,
        folded: true,
      })
    : '';
  const notice = extra.notice ?? noticeOf(ctx.query);
  const main = html`<p><a href="/team/webhooks">← Webhooks</a></p>
<h1>${webhook.name}</h1>
${extra.secret === undefined ? '' : secretPanel(webhook, extra.secret, extra.isRotated === true)}
${extra.tested === undefined ? '' : testedPanel(extra.tested)}
${problemFor(extra.problem, 'actions')}
${isAdmin ? actionForms(ctx, webhook) : html`<p class="hint">Your role (${ctx.signedIn.member.role}) reads the webhook; an Admin changes it.</p>`}
<section class="panel" aria-labelledby="webhook-facts"><h2 id="webhook-facts">Webhook</h2>${facts(webhook, assets.names, last)}</section>
${edit}`;
  const frame = { title: webhook.name, signedIn: ctx.signedIn, section: 'team' as const };
  return { status, page: page(notice === undefined ? frame : { ...frame, notice }, main) };
}

/** Runs an update of the webhook (its route's validator, then the core); a refusal answers its page. */
async function update(
  ctx: ConsoleContext,
  webhook: Webhook,
  body: Record<string, unknown>,
  form: 'edit' | 'actions',
  values?: WebhookFormValues,
): Promise<{ webhook: Webhook; secret: string | undefined } | ConsoleAnswer> {
  try {
    const checked = checkedBody(webhookRoutes, 'updateWebhook', body, { id: webhook.publicId }) as WebhookBody;
    const updated = await updateWebhook(ctx.deps.webhooks, webhook, checked);
    return updated ?? notFound(ctx);
  } catch (err) {
    const { problem, status } = problemFrom(err, form, {});
    return webhookPage(ctx, webhook, { problem, ...(values === undefined ? {} : { values }) }, status);
  }
}

/** A handler of one webhook: not found unless it is the member's team's. */
function onWebhook(act: (ctx: ConsoleContext, webhook: Webhook) => Promise<ConsoleAnswer>) {
  return async (ctx: ConsoleContext): Promise<ConsoleAnswer> => {
    const webhook = await webhookOf(ctx);
    return webhook === undefined ? notFound(ctx) : act(ctx, webhook);
  };
}

/** Enable or disable: an update of `enabled`, then back to the page. */
function switchTo(enabled: boolean) {
  return onWebhook(async (ctx, webhook) => {
    const done = await update(ctx, webhook, { enabled }, 'actions');
    if (!('webhook' in done)) return done;
    return { redirect: withNotice(webhookPath(webhook), enabled ? 'webhook-enabled' : 'webhook-disabled') };
  });
}

/** One webhook's page and its actions: read by every role, changed by Admins. */
export const oneWebhookRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team/webhooks/:id', access: 'read', handler: onWebhook((ctx, w) => webhookPage(ctx, w)) },
  {
    method: 'POST',
    path: '/team/webhooks/:id',
    access: 'administer',
    handler: onWebhook(async (ctx, webhook) => {
      const values = formValuesOf(ctx.form);
      const done = await update(ctx, webhook, bodyOf(values, false), 'edit', values);
      if (!('webhook' in done)) return done;
      return { redirect: withNotice(webhookPath(webhook), 'webhook-saved') };
    }),
  },
  { method: 'POST', path: '/team/webhooks/:id/enable', access: 'administer', handler: switchTo(true) },
  { method: 'POST', path: '/team/webhooks/:id/disable', access: 'administer', handler: switchTo(false) },
  {
    method: 'POST',
    path: '/team/webhooks/:id/rotate',
    access: 'administer',
    handler: onWebhook(async (ctx, webhook) => {
      const done = await update(ctx, webhook, { rotate_secret: true }, 'actions');
      if (!('webhook' in done)) return done;
      return webhookPage(ctx, done.webhook, { secret: done.secret!, isRotated: true, notice: 'Secret rotated.' });
    }),
  },
  {
    method: 'POST',
    path: '/team/webhooks/:id/test',
    access: 'administer',
    handler: onWebhook(async (ctx, webhook) =>
      webhookPage(ctx, webhook, { tested: await testWebhook(ctx.deps.webhooks, webhook) }),
    ),
  },
  {
    method: 'POST',
    path: '/team/webhooks/:id/delete',
    access: 'administer',
    handler: async (ctx) => {
      const isDeleted = await deleteWebhook(ctx.deps.store, consoleCaller(ctx.signedIn, 'v3'), ctx.params['id'] ?? '');
      return isDeleted ? { redirect: withNotice('/team/webhooks', 'webhook-deleted') } : notFound(ctx);
    },
  },
];
