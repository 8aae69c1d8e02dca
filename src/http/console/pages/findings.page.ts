import { listAssets } from '../../../core/assets/asset.service.ts';
import { isAppError } from '../../../core/errors/app-error.ts';
import { listGroups } from '../../../core/groups/group.service.ts';
import { listScanProfiles } from '../../../core/scans/scan-profile.service.ts';
import { scanSources, vulnerabilityStatuses } from '../../../core/vulnerabilities/vulnerability.types.ts';
import { listInputOf, vulnerabilityRoutes } from '../../v2/vulnerabilities.routes.ts';
import { compileRouteValidator } from '../../validation.ts';
import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { cachedPage } from '../../cached-page.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, trusted, type Html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { noticeOf } from '../notices.ts';
import { markActions } from './finding-actions.ts';
import { findingDetailRoutes } from './finding.page.ts';
import { severityBadge, severityOrder, statusBadge, time, type WireFinding } from './findings-view.ts';

/**
 * The findings list: the v2 list's filters as query parameters of the page (the same names, read
 * by the same validator and service as GET /rest/v2/vulnerabilities/), keyset pages in the API's
 * order (first recorded first), and a bulk form for marks and tags on the selected rows.
 */

const listRoute = vulnerabilityRoutes.find((r) => r.operationId === 'listVulnerabilities')!;
const listValidator = compileRouteValidator(listRoute);

const dayOnly = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The page's query as the v2 route reads it: `name[]` parameters as lists, and a day from the
 * form's date fields as a time of the API (a lower bound at 00:00:00Z, an upper one at 23:59:59Z:
 * the whole day in).
 */
function queryOf(search: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, raw] of search) {
    if (name === 'notice' || name === 'n' || raw === '') continue;
    let value = raw;
    if (dayOnly.test(value) && name.endsWith('_after')) value = `${value}T00:00:00Z`;
    if (dayOnly.test(value) && name.endsWith('_before')) value = `${value}T23:59:59Z`;
    if (name.endsWith('[]')) out[name] = [...((out[name] as string[] | undefined) ?? []), value];
    else out[name] = value;
  }
  return out;
}

/** A list of documents as the store renders them (comma-joined JSON objects), parsed. */
export function parseDocuments<T>(items: string | Uint8Array | Array<string | Uint8Array>): T[] {
  const parts = Array.isArray(items) ? items : [items];
  const text = parts.map((p) => (typeof p === 'string' ? p : Buffer.from(p).toString('utf8'))).join(',');
  return text.trim() === '' ? [] : (JSON.parse(`[${text}]`) as T[]);
}

/** What the filter form offers: the team's root assets, profiles, tags and groups. */
async function filterChoices(ctx: ConsoleContext) {
  const { store, markers, ports } = ctx.deps;
  const team = ctx.signedIn.team;
  const [assets, profiles, tags, groups] = await Promise.all([
    listAssets(store, markers, team, { scope: 'roots', marker: undefined, pageSize: 100 }),
    listScanProfiles({ store, ports }, team),
    store.vulnerabilities.listTags(team.id, 500),
    listGroups(store, team),
  ]);
  return {
    assets: parseDocuments<{ name: string; token: string }>(assets.items),
    profiles: profiles.map((p) => ({ token: p.profile.token, name: p.profile.name })),
    tags,
    groups: groups.map((g) => ({ token: g.token, name: g.name })),
  };
}

function checkboxes(name: string, values: readonly string[], chosen: string[]): Html {
  return html`${values.map(
    (v) =>
      html`<label class="check"><input type="checkbox" name="${name}" value="${v}"${chosen.includes(v) ? html` checked` : ''}> ${v.replace('_', ' ')}</label>`,
  )}`;
}

function select(
  id: string,
  name: string,
  label: string,
  options: Array<{ value: string; text: string }>,
  chosen: string[],
) {
  return html`<div class="field"><label for="${id}">${label}</label>
<select id="${id}" name="${name}"><option value="">Any</option>${options.map(
    (o) => html`<option value="${o.value}"${chosen.includes(o.value) ? html` selected` : ''}>${o.text}</option>`,
  )}</select></div>`;
}

function dateField(name: string, label: string, search: URLSearchParams): Html {
  return html`<div class="field"><label for="${name}">${label}</label><input id="${name}" name="${name}" type="date" value="${(search.get(name) ?? '').slice(0, 10)}"></div>`;
}

async function filterForm(ctx: ConsoleContext): Promise<Html> {
  const q = ctx.query;
  const choices = await filterChoices(ctx);
  const active = [...q.keys()].filter((k) => k !== 'marker' && k !== 'notice' && k !== 'n' && q.get(k) !== '').length;
  // Folded until a filter is set: on a phone the form would push the rows a screen down.
  return html`<details class="panel filter-box"${active > 0 ? html` open` : ''}>
<summary>Filters${active > 0 ? ` (${active} set)` : ''}</summary>
<form method="get" action="/vulnerabilities" aria-label="Filters">
<div class="filters">
  <fieldset class="field plain"><legend>Severity</legend>${checkboxes('severity[]', severityOrder, q.getAll('severity[]'))}</fieldset>
  <fieldset class="field plain"><legend>Status</legend>${checkboxes('status[]', vulnerabilityStatuses, q.getAll('status[]'))}</fieldset>
  ${select(
    'f-asset',
    'asset_token[]',
    'Asset',
    choices.assets.map((a) => ({ value: a.token, text: a.name })),
    q.getAll('asset_token[]'),
  )}
  ${select(
    'f-source',
    'scan_source[]',
    'Scan source',
    scanSources.map((s) => ({ value: s, text: s })),
    q.getAll('scan_source[]'),
  )}
  ${select(
    'f-profile',
    'scan_profile_token[]',
    'Scan profile',
    choices.profiles.map((p) => ({ value: p.token, text: p.name })),
    q.getAll('scan_profile_token[]'),
  )}
  ${select(
    'f-tag',
    'tag[]',
    'Tag',
    choices.tags.map((t) => ({ value: t.uuid, text: t.name })),
    q.getAll('tag[]'),
  )}
  ${select(
    'f-group',
    'group_token[]',
    'Group',
    choices.groups.map((g) => ({ value: g.token, text: g.name })),
    q.getAll('group_token[]'),
  )}
  ${dateField('created_after', 'First seen from', q)}
  ${dateField('created_before', 'First seen until', q)}
  ${dateField('updated_after', 'Last seen from', q)}
  ${dateField('updated_before', 'Last seen until', q)}
  <div class="actions"><button type="submit" class="primary">Filter</button><a class="button" href="/vulnerabilities">Clear</a></div>
</div>
</form>
</details>`;
}

function row(f: WireFinding, canTriage: boolean): Html {
  return html`<tr data-uuid="${f.uuid}">
${canTriage ? html`<td><input type="checkbox" name="uuid" value="${f.uuid}" form="bulk" aria-label="Select ${f.title} on ${f.host}"></td>` : ''}
<td>${severityBadge(f.severity)}</td>
<td><a href="/vulnerabilities/${f.uuid}">${f.title}</a></td>
<td>${f.host}</td>
<td>${statusBadge(f.status)}</td>
<td class="nowrap">${f.scan_source}</td>
<td class="nowrap">${time(f.created_at)}</td>
<td class="nowrap">${time(f.updated_at)}</td>
<td>${f.tags.map((t) => t.name).join(', ')}</td>
</tr>`;
}

function bulkForm(ctx: ConsoleContext): Html {
  return html`<form id="bulk" method="post" action="/vulnerabilities/bulk" class="toolbar" aria-label="Change the selected findings">
${csrfField(ctx.signedIn)}
<input type="hidden" name="return" value="${ctx.request.url}">
<span class="count"><span data-selected-count="uuid">0</span> selected</span>
${markActions.map(
  (a) => html`<button type="submit" name="action" value="${a.value}" data-needs-selection="uuid">${a.label}</button>`,
)}
<label for="bulk-tag" class="visually-hidden">Tag</label>
<input id="bulk-tag" name="tag" placeholder="Tag name" maxlength="64">
<button type="submit" name="action" value="tag" data-needs-selection="uuid">Add tag</button>
</form>`;
}

/**
 * The rows of one page of the list, the count and the pager: the list service's page as HTML. It
 * is kept in the page cache under the team's vulnerability version, the role's view (with or
 * without the selection boxes) and the query, as the API keeps its JSON pages: a page asked again
 * before anything changed is sent without reading or parsing a document.
 */
async function listSection(ctx: ConsoleContext, canTriage: boolean): Promise<string> {
  const { vulnerabilities, pageCache } = ctx.deps;
  const team = ctx.signedIn.team;
  const query = withoutNotice(ctx.query);
  const version = await vulnerabilities.version(team);
  const key = `console:findings:${team.id}:${version}:${canTriage ? 'triage' : 'read'}:${query.toString()}`;
  const section = await cachedPage(pageCache, key, async () => {
    const input = listInputOf(listValidator.query({ query: queryOf(ctx.query), deps: ctx.deps, team }));
    const result = await vulnerabilities.list(team, input, version);
    const findings = parseDocuments<WireFinding>(result.items);
    const next = new URLSearchParams(query);
    if (result.nextMarker !== undefined) next.set('marker', result.nextMarker);
    const first = new URLSearchParams(query);
    first.delete('marker');
    return Buffer.from(
      html`<p class="count" role="status">${result.total.toLocaleString('en')} ${result.total === 1 ? 'finding matches' : 'findings match'}; first recorded first.</p>
<div class="table-wrap"><table id="findings">
<caption class="visually-hidden">Findings</caption>
<thead><tr>${canTriage ? html`<th scope="col"><input type="checkbox" data-select-all="uuid" aria-label="Select all on this page"></th>` : ''}<th scope="col">Severity</th><th scope="col">Title</th><th scope="col">Host</th><th scope="col">Status</th><th scope="col">Source</th><th scope="col">First seen</th><th scope="col">Last seen</th><th scope="col">Tags</th></tr></thead>
<tbody>${findings.map((f) => row(f, canTriage))}</tbody>
</table></div>
${findings.length === 0 ? html`<p class="muted">No finding matches these filters.</p>` : ''}
<nav class="pager" aria-label="Pages">
${query.has('marker') ? html`<a class="button" href="/vulnerabilities?${first.toString()}">First page</a>` : ''}
${result.nextMarker === undefined ? '' : html`<a class="button primary" href="/vulnerabilities?${next.toString()}" rel="next">Next page</a>`}
</nav>`.text,
    );
  });
  return section.toString('utf8');
}

async function listPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const canTriage = roleAllows(ctx.signedIn.member.role, 'triage');
  let problem: string | undefined;
  let section = '';
  try {
    section = await listSection(ctx, canTriage);
  } catch (err) {
    // A filter the API refuses is shown with the API's message, above an empty list.
    if (!isAppError(err)) throw err;
    problem = err.message;
  }
  const notice = noticeOf(ctx.query);
  const body = html`<h1>Findings</h1>
${await filterForm(ctx)}
${problem === undefined ? '' : html`<p class="problem" role="alert">${problem}</p>`}
${canTriage ? bulkForm(ctx) : ''}
${trusted(section)}`;
  return {
    ...(problem === undefined ? {} : { status: 400 }),
    page: page(
      { title: 'Findings', signedIn: ctx.signedIn, section: 'findings', ...(notice === undefined ? {} : { notice }) },
      body,
    ),
  };
}

/** The query without a notice of a redirect (which changes nothing of the list). */
function withoutNotice(query: URLSearchParams): URLSearchParams {
  const q = new URLSearchParams(query);
  q.delete('notice');
  q.delete('n');
  return q;
}

/** The findings pages: the list here, one finding and the triage actions in finding.page.ts. */
export const findingRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/vulnerabilities', access: 'read', handler: listPage },
  ...findingDetailRoutes,
];
