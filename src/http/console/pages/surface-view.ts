import { isAppError } from '../../../core/errors/app-error.ts';
import type { InventoryPosition } from '../../../core/shared/inventory-list.ts';
import type { RouteDef } from '../../route.ts';
import { compileRouteValidator } from '../../validation.ts';
import { encodeCursor, v3ListRequest, type V3ListRequest } from '../../v3/list-query.ts';
import type { ConsoleAnswer, ConsoleContext } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { page } from '../layout.ts';

/**
 * What the Surface pages share: the v3 list's query read by the v3 route's own validator (so a
 * bad filter is refused with the API's message), the API's keyset cursors with next and previous
 * links, the time filter fields, and the badges of live and gone records.
 */

/** Earlier cursors kept for "Previous page" links; past this, "First page" goes back further. */
const maxTrail = 20;

/** Query parameters of the console only (never handed to the API's validator). */
const consoleOnly = new Set(['back', 'notice', 'n']);

const dayOnly = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The page's query as the v3 route reads it: repeated names as lists, and a day from the form's
 * date fields as a time of the API (a lower bound at 00:00:00Z, an upper one at 23:59:59Z).
 */
export function v3QueryOf(
  search: URLSearchParams,
  rename: (name: string, value: string) => string = (_n, v) => v,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, raw] of search) {
    if (consoleOnly.has(name) || raw === '') continue;
    let value = rename(name, raw);
    if (dayOnly.test(value) && name.endsWith('_after')) value = `${value}T00:00:00Z`;
    if (dayOnly.test(value) && name.endsWith('_before')) value = `${value}T23:59:59Z`;
    const before = out[name];
    out[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return out;
}

/** A v3 list route's validator and how the console reads a page of it. */
export interface V3ListView {
  validate(ctx: ConsoleContext, query: Record<string, string | string[]>): Record<string, unknown>;
  request(input: Record<string, unknown>): V3ListRequest;
}

/** The view of one v3 list route: its compiled validator and its own filters, in `next` order. */
export function v3ListView(route: RouteDef, own: string[] = []): V3ListView {
  const validator = compileRouteValidator(route);
  return {
    validate: (ctx, query) => validator.query({ query, deps: ctx.deps, team: ctx.signedIn.team }),
    request: (input) => v3ListRequest(input, own),
  };
}

/** The cursor of the page after `position` of the v3 list `scope`: the API's own cursor. */
export function nextCursor(ctx: ConsoleContext, scope: string, position: InventoryPosition): string {
  return encodeCursor({ deps: ctx.deps, team: ctx.signedIn.team }, scope, position);
}

/**
 * The pager of a keyset list. Cursors go forward only, so the page carries the cursors of the
 * pages before it (`back`, comma-separated, `-` for the first page): "Previous page" pops one.
 */
export function pager(path: string, query: URLSearchParams, next: string | undefined): Html {
  const trail = (query.get('back') ?? '').split(',').filter((c) => c !== '');
  const current = query.get('cursor') ?? '';
  const base = new URLSearchParams(query);
  for (const name of ['cursor', 'back', 'notice', 'n']) base.delete(name);
  const link = (cursor: string, back: string[]) => {
    const q = new URLSearchParams(base);
    if (cursor !== '' && cursor !== '-') q.set('cursor', cursor);
    if (back.length > 0) q.set('back', back.join(','));
    const text = q.toString();
    return text === '' ? path : `${path}?${text}`;
  };
  const links: Html[] = [];
  if (current !== '') {
    // The page after the first goes back with "Previous page" alone: it is the first page.
    const previous = trail[trail.length - 1];
    if (previous !== '-') links.push(html`<a class="button" href="${link('', [])}">First page</a>`);
    if (previous !== undefined)
      links.push(html`<a class="button" href="${link(previous, trail.slice(0, -1))}" rel="prev">Previous page</a>`);
  }
  if (next !== undefined)
    links.push(
      html`<a class="button primary" href="${link(next, [...trail, current === '' ? '-' : current].slice(-maxTrail))}" rel="next">Next page</a>`,
    );
  return links.length === 0 ? html`` : html`<nav class="pager" aria-label="Pages">${links}</nav>`;
}

/** A time as `YYYY-MM-DD HH:MM` (UTC) in a <time> element; a dash when there is none. */
export function when(time: Date | string | null | undefined): Html {
  if (time === null || time === undefined) return html`<span class="muted">—</span>`;
  const iso = typeof time === 'string' ? time : time.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')}</time>`;
}

/** Live or gone: the badge of an inventory record (an IP, a technology). */
export function liveBadge(active: boolean, live = 'active', gone = 'disappeared'): Html {
  return active
    ? html`<span class="status status-unverified">${live}</span>`
    : html`<span class="status">${gone}</span>`;
}

/** A breach's status: NEW (open) stands out, RESOLVED is quiet. */
export function breachBadge(status: string): Html {
  return status === 'NEW'
    ? html`<span class="status status-regression">open (NEW)</span>`
    : html`<span class="status status-fixed">resolved</span>`;
}

/** A policy severity (`HIGH`) as the findings' severity badge. */
export function policySeverityBadge(severity: string): Html {
  return html`<span class="sev sev-${severity.toLowerCase()}">${severity.toLowerCase()}</span>`;
}

/** A date field of a filter form, holding the day of a time filter. */
export function dateField(name: string, label: string, search: URLSearchParams): Html {
  return html`<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="date" value="${(search.get(name) ?? '').slice(0, 10)}"></div>`;
}

/** The four time filters every v3 list has. */
export function timeFields(search: URLSearchParams, firstSeen = 'First seen'): Html {
  return html`${dateField('first_seen_after', `${firstSeen} after`, search)}
${dateField('first_seen_before', `${firstSeen} before`, search)}
${dateField('disappeared_after', 'Disappeared after', search)}
${dateField('disappeared_before', 'Disappeared before', search)}`;
}

/** Checkboxes of a list filter (`status`), ticked as the query has them. */
export function checkboxes(
  name: string,
  values: ReadonlyArray<{ value: string; text: string }>,
  chosen: string[],
): Html {
  return html`${values.map(
    (v) =>
      html`<label class="check"><input type="checkbox" name="${name}" value="${v.value}"${chosen.includes(v.value) ? html` checked` : ''}> ${v.text}</label>`,
  )}`;
}

/** The filter form of a list, folded until a filter is set (on a phone it would push the rows down). */
export function filterBox(path: string, search: URLSearchParams, fields: Html): Html {
  const active = [...new Set(search.keys())].filter(
    (k) => !['cursor', 'back', 'limit', 'notice', 'n'].includes(k) && search.get(k) !== '',
  ).length;
  return html`<details class="panel filter-box"${active > 0 ? html` open` : ''}>
<summary>Filters${active > 0 ? ` (${active} set)` : ''}</summary>
<form method="get" action="${path}" aria-label="Filters">
<div class="filters">
${fields}
<div class="actions"><button type="submit" class="primary">Filter</button><a class="button" href="${path}">Clear</a></div>
</div>
</form>
</details>`;
}

/** The section's breadcrumb: back to the Surface index, or to a list. */
export function crumb(href: string, text: string): Html {
  return html`<p><a href="${href}">← ${text}</a></p>`;
}

/**
 * A list page: the heading, the filters, then the rows the builder renders; a filter the API
 * refuses is shown with the API's message above no rows, answered 400.
 */
export async function listPage(
  ctx: ConsoleContext,
  frame: { title: string; intro: Html | string; filters: Html },
  rows: () => Promise<Html>,
): Promise<ConsoleAnswer> {
  let problem: string | undefined;
  let section: Html = html``;
  try {
    section = await rows();
  } catch (err) {
    if (!isAppError(err)) throw err;
    problem = err.message;
  }
  const body = html`${crumb('/surface', 'Surface')}
<h1>${frame.title}</h1>
<p class="muted">${frame.intro}</p>
${frame.filters}
${problem === undefined ? '' : html`<p class="problem" role="alert">${problem}</p>`}
${section}`;
  return {
    ...(problem === undefined ? {} : { status: 400 }),
    page: page({ title: frame.title, signedIn: ctx.signedIn, section: 'surface' }, body),
  };
}

/**
 * A table with a caption for screen readers, in the wrapper that scrolls sideways on a narrow
 * screen (focusable, so a keyboard can scroll it too); no table at all when there are no rows.
 */
export function table(id: string, caption: string, head: string[], rows: Html[], empty: string): Html {
  if (rows.length === 0) return html`<p class="muted" id="${id}-empty">${empty}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table id="${id}">
<caption class="visually-hidden">${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

/** A record id from the path: digits only (a malformed id is a record that does not exist). */
export function recordId(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
