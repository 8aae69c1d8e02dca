import { isAppError } from '../../../core/errors/app-error.ts';
import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { listDeliveries, redeliver } from '../../../core/webhooks/webhook.service.ts';
import type { Webhook, WebhookDelivery } from '../../../core/webhooks/webhook.types.ts';
import { webhookRoutes } from '../../v3/webhooks.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';
import { nextCursor, pager, v3ListView, v3QueryOf, when } from './surface-view.ts';
import {
  deliveryMarks,
  notFound,
  outcomeBadge,
  stateOf,
  targetOf,
  webhookOf,
  webhookPath,
} from './team-webhook-view.ts';

/**
 * A webhook's delivery log, newest first, as GET /rest/v3/webhooks/{id}/deliveries gives it (its
 * route's validator reads the query; its cursors page it): each attempt's event, attempt number,
 * outcome, HTTP status, duration, time, error, and the receiver's answer folded in a <details>.
 * An Admin redelivers an event (the same `webhook-id`, so receivers deduplicate); the new attempt
 * is the first row after the redirect.
 */

const view = v3ListView(webhookRoutes.find((r) => r.operationId === 'listWebhookDeliveries')!);

/** Scope of the deliveries' cursors: the API's, so a cursor of one serves the other. */
const cursorScope = 'webhook-deliveries';

function eventCell(delivery: WebhookDelivery): Html {
  return html`<span class="status">${delivery.kind}</span>${deliveryMarks(delivery)}<br><span class="mono muted small">${delivery.eventPublicId}</span>`;
}

function answerCell(delivery: WebhookDelivery): Html {
  const excerpt = delivery.responseExcerpt ?? '';
  const error = delivery.error === null ? '' : html`<p class="problem-text">${delivery.error}</p>`;
  if (excerpt === '') return html`${error}${delivery.error === null ? html`<span class="muted">empty</span>` : ''}`;
  return html`${error}<details><summary>Answer (${excerpt.length} ${excerpt.length === 1 ? 'character' : 'characters'})</summary><pre class="excerpt">${excerpt}</pre></details>`;
}

function deliveryRows(ctx: ConsoleContext, webhook: Webhook, deliveries: WebhookDelivery[], isAdmin: boolean): Html[] {
  return deliveries.map(
    (d) => html`<tr data-delivery="${d.publicId}">
<td class="nowrap" data-label="Time">${when(d.created)}</td>
<td data-label="Event">${eventCell(d)}</td>
<td data-label="Attempt">${d.attempt}</td>
<td class="nowrap" data-label="Outcome">${outcomeBadge(d)}</td>
<td data-label="HTTP">${d.httpStatus ?? html`<span class="muted">—</span>`}</td>
<td class="nowrap" data-label="Duration">${d.durationMs} ms</td>
<td class="answer" data-label="Answer">${answerCell(d)}</td>
${isAdmin ? html`<td data-label="Action"><form method="post" action="${`${webhookPath(webhook)}/deliveries/${d.publicId}/redeliver`}" class="inline">${csrfField(ctx.signedIn)}<button type="submit">Redeliver<span class="visually-hidden"> ${d.kind} ${d.eventPublicId}</span></button></form></td>` : ''}
</tr>`,
  );
}

async function deliveriesPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const webhook = await webhookOf(ctx);
  if (webhook === undefined) return notFound(ctx);
  const isAdmin = roleAllows(ctx.signedIn.member.role, 'administer');
  const path = `${webhookPath(webhook)}/deliveries`;
  let listing: Html;
  let status = 200;
  try {
    const request = view.request(view.validate(ctx, v3QueryOf(ctx.query)));
    const found = await listDeliveries(ctx.deps.store, webhook, request.after?.id, request.limit);
    const next =
      found.next === undefined ? undefined : nextCursor(ctx, cursorScope, { firstSeenAt: 0, id: found.next });
    const head = [
      'Time (UTC)',
      'Event',
      'Attempt',
      'Outcome',
      'HTTP',
      'Duration',
      'Answer',
      ...(isAdmin ? ['Action'] : []),
    ];
    listing =
      found.items.length === 0
        ? html`<p class="muted" id="deliveries-empty">No delivery yet: events are delivered as they happen, and "Send test event" makes one now.</p>`
        : html`<div class="table-wrap stacks" tabindex="0" role="region" aria-label="Deliveries"><table id="deliveries">
<caption class="visually-hidden">Deliveries of ${webhook.name}, newest first</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${deliveryRows(ctx, webhook, found.items, isAdmin)}</tbody></table></div>
${pager(path, ctx.query, next)}`;
  } catch (err) {
    if (!isAppError(err)) throw err;
    listing = html`<p class="problem" role="alert">${err.message}</p>`;
    status = 400;
  }
  const main = html`<p><a href="${webhookPath(webhook)}">← ${webhook.name}</a></p>
<h1>Deliveries of ${webhook.name}</h1>
<p>${webhook.format} to ${targetOf(webhook)} · ${stateOf(webhook)}</p>
<p class="hint">Every attempt, newest first, kept 30 days. A failed delivery is retried with growing waits for a day; redelivering sends the event again now under the same <code>webhook-id</code>.</p>
${listing}`;
  const notice = noticeOf(ctx.query);
  const frame = { title: `Deliveries of ${webhook.name}`, signedIn: ctx.signedIn, section: 'team' as const };
  return { status, page: page(notice === undefined ? frame : { ...frame, notice }, main) };
}

async function redeliverHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const webhook = await webhookOf(ctx);
  if (webhook === undefined) return notFound(ctx);
  const delivery = await redeliver(ctx.deps.webhooks, webhook, ctx.params['delivery'] ?? '');
  if (delivery === undefined) return notFound(ctx);
  return { redirect: withNotice(`${webhookPath(webhook)}/deliveries`, 'webhook-redelivered') };
}

/** The delivery log (every role) and redelivery (Admins). */
export const webhookDeliveryRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team/webhooks/:id/deliveries', access: 'read', handler: deliveriesPage },
  {
    method: 'POST',
    path: '/team/webhooks/:id/deliveries/:delivery/redeliver',
    access: 'administer',
    handler: redeliverHandler,
  },
];
