import { surfaceCounts } from '../../../core/surface/surface-record.service.ts';
import { surfaceCountCap as countCap } from '../../../core/surface/surface-record.types.ts';
import type { ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import { surfaceDetailRoutes } from './surface-details.page.ts';
import { surfaceListRoutes } from './surface-lists.page.ts';
import { surfaceRunRoutes } from './surface-runs.page.ts';

/**
 * The Surface section: what surface monitoring found (the v3 inventory: IP addresses, ports,
 * technologies, policy breaches) and the runs that found it. This index shows how much there is
 * of each, every number a link to the list behind it.
 */

function number(n: number): string {
  return n > countCap ? `${countCap.toLocaleString('en')}+` : n.toLocaleString('en');
}

async function indexPage(ctx: ConsoleContext) {
  const c = await surfaceCounts(ctx.deps.store, ctx.signedIn.team.id);
  // The link's name is its visible text ("3 open ports"); the total follows, outside the number.
  const tile = (href: string, n: number, what: string, total?: number) =>
    html`<a class="tile" href="${href}"><span class="big">${number(n)}</span> <span class="what">${what}</span>${
      total === undefined ? '' : html`<span class="muted"> (${number(total)} in all)</span>`
    }</a>`;
  const body = html`<h1>Surface</h1>
<p class="muted">What surface monitoring found on the team’s monitored assets. Turn monitoring on in an asset’s settings.</p>
<div class="tiles">
${tile('/surface/breaches?status=open', c.breaches.open, 'open policy breaches', c.breaches.total)}
${tile('/surface/ips', c.ips.active, 'active IP addresses', c.ips.total)}
${tile('/surface/ports?status=OPEN', c.ports.open, 'open ports', c.ports.total)}
${tile('/surface/technologies', c.technologies.active, 'active technologies', c.technologies.total)}
${tile('/surface/runs', c.runs, 'monitoring runs')}
</div>
<section class="panel" aria-labelledby="lists"><h2 id="lists">Lists</h2>
<ul>
<li><a href="/surface/ips">IP addresses</a>: every address the monitored names resolve to; each links to its ports and technologies.</li>
<li><a href="/surface/ports">Ports</a>: open and closed, filtered by status and port number.</li>
<li><a href="/surface/technologies">Technologies</a>: what fingerprinting recognised on each host and port.</li>
<li><a href="/surface/breaches">Policy breaches</a>: hosts whose ports or technologies break a policy, with the evidence.</li>
<li><a href="/surface/runs">Monitoring runs</a>: each run of each asset, with what it found.</li>
</ul>
<p class="muted">Each list takes the filters of the v3 API’s list of the same name (docs/inventory-lists.md).</p>
</section>`;
  return { page: page({ title: 'Surface', signedIn: ctx.signedIn, section: 'surface' }, body) };
}

/** Every page of the Surface section. */
export const surfaceRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/surface', access: 'read', handler: indexPage },
  ...surfaceListRoutes,
  ...surfaceDetailRoutes,
  ...surfaceRunRoutes,
];
