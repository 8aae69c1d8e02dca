import { isAppError } from '../../../core/errors/app-error.ts';
import { listEvents, wireEvent } from '../../../core/events/event.service.ts';
import type { EventKind, EventRecord } from '../../../core/events/event.types.ts';
import { summarizeEvent } from '../../../core/webhooks/event-summary.ts';
import { eventRoutes } from '../../v3/events.routes.ts';
import { listFilterValues } from '../../v3/list-query.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { dateField, filterBox, nextCursor, pager, v3ListView, v3QueryOf, when } from './surface-view.ts';
import { teamPage } from './team-shared.ts';
import { kindAreas } from './team-webhook-form.ts';

/**
 * The team's event log (Team, "Events" tab): GET /rest/v3/events in a page. The query is read by
 * the v3 route's own validator (a bad kind or time is refused with the API's message), the page
 * is the same core read (listEvents), in the API's order (the order events were written) with
 * the API's cursors. Each event shows its sentence (as Slack and e-mail say it) and its data as a
 * compact definition list; a field that names a finding, an asset, a scan profile, a breach, a
 * zone lookup or a webhook links to its page.
 */

const view = v3ListView(eventRoutes[0]!, ['kind', 'occurred_after', 'occurred_before']);

/** Data fields that name a record with a page of its own: the field, the value's shape and the page. */
const recordLinks: Record<string, { shape: RegExp; href: (value: string) => string }> = {
  vulnerability_uuid: { shape: /^[0-9a-f-]{36}$/i, href: (v) => `/vulnerabilities/${v}` },
  asset_token: { shape: /^[0-9a-f]{32}$/i, href: (v) => `/assets/${v}` },
  scan_profile_token: { shape: /^[0-9a-f]{32}$/i, href: (v) => `/scans/${v}` },
  breach_id: { shape: /^\d{1,15}$/, href: (v) => `/surface/breaches/${v}` },
  lookup_token: { shape: /^[0-9a-f-]{32,36}$/i, href: (v) => `/zones/lookups/${v}` },
  webhook_id: { shape: /^[0-9a-f-]{36}$/i, href: (v) => `/team/webhooks/${v}/deliveries` },
};

/** A data value as text: strings as they are, null as a dash, anything else as compact JSON. */
function valueText(value: unknown): Html {
  if (value === null || value === undefined) return html`<span class="muted">—</span>`;
  if (typeof value === 'string') return html`${value}`;
  if (typeof value === 'number' || typeof value === 'boolean') return html`${String(value)}`;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'))
    return value.length === 0 ? html`<span class="muted">none</span>` : html`${value.join(', ')}`;
  return html`<code>${JSON.stringify(value)}</code>`;
}

/** One field of an event's data: a link when it names a record with a page, else its value. */
function dataValue(name: string, value: unknown): Html {
  const link = recordLinks[name];
  if (link !== undefined && typeof value === 'string' && link.shape.test(value))
    return html`<a href="${link.href(value.toLowerCase())}" class="mono">${value}</a>`;
  return valueText(value);
}

/** An event as a card: its sentence, kind, time and id, then its data. */
function eventItem(ctx: ConsoleContext, event: EventRecord): Html {
  const wire = wireEvent(event);
  const summary = summarizeEvent(wire, { teamName: ctx.signedIn.team.name, webhookName: '', consoleBase: '' });
  const fields = Object.entries(event.data).map(
    ([name, value]) => html`<dt>${name}</dt><dd>${dataValue(name, value)}</dd>`,
  );
  return html`<li class="event panel" id="${`event-${wire.id}`}" data-kind="${event.kind}">
<p class="event-head"><span class="status">${event.kind}</span> <span>${when(event.occurredAt)} UTC</span></p>
<p class="event-title">${summary.title}</p>
<dl class="facts compact">${fields}<dt>event id</dt><dd class="mono">${wire.id}</dd></dl>
</li>`;
}

/** The kind checkboxes, one group per area, across the filter form's width. */
function kindFields(chosen: string[]): Html {
  return html`<fieldset class="field plain kinds-filter"><legend>Kinds</legend><div class="kind-areas">${kindAreas.map(
    ([area, kinds]) =>
      html`<fieldset class="kind-area"><legend>${area.replace(/_/g, ' ')}</legend>${kinds.map(
        (k) =>
          html`<label class="check"><input type="checkbox" name="kind" value="${k}"${chosen.includes(k) ? html` checked` : ''}> ${k.slice(area.length + 1).replace(/_/g, ' ')}</label>`,
      )}</fieldset>`,
  )}</div></fieldset>`;
}

/** Links that set the time filter to a recent window (the log reads oldest first). */
function recentLinks(now: Date): Html {
  const day = (offset: number) => new Date(now.getTime() - offset * 86_400_000).toISOString().slice(0, 10);
  return html`<p class="toolbar"><span class="muted">Recent:</span>
<a class="button" href="${`/team/events?occurred_after=${day(1)}`}">Today and yesterday</a>
<a class="button" href="${`/team/events?occurred_after=${day(7)}`}">Last 7 days</a>
<a class="button" href="${`/team/events?occurred_after=${day(30)}`}">Last 30 days</a></p>`;
}

async function eventsPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const kinds = ctx.query.getAll('kind').flatMap((k) => k.split(','));
  const fields = html`${kindFields(kinds)}
${dateField('occurred_after', 'After (day)', ctx.query)}
${dateField('occurred_before', 'Before (day)', ctx.query)}`;
  let listing: Html;
  let status = 200;
  try {
    const input = view.validate(ctx, v3QueryOf(ctx.query));
    const request = view.request(input);
    const chosen = listFilterValues<EventKind>(input, 'kind');
    const after = input['occurred_after'] as Date | undefined;
    const before = input['occurred_before'] as Date | undefined;
    const page = await listEvents(
      ctx.deps.store,
      ctx.signedIn.team.id,
      {
        ...(chosen === undefined ? {} : { kinds: chosen }),
        ...(after === undefined ? {} : { occurredAfter: after }),
        ...(before === undefined ? {} : { occurredBefore: before }),
      },
      request.after?.id ?? 0,
      request.limit,
    );
    const next = page.next === undefined ? undefined : nextCursor(ctx, 'events', { firstSeenAt: 0, id: page.next });
    const n = page.items.length;
    listing = html`<p class="count" role="status">${n} ${n === 1 ? 'event' : 'events'} on this page${next === undefined ? '' : '; more follow'}.</p>
${n === 0 ? html`<p class="muted" id="events-empty">No event matches these filters.</p>` : html`<ol class="events" id="events">${page.items.map((e) => eventItem(ctx, e))}</ol>`}
${pager('/team/events', ctx.query, next)}`;
  } catch (err) {
    if (!isAppError(err)) throw err;
    listing = html`<p class="problem" role="alert" id="events-problem">${err.message}</p>`;
    status = 400;
  }
  const body = html`<section aria-labelledby="events-title"><h2 id="events-title">Event log</h2>
<p class="hint">Every change perimeter records for the team, oldest first, as <code>GET /rest/v3/events</code> and the webhooks give them (the catalogue, <code>docs/events.md</code>, lists each kind and its fields). Times are UTC.</p>
${recentLinks(new Date())}
${filterBox('/team/events', ctx.query, fields)}
${listing}</section>`;
  return teamPage(ctx, 'events', 'Events', body, status);
}

/** The event log page: every role reads it. */
export const teamEventRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team/events', access: 'read', handler: eventsPage },
];
