import { listBreaches } from '../../../core/policies/breach.service.ts';
import type { BreachStatus } from '../../../core/policies/breach.types.ts';
import { listIpAddresses } from '../../../core/surface/ip-inventory.service.ts';
import { listPorts } from '../../../core/surface/port-inventory.service.ts';
import type { PortStatus } from '../../../core/surface/port-inventory.types.ts';
import { addressIds } from '../../../core/surface/surface-record.service.ts';
import { listTechnologies } from '../../../core/surface/technology-inventory.service.ts';
import type { InventoryPage, InventoryPosition } from '../../../core/shared/inventory-list.ts';
import { toWireTime } from '../../../core/shared/time.ts';
import { breachRoutes } from '../../v3/breaches.routes.ts';
import { ipRoutes } from '../../v3/ips.routes.ts';
import { listFilterValues } from '../../v3/list-query.ts';
import { portRoutes } from '../../v3/ports.routes.ts';
import { technologyRoutes } from '../../v3/technologies.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
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
  type V3ListView,
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

/** One inventory list: its frame and filters, and how it reads and renders one page of rows. */
interface InventoryList {
  /** The list's path under /surface, its table's id and its cursors' scope. */
  name: 'ips' | 'ports' | 'technologies' | 'breaches';
  title: string;
  intro: string;
  fields: Html;
  /** How the count names one row and several. */
  noun: [one: string, many: string];
  columns: string[];
  empty: string;
  /** One page through the v3 route's validator and the core list service, rendered as rows. */
  read: () => Promise<{ rows: Html[]; next: InventoryPosition | undefined }>;
}

/** The four lists alike: the filters, then a page's count, its table and the pager. */
function inventoryList(ctx: ConsoleContext, list: InventoryList): Promise<ConsoleAnswer> {
  const path = `/surface/${list.name}`;
  return listPage(
    ctx,
    { title: list.title, intro: list.intro, filters: filterBox(path, ctx.query, list.fields) },
    async () => {
      const { rows, next: position } = await list.read();
      const next = position === undefined ? undefined : nextCursor(ctx, list.name, position);
      return html`<p class="count" role="status">${count(rows.length, ...list.noun, next !== undefined)}</p>
${table(list.name, list.title, list.columns, rows, list.empty)}
${pager(path, ctx.query, next)}`;
    },
  );
}

/** A page of a list with the time filters alone (IPs, technologies), read as its v3 route reads it. */
function timeFilteredPage(ctx: ConsoleContext, view: V3ListView, list: typeof listIpAddresses): Promise<InventoryPage> {
  const request = view.request(view.validate(ctx, v3QueryOf(ctx.query)));
  return list(ctx.deps.store, ctx.signedIn.team.id, request.filter, request.after, request.limit);
}

function ipList(ctx: ConsoleContext) {
  return inventoryList(ctx, {
    name: 'ips',
    title: 'IP addresses',
    intro: 'Every address the monitored names resolve to, in the order first seen.',
    fields: timeFields(ctx.query),
    noun: ['address', 'addresses'],
    columns: ['Address', 'Name', 'State', 'Network', 'Country', 'First seen', 'Disappeared'],
    empty: 'No address matches these filters.',
    read: async () => {
      const page = await timeFilteredPage(ctx, ipView, listIpAddresses);
      const rows = parseDocuments<WireIp>(page.items).map(
        (ip) => html`<tr>
<td><a href="/surface/ips/${ip.id}" class="mono">${ip.ip_address}</a></td>
<td>${ip.domain_name}</td>
<td>${liveBadge(ip.active)}</td>
<td>${ip.autonomous_system.number === null ? html`<span class="muted">—</span>` : `AS${ip.autonomous_system.number} ${ip.autonomous_system.name ?? ''}`}</td>
<td>${ip.geolocation.country_name ?? html`<span class="muted">—</span>`}</td>
<td class="nowrap">${when(ip.first_seen_at)}</td>
<td class="nowrap">${when(ip.disappeared_at)}</td>
</tr>`,
      );
      return { rows, next: page.next };
    },
  });
}

function portList(ctx: ConsoleContext) {
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
  return inventoryList(ctx, {
    name: 'ports',
    title: 'Ports',
    intro: 'Every port monitoring found open on an address, in the order first found open.',
    fields,
    noun: ['port', 'ports'],
    columns: ['Port', 'Address', 'Name', 'Status', 'First open', 'Closed'],
    empty: 'No port matches these filters.',
    read: async () => {
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
      const rows = ports.map(
        (p) => html`<tr id="port-${p.id}">
<td><a href="/surface/ports?port=${p.port}">${p.port}</a></td>
<td class="mono">${ipLink(ipIds.get(`${p.asset_id} ${p.ip_address}`), p.ip_address)}</td>
<td>${p.domain_name}</td>
<td>${liveBadge(p.status === 'OPEN', 'open', 'closed')}</td>
<td class="nowrap">${when(p.first_seen_at)}</td>
<td class="nowrap">${when(p.disappeared_at)}</td>
</tr>`,
      );
      return { rows, next: page.next };
    },
  });
}

function technologyList(ctx: ConsoleContext) {
  return inventoryList(ctx, {
    name: 'technologies',
    title: 'Technologies',
    intro: 'Every technology fingerprinting found on the hosts of monitored assets, in the order first seen.',
    fields: timeFields(ctx.query),
    noun: ['technology', 'technologies'],
    columns: ['Technology', 'Version', 'Categories', 'Host', 'Port', 'State', 'First seen', 'Disappeared'],
    empty: 'No technology matches these filters.',
    read: async () => {
      const page = await timeFilteredPage(ctx, technologyView, listTechnologies);
      const rows = parseDocuments<WireTechnology>(page.items).map((t) => technologyRow(t));
      return { rows, next: page.next };
    },
  });
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

function breachList(ctx: ConsoleContext) {
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
  return inventoryList(ctx, {
    name: 'breaches',
    title: 'Policy breaches',
    intro: 'Each host whose ports or technologies break a policy, in the order first found.',
    fields,
    noun: ['breach', 'breaches'],
    columns: ['Severity', 'Policy', 'Host', 'Status', 'First seen', 'Status changed', 'Resolved'],
    empty: 'No breach matches these filters.',
    read: async () => {
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
      const rows = page.items.map(
        (b) => html`<tr>
<td>${policySeverityBadge(b.severity)}</td>
<td><a href="/surface/breaches/${b.id}">${b.policyName}</a></td>
<td>${b.assetName}</td>
<td>${breachBadge(b.status)}</td>
<td class="nowrap">${when(b.firstSeenAt)}</td>
<td class="nowrap">${when(b.statusUpdatedAt)}</td>
<td class="nowrap">${when(b.disappearedAt)}</td>
</tr>`,
      );
      return { rows, next: page.next };
    },
  });
}

/** The four inventory lists. */
export const surfaceListRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/surface/ips', access: 'read', handler: ipList },
  { method: 'GET', path: '/surface/ports', access: 'read', handler: portList },
  { method: 'GET', path: '/surface/technologies', access: 'read', handler: technologyList },
  { method: 'GET', path: '/surface/breaches', access: 'read', handler: breachList },
];
