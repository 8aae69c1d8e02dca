import { findWebhook, listDeliveries, webhookAssetTokens } from '../../../core/webhooks/webhook.service.ts';
import type { Webhook, WebhookDelivery } from '../../../core/webhooks/webhook.types.ts';
import type { ConsoleAnswer, ConsoleContext } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { consoleCaller } from './console-caller.ts';
import { notFoundPage } from './error.page.ts';
import { whenOf } from './team-shared.ts';

/**
 * What the Webhooks pages share: a webhook of the member's team by its id (another team's, an
 * unknown and a malformed id are alike not found), where it delivers, its state, a delivery's
 * outcome, and the panel of a secret shown once.
 */

/** The webhook of the path in the member's team, or undefined. */
export function webhookOf(ctx: ConsoleContext): Promise<Webhook | undefined> {
  return findWebhook(ctx.deps.store, consoleCaller(ctx.signedIn, 'v3'), ctx.params['id'] ?? '');
}

/** The not-found page every unknown webhook or delivery answers. */
export function notFound(ctx: ConsoleContext): ConsoleAnswer {
  return { status: 404, page: notFoundPage({ signedIn: ctx.signedIn }) };
}

/** The path of a webhook's page. */
export function webhookPath(webhook: Webhook): string {
  return `/team/webhooks/${webhook.publicId}`;
}

/** Where it delivers: the URL's host (the path may carry a token) or the e-mail recipients. */
export function targetOf(webhook: Webhook): Html {
  if (webhook.format === 'email') return html`${webhook.recipients.join(', ')}`;
  if (webhook.url === null) return html`<span class="muted">—</span>`;
  try {
    return html`<span class="mono">${new URL(webhook.url).host}</span>`;
  } catch {
    return html`<span class="muted">—</span>`;
  }
}

/** Enabled, or disabled with its reason. */
export function stateOf(webhook: Webhook): Html {
  if (webhook.enabled) return html`<span class="status state-active" data-state="enabled">enabled</span>`;
  return html`<span class="status job-failed" data-state="disabled">disabled</span>${webhook.disabledReason === null ? '' : html` <span class="reason">${webhook.disabledReason}</span>`}`;
}

/** When its current run of failures started, with how many. */
export function failingOf(webhook: Webhook): Html {
  if (webhook.failingSince === null) return html`<span class="muted">—</span>`;
  return html`${whenOf(webhook.failingSince)} <span class="muted">(${webhook.consecutiveFailures} ${webhook.consecutiveFailures === 1 ? 'failure' : 'failures'})</span>`;
}

/** A delivery's outcome as a badge, with its HTTP status when it has one. */
export function outcomeBadge(delivery: WebhookDelivery): Html {
  const style = delivery.outcome === 'succeeded' ? 'state-active' : 'job-failed';
  const status = delivery.httpStatus === null ? '' : ` ${delivery.httpStatus}`;
  return html`<span class="${`status ${style}`}" data-outcome="${delivery.outcome}">${delivery.outcome}${status}</span>`;
}

/** The latest delivery of the webhook (its outcome in the list), if any. */
export async function lastDeliveryOf(ctx: ConsoleContext, webhook: Webhook): Promise<WebhookDelivery | undefined> {
  return (await listDeliveries(ctx.deps.store, webhook, undefined, 1)).items[0];
}

/** The webhook's assets as names (its tokens for the form). */
export async function assetsOf(ctx: ConsoleContext, webhook: Webhook): Promise<{ tokens: string[]; names: string[] }> {
  const tokens = await webhookAssetTokens(ctx.deps.store, webhook);
  const assets = await Promise.all(webhook.assetIds.map((id) => ctx.deps.store.assets.findById(webhook.teamId, id)));
  return { tokens, names: assets.flatMap((a) => (a === undefined ? [] : [a.name])) };
}

/**
 * The signing secret, shown once (after a create or a rotation): how a receiver checks it, and
 * that it cannot be read again.
 */
export function secretPanel(webhook: Webhook, secret: string, isRotated: boolean): Html {
  return html`<section class="panel shown-once" aria-labelledby="webhook-secret">
  <h2 id="webhook-secret">${isRotated ? 'New signing secret' : 'Signing secret'} of ${webhook.name}</h2>
  <p>Copy it now into the receiver: it is shown only this once and cannot be read again.${isRotated ? ' The old secret no longer signs deliveries.' : ''}</p>
  <p><code class="secret" data-secret="webhook">${secret}</code></p>
  <p class="hint">Each delivery carries the <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> headers of the <a href="https://www.standardwebhooks.com/" rel="noreferrer noopener">Standard Webhooks</a> specification. To verify one, compute HMAC-SHA256 over <code>id.timestamp.body</code> (the raw body) keyed with the base64-decoded secret after <code>whsec_</code>, and compare its base64 with the <code>v1,</code> signature; refuse timestamps older than 5 minutes and deduplicate on <code>webhook-id</code>. docs/webhooks.md ("Signing") has the code, and Standard Webhooks' libraries do it for you.</p>
</section>`;
}

/** A delivery's test and redelivery marks. */
export function deliveryMarks(delivery: WebhookDelivery): Html {
  return html`${delivery.isTest ? html` <span class="status">test</span>` : ''}${delivery.isRedelivery ? html` <span class="status">redelivery</span>` : ''}`;
}
