import { listBreaches } from '../../../core/policies/breach.service.ts';
import type { BreachStatus } from '../../../core/policies/breach.types.ts';
import { listIpAddresses } from '../../../core/surface/ip-inventory.service.ts';
import { listPorts } from '../../../core/surface/port-inventory.service.ts';
import type { PortStatus } from '../../../core/surface/port-inventory.types.ts';
import { addressIds } from '../../../core/surface/surface-record.service.ts';
import { listTechnologies } from '../../../core/surface/technology-inventory.service.ts';
import { toWireTime } from '../../../core/shared/time.ts';
import { breachRoutes } from '../../v3/breaches.routes.ts';
import { ipRoutes } from '../../v3/ips.routes.ts';
import { listFilterValues } from '../../v3/list-query.ts';
import { portRoutes } from '../../v3/ports.routes.ts';
import { technologyRoutes } from '../../v3/technologies.routes.ts';
import type { ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { parseDocuments } from './findings.page.ts';
import {
  breachBadge,
  checkboxes,
  dateField,
  filterBox,
  liveBadge,
  listPage,
  nextCursor,
  pager,
  policySeverityBadge,
  table,
  timeFields,
  v3ListView,
  v3QueryOf,
  when,
} from './surface-view.ts';

/**
 * The Surface lists: IP addresses, ports, technologies and policy breaches, each the v3 list of
 * the same name read through its route's validator (same query parameter names, same messages)
 * and the same core list service, keyset-paged with the API's cursors. Each IP links to its page
 * (its ports and technologies), each breach to its page (its evidence).
 */

interface WireIp {
  id: string;
  ip_address: string;
  ip_version: string;
  domain_name: string;
  asset_id: string;
  active: boolean;
  first_seen_at: string;
  disappeared_at: string | null;
  autonomous_system: { name: string | null; number: number | null };
  geolocation: { country_name: string | null };
}

interface WirePort {
  id: string;
  asset_id: string;
  domain_name: string;
  ip_address: string;
  port: number;
  status: string;
  first_seen_at: string;
  disappeared_at: string | null;
}

interface WireTechnology {
  id: string;
  domain_name: string;
  service_protocol: string;
  port: number;
  name: string;
  version: string | null;
  categories: string[];
  active: boolean;
  first_seen_at: string;
  disappeared_at: string | null;
}

const ipView = v3ListView(ipRoutes[0]!);
const portView = v3ListView(portRoutes[0]!, ['status', 'port']);
const technologyView = v3ListView(technologyRoutes[0]!);
const breachView = v3ListView(breachRoutes[0]!, ['status_updated_before', 'status_updated_after', 'status']);

/** An address linking to its page when the inventory has it. */
function ipLink(id: number | undefined, address: string): Html {
  return id === undefined ? html`${address}` : html`<a href="/surface/ips/${id}">${address}</a>`;
}

function count(n: number, one: string, many: string, more: boolean): string {
  return `${n} ${n === 1 ? one : many} on this page${more ? '; more follow' : ''}.`;
}

async function ipList(ctx: ConsoleContext) {
  return listPage(
    ctx,
    {
      title: 'IP addresses',
      intro: 'Every address the monitored names resolve to, in the order first seen.',
      filters: filterBox('/surface/ips', ctx.query, timeFields(ctx.query)),
    },
    async () => {
      const request = ipView.request(ipView.validate(ctx, v3QueryOf(ctx.query)));
      const page = await listIpAddresses(
        ctx.deps.store,
        ctx.signedIn.team.id,
        request.filter,
        request.after,
        request.limit,
      );
      const ips = parseDocuments<WireIp>(page.items);
      const next = page.next === undefined ? undefined : nextCursor(ctx, 'ips', page.next);
      return html`<p class="count" role="status">${count(ips.length, 'address', 'addresses', next !== undefined)}</p>
${table(
  'ips',
  'IP addresses',
  ['Address', 'Name', 'State', 'Network', 'Country', 'First seen', 'Disappeared'],
  ips.map(
    (ip) => html`<tr>
<td><a href="/surface/ips/${ip.id}" class="mono">${ip.ip_address}</a></td>
<td>${ip.domain_name}</td>
<td>${liveBadge(ip.active)}</td>
<td>${ip.autonomous_system.number === null ? html`<span class="muted">—</span>` : `AS${ip.autonomous_system.number} ${ip.autonomous_system.name ?? ''}`}</td>
<td>${ip.geolocation.country_name ?? html`<span class="muted">—</span>`}</td>
<td class="nowrap">${when(ip.first_seen_at)}</td>
<td class="nowrap">${when(ip.disappeared_at)}</td>
</tr>`,
  ),
  'No address matches these filters.',
)}
${pager('/surface/ips', ctx.query, next)}`;
    },
  );
}

async function portList(ctx: ConsoleContext) {
  const fields = html`<fieldset class="field plain"><legend>Status</legend>${checkboxes(
    'status',
    [
      { value: 'OPEN', text: 'open' },
      { value: 'CLOSED', text: 'closed' },
    ],
    ctx.query.getAll('status'),
  )}</fieldset>
<div class="field"><label for="f-port">Port numbers</label><input id="f-port" name="port" value="${ctx.query.getAll('port').join(',')}" placeholder="22,443" inputmode="numeric"></div>
${timeFields(ctx.query, 'First open')}`;
  return listPage(
    ctx,
    {
      title: 'Ports',
      intro: 'Every port monitoring found open on an address, in the order first found open.',
      filters: filterBox('/surface/ports', ctx.query, fields),
    },
    async () => {
      const input = portView.validate(ctx, v3QueryOf(ctx.query));
      const request = portView.request(input);
      const page = await listPorts(
        ctx.deps.store,
        ctx.signedIn.team.id,
        {
          ...request.filter,
          statuses: listFilterValues<PortStatus>(input, 'status'),
          ports: listFilterValues<number>(input, 'port'),
        },
        request.after,
        request.limit,
      );
      const ports = parseDocuments<WirePort>(page.items);
      const ipIds = await addressIds(
        ctx.deps.store,
        ctx.signedIn.team.id,
        ports.map((p) => p.ip_address),
      );
      const next = page.next === undefined ? undefined : nextCursor(ctx, 'ports', page.next);
      return html`<p class="count" role="status">${count(ports.length, 'port', 'ports', next !== undefined)}</p>
${table(
  'ports',
  'Ports',
  ['Port', 'Address', 'Name', 'Status', 'First open', 'Closed'],
  ports.map(
    (p) => html`<tr id="port-${p.id}">
<td><a href="/surface/ports?port=${p.port}">${p.port}</a></td>
<td class="mono">${ipLink(ipIds.get(`${p.asset_id} ${p.ip_address}`), p.ip_address)}</td>
<td>${p.domain_name}</td>
<td>${liveBadge(p.status === 'OPEN', 'open', 'closed')}</td>
<td class="nowrap">${when(p.first_seen_at)}</td>
<td class="nowrap">${when(p.disappeared_at)}</td>
</tr>`,
  ),
  'No port matches these filters.',
)}
${pager('/surface/ports', ctx.query, next)}`;
    },
  );
}

async function technologyList(ctx: ConsoleContext) {
  return listPage(
    ctx,
    {
      title: 'Technologies',
      intro: 'Every technology fingerprinting found on the hosts of monitored assets, in the order first seen.',
      filters: filterBox('/surface/technologies', ctx.query, timeFields(ctx.query)),
    },
    async () => {
      const request = technologyView.request(technologyView.validate(ctx, v3QueryOf(ctx.query)));
      const page = await listTechnologies(
        ctx.deps.store,
        ctx.signedIn.team.id,
        request.filter,
        request.after,
        request.limit,
      );
      const items = parseDocuments<WireTechnology>(page.items);
      const next = page.next === undefined ? undefined : nextCursor(ctx, 'technologies', page.next);
      return html`<p class="count" role="status">${count(items.length, 'technology', 'technologies', next !== undefined)}</p>
${table(
  'technologies',
  'Technologies',
  ['Technology', 'Version', 'Categories', 'Host', 'Port', 'State', 'First seen', 'Disappeared'],
  items.map((t) => technologyRow(t)),
  'No technology matches these filters.',
)}
${pager('/surface/technologies', ctx.query, next)}`;
    },
  );
}

/**
 * A technology in its list: the list has no filter by id, so the link narrows it to the second
 * the technology was first seen (the v3 time filters, exclusive) and points at its row.
 */
export function technologyHref(id: string | number, firstSeenAt: string): string {
  const second = Math.floor(Date.parse(firstSeenAt) / 1000) * 1000;
  const q = new URLSearchParams({
    first_seen_after: toWireTime(second - 1000),
    first_seen_before: toWireTime(second + 1000),
  });
  return `/surface/technologies?${q.toString()}#technology-${id}`;
}

/** One technology row (the technology list, an IP's page and a breach's page show them alike). */
export function technologyRow(
  t: {
    id: string | number;
    name: string;
    version: string | null;
    categories: string[];
    domain_name: string;
    service_protocol: string;
    port: number;
    active: boolean;
    first_seen_at: string;
    disappeared_at: string | null;
  },
  isLinked = false,
): Html {
  return html`<tr id="technology-${t.id}">
<td>${isLinked ? html`<a href="${technologyHref(t.id, t.first_seen_at)}">${t.name}</a>` : t.name}</td>
<td>${t.version ?? html`<span class="muted">—</span>`}</td>
<td>${t.categories.join(', ')}</td>
<td>${t.domain_name}</td>
<td class="nowrap"><a href="/surface/ports?port=${t.port}">${t.service_protocol} ${t.port}</a></td>
<td>${liveBadge(t.active)}</td>
<td class="nowrap">${when(t.first_seen_at)}</td>
<td class="nowrap">${when(t.disappeared_at)}</td>
</tr>`;
}

/** The console's words for the open and resolved breaches (the Overview links `status=open`), as the v3 values. */
function breachStatusValue(name: string, value: string): string {
  if (name !== 'status') return value;
  const word = value.trim().toLowerCase();
  return word === 'open' ? 'NEW' : word === 'resolved' ? 'RESOLVED' : value;
}

async function breachList(ctx: ConsoleContext) {
  const chosen = ctx.query.getAll('status').map((s) => breachStatusValue('status', s));
  const fields = html`<fieldset class="field plain"><legend>Status</legend>${checkboxes(
    'status',
    [
      { value: 'NEW', text: 'open' },
      { value: 'RESOLVED', text: 'resolved' },
    ],
    chosen,
  )}</fieldset>
${timeFields(ctx.query)}
${dateField('status_updated_after', 'Status changed after', ctx.query)}
${dateField('status_updated_before', 'Status changed before', ctx.query)}`;
  return listPage(
    ctx,
    {
      title: 'Policy breaches',
      intro: 'Each host whose ports or technologies break a policy, in the order first found.',
      filters: filterBox('/surface/breaches', ctx.query, fields),
    },
    async () => {
      const input = breachView.validate(ctx, v3QueryOf(ctx.query, breachStatusValue));
      const request = breachView.request(input);
      const statusUpdatedBefore = input['status_updated_before'] as Date | undefined;
      const statusUpdatedAfter = input['status_updated_after'] as Date | undefined;
      const page = await listBreaches(
        ctx.deps.store,
        ctx.signedIn.team.id,
        {
          ...request.filter,
          ...(statusUpdatedBefore === undefined ? {} : { statusUpdatedBefore }),
          ...(statusUpdatedAfter === undefined ? {} : { statusUpdatedAfter }),
          statuses: listFilterValues<BreachStatus>(input, 'status'),
        },
        request.after,
        request.limit,
      );
      const next = page.next === undefined ? undefined : nextCursor(ctx, 'breaches', page.next);
      return html`<p class="count" role="status">${count(page.items.length, 'breach', 'breaches', next !== undefined)}</p>
${table(
  'breaches',
  'Policy breaches',
  ['Severity', 'Policy', 'Host', 'Status', 'First seen', 'Status changed', 'Resolved'],
  page.items.map(
    (b) => html`<tr>
<td>${policySeverityBadge(b.severity)}</td>
<td><a href="/surface/breaches/${b.id}">${b.policyName}</a></td>
<td>${b.assetName}</td>
<td>${breachBadge(b.status)}</td>
<td class="nowrap">${when(b.firstSeenAt)}</td>
<td class="nowrap">${when(b.statusUpdatedAt)}</td>
<td class="nowrap">${when(b.disappearedAt)}</td>
</tr>`,
  ),
  'No breach matches these filters.',
)}
${pager('/surface/breaches', ctx.query, next)}`;
    },
  );
}

/** The four inventory lists. */
export const surfaceListRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/surface/ips', access: 'read', handler: ipList },
  { method: 'GET', path: '/surface/ports', access: 'read', handler: portList },
  { method: 'GET', path: '/surface/technologies', access: 'read', handler: technologyList },
  { method: 'GET', path: '/surface/breaches', access: 'read', handler: breachList },
];
