import { policyById } from '../../../core/policies/policy-catalogue.ts';
import { breachDetail, ipAddressDetail } from '../../../core/surface/surface-record.service.ts';
import type { PortRecord, TechnologyRecord } from '../../../core/surface/surface-record.types.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { page } from '../layout.ts';
import { notFoundPage } from './error.page.ts';
import { technologyRow } from './surface-lists.page.ts';
import { breachBadge, crumb, liveBadge, policySeverityBadge, recordId, table, when } from './surface-view.ts';

/**
 * One IP address (its ports and the technologies seen on them) and one policy breach (its
 * evidence, and the ports and technologies of its host the policy was judged on). Another team's
 * record, an unknown one and a malformed id answer the same not-found page.
 */

const notFound = (ctx: ConsoleContext): ConsoleAnswer => ({
  status: 404,
  page: notFoundPage({ signedIn: ctx.signedIn }),
});

function portRows(ports: PortRecord[], ipLink?: (address: string) => string | undefined): Html[] {
  return ports.map((p) => {
    const href = ipLink?.(p.ipAddress);
    return html`<tr id="port-${p.id}">
<td><a href="/surface/ports?port=${p.port}">${p.port}</a></td>
<td class="mono">${href === undefined ? p.ipAddress : html`<a href="${href}">${p.ipAddress}</a>`}</td>
<td>${p.domainName}</td>
<td>${p.service.name}${p.service.isTls ? ' (TLS)' : ''}${p.service.product === null ? '' : ` · ${p.service.product}${p.service.version === null ? '' : ` ${p.service.version}`}`}</td>
<td>${liveBadge(p.status === 'OPEN', 'open', 'closed')}</td>
<td class="nowrap">${when(p.firstSeenAt)}</td>
<td class="nowrap">${when(p.disappearedAt)}</td>
</tr>`;
  });
}

const portHead = ['Port', 'Address', 'Name', 'Service', 'Status', 'First open', 'Closed'];
const technologyHead = ['Technology', 'Version', 'Categories', 'Host', 'Port', 'State', 'First seen', 'Disappeared'];

function technologyRows(technologies: TechnologyRecord[]): Html[] {
  return technologies.map((t) =>
    technologyRow(
      {
        id: t.id,
        name: t.name,
        version: t.version,
        categories: t.categories,
        domain_name: t.domainName,
        service_protocol: t.serviceProtocol,
        port: t.port,
        active: t.active,
        first_seen_at: t.firstSeenAt.toISOString(),
        disappeared_at: t.disappearedAt === null ? null : t.disappearedAt.toISOString(),
      },
      true,
    ),
  );
}

async function ipPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const id = recordId(ctx.params['id']);
  if (id === undefined) return notFound(ctx);
  const detail = await ipAddressDetail(ctx.deps.store, ctx.signedIn.team.id, id);
  if (detail === undefined) return notFound(ctx);
  const { ip, ports, technologies } = detail;
  const network = ip.asNumber === null ? 'Not known' : `AS${ip.asNumber}${ip.asName === null ? '' : ` ${ip.asName}`}`;
  const place = [ip.countryName, ip.continentName].filter((p) => p !== null).join(', ');
  const body = html`${crumb('/surface/ips', 'IP addresses')}
<h1>${ip.ipAddress}</h1>
<section class="panel" aria-labelledby="about"><h2 id="about">Address</h2>
<dl class="facts">
<dt>State</dt><dd>${liveBadge(ip.active)}</dd>
<dt>Version</dt><dd>${ip.ipVersion}</dd>
<dt>Name</dt><dd>${ip.domainName}</dd>
<dt>Asset</dt><dd><a href="/assets/${ip.assetToken}">${ip.assetName}</a></dd>
<dt>Network</dt><dd>${network}</dd>
<dt>Location</dt><dd>${place === '' ? (ip.enriched ? 'Not known' : 'Not public (loopback, private or reserved)') : place}</dd>
<dt>First seen</dt><dd>${when(ip.firstSeenAt)}</dd>
<dt>Disappeared</dt><dd>${when(ip.disappearedAt)}</dd>
</dl></section>
<section class="panel" aria-labelledby="ports"><h2 id="ports">Ports (${ports.length})</h2>
${table('ip-ports', `Ports of ${ip.ipAddress}`, portHead, portRows(ports), 'No port of this address was found open.')}
</section>
<section class="panel" aria-labelledby="techs"><h2 id="techs">Technologies (${technologies.length})</h2>
${table('ip-technologies', `Technologies on ${ip.ipAddress}`, technologyHead, technologyRows(technologies), 'No technology was seen on the ports of this address.')}
</section>
<p><a href="/surface/runs?asset_token=${ip.assetToken}">Monitoring runs of ${ip.assetName}</a></p>`;
  return { page: page({ title: ip.ipAddress, signedIn: ctx.signedIn, section: 'surface' }, body) };
}

async function breachPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const id = recordId(ctx.params['id']);
  if (id === undefined) return notFound(ctx);
  const detail = await breachDetail(ctx.deps.store, ctx.signedIn.team.id, id);
  if (detail === undefined) return notFound(ctx);
  const { breach: b, ports, technologies, ipIds } = detail;
  const policy = policyById.get(b.policyId);
  const ipLink = (address: string) => {
    const ipId = ipIds.get(address);
    return ipId === undefined ? undefined : `/surface/ips/${ipId}`;
  };
  const title = `${b.policyName} on ${b.assetName}`;
  const body = html`${crumb('/surface/breaches', 'Policy breaches')}
<h1>${title}</h1>
<div class="grid2">
<section class="panel" aria-labelledby="about"><h2 id="about">Breach</h2>
<dl class="facts">
<dt>Status</dt><dd>${breachBadge(b.status)}</dd>
<dt>Severity</dt><dd>${policySeverityBadge(b.severity)}</dd>
<dt>Policy</dt><dd>${b.policyName} <span class="muted mono">${b.policyId}</span></dd>
<dt>Host</dt><dd>${b.assetName}</dd>
<dt>Asset</dt><dd><a href="/assets/${b.assetToken}">${b.rootName}</a></dd>
<dt>First seen</dt><dd>${when(b.firstSeenAt)}</dd>
<dt>Last seen</dt><dd>${when(b.lastSeenAt)}</dd>
<dt>Status changed</dt><dd>${when(b.statusUpdatedAt)}</dd>
<dt>Resolved</dt><dd>${when(b.disappearedAt)}</dd>
</dl></section>
<section class="panel" aria-labelledby="evidence"><h2 id="evidence">Evidence</h2>
<p>${b.active ? 'What breaks the policy, as the latest monitoring run found it:' : 'What broke the policy when a run last found it:'}</p>
<pre class="evidence" data-evidence>${b.evidence}</pre>
${policy === undefined ? '' : html`<p>${policy.description}</p>`}
</section>
</div>
<section class="panel" aria-labelledby="ports"><h2 id="ports">Ports of ${b.assetName} (${ports.length})</h2>
${table('breach-ports', `Ports of ${b.assetName}`, portHead, portRows(ports, ipLink), 'No port of this host is in the inventory.')}
</section>
<section class="panel" aria-labelledby="techs"><h2 id="techs">Technologies on ${b.assetName} (${technologies.length})</h2>
${table('breach-technologies', `Technologies on ${b.assetName}`, technologyHead, technologyRows(technologies), 'No technology of this host is in the inventory.')}
</section>`;
  return { page: page({ title, signedIn: ctx.signedIn, section: 'surface' }, body) };
}

/** One IP address and one policy breach. */
export const surfaceDetailRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/surface/ips/:id', access: 'read', handler: ipPage },
  { method: 'GET', path: '/surface/breaches/:id', access: 'read', handler: breachPage },
];
