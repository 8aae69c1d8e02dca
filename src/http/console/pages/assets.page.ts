import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { addAsset, deleteAsset } from '../../../core/assets/asset.service.ts';
import type { Asset, DiscoveredName } from '../../../core/assets/asset.types.ts';
import { isAppError } from '../../../core/errors/app-error.ts';
import type { Team } from '../../../core/teams/team.types.ts';
import { httpStatusOf } from '../../error-status.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';
import { assetSettingsRoutes } from './assets-settings.page.ts';
import {
  assetPath,
  listedPage,
  problemOf,
  rootOf,
  statusBadge,
  targetOf,
  timeOf,
  tokenOf,
  type ListedAsset,
  type ListedPage,
} from './assets-shared.page.ts';

/**
 * The asset pages: the team's root assets (keyset paged), adding one, an asset with its
 * subdomains and how to verify it, the ownership check on request, and deleting. Every rule is
 * the core's (the same services as v2, with the signed-in member's team); the messages are the
 * API's. The settings form is in assets-settings.page.ts.
 */

/** What the add form shows after a POST: the API's message as a problem, or as a notice with a link. */
type AddOutcome =
  | { kind: 'problem'; code: number; message: string; name: string }
  | { kind: 'subdomain'; message: string; asset: Asset };

function assetRows(assets: ListedAsset[], caption: string): Html {
  const rows = assets.map(
    (a) => html`<tr>
  <td><a href="${assetPath(a.token)}">${a.name}</a></td>
  <td>${statusBadge(a.status)}</td>
  <td>${a.monitored ? 'on' : 'off'}</td>
  <td>${a.added_by.join(', ')}</td>
  <td class="nowrap">${timeOf(a.created)}</td>
</tr>`,
  );
  return html`<div class="table-wrap"><table aria-label="${caption}">
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Monitoring</th><th scope="col">Added by</th><th scope="col">Created</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

/** The links to the first and the next page of a listing (its marker). */
function pager(path: string, listed: ListedPage, isFirst: boolean): Html {
  if (listed.nextMarker === undefined && isFirst) return html``;
  return html`<nav class="pager" aria-label="Pages">
  ${isFirst ? '' : html`<a href="${path}">First page</a>`}
  ${listed.nextMarker === undefined ? '' : html`<a href="${`${path}?marker=${encodeURIComponent(listed.nextMarker)}`}">Next page</a>`}
</nav>`;
}

function addSection(ctx: ConsoleContext, outcome: AddOutcome | undefined): Html {
  const { member } = ctx.signedIn;
  if (!roleAllows(member.role, 'scan'))
    return html`<p class="hint">Your role (${member.role}) reads the assets; an Editor or an Admin adds them.</p>`;
  const problem = outcome?.kind === 'problem' ? outcome : undefined;
  const added =
    outcome?.kind === 'subdomain'
      ? html`<p class="notice" role="status">${outcome.message}. <a href="${assetPath(outcome.asset.token)}">Open ${outcome.asset.name}</a></p>`
      : '';
  return html`<section class="panel" aria-labelledby="add">
  <h2 id="add">Add an asset</h2>
  ${problemOf(problem, 'add-problem')}${added}
  <form method="post" action="/assets" class="stack">
    ${csrfField(ctx.signedIn)}
    <label for="name">Domain, subdomain or IP address</label>
    <input id="name" name="name" required autocomplete="off" spellcheck="false" value="${problem?.name ?? ''}"
      aria-describedby="name-hint${problem === undefined ? '' : ' add-problem'}"${problem === undefined ? '' : html` aria-invalid="true"`}>
    <p class="hint" id="name-hint">For example example.com, shop.example.com or 192.0.2.10:8443 (a port is used to reach the verification file). International names in punycode.</p>
    <button type="submit" class="primary">Add</button>
  </form>
</section>`;
}

async function listPage(ctx: ConsoleContext, outcome?: AddOutcome, status = 200): Promise<ConsoleAnswer> {
  const listed = await listedPage(ctx, 'roots');
  const isFirst = (ctx.query.get('marker') ?? '') === '';
  const notice = noticeOf(ctx.query);
  const table =
    listed.assets.length === 0
      ? html`<p>${isFirst ? 'The team has no assets yet. Add a domain or an IP address to start.' : 'No more assets.'}</p>`
      : assetRows(listed.assets, 'Root assets of the team');
  const body = html`<h1>Assets</h1>
${addSection(ctx, outcome)}
<section aria-labelledby="roots">
  <h2 id="roots">Root assets</h2>
  ${table}
  ${pager('/assets', listed, isFirst)}
</section>`;
  return {
    status,
    page: page(
      { title: 'Assets', signedIn: ctx.signedIn, section: 'assets', ...(notice === undefined ? {} : { notice }) },
      body,
    ),
  };
}

async function addHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const name = ctx.form.get('name') ?? '';
  try {
    const { asset, parent } = await addAsset(ctx.deps.store, ctx.signedIn.team, name);
    ctx.deps.verification.checkInBackground(ctx.signedIn.team, asset);
    if (parent === undefined) return { redirect: withNotice(assetPath(asset.token), 'asset-added') };
    // 2019, as v2 words it: the asset was accepted, as a subdomain of a root asset of the team.
    const message = `Asset accepted as a subdomain of ${parent.name}, which is already a root asset; it appears in that asset's subdomains`;
    return listPage(ctx, { kind: 'subdomain', message, asset });
  } catch (err) {
    if (!isAppError(err)) throw err;
    return listPage(
      ctx,
      { kind: 'problem', code: err.code, message: err.message, name },
      httpStatusOf[err.code] ?? 400,
    );
  }
}

function actions(ctx: ConsoleContext, token: string, name: string): Html {
  const remove = roleAllows(ctx.signedIn.member.role, 'administer')
    ? html`<form method="post" action="${assetPath(token, '/delete')}" data-confirm="${`Delete ${name} and everything found under it?`}">${csrfField(ctx.signedIn)}<button type="submit" class="danger">Delete</button></form>`
    : '';
  return html`<div class="toolbar">
  <a class="button" href="${assetPath(token, '/settings')}">Settings</a>
  ${remove}
</div>`;
}

/** What the ownership check looks for (src/engine/verify/ownership-checker.ts): a TXT record or a file holding this. */
const proofPrefix = 'perimeter-verification=';
/** Where the ownership check reads the file (src/engine/verify/ownership-checker.ts). */
const proofPath = '/.well-known/perimeter-verification.txt';

/** The addresses the check reads the file at, in its order: https then http, on the asset's port (else 443 and 80). */
function proofUrls(asset: Asset): string[] {
  const host = asset.kind === 'ip' && asset.name.includes(':') ? `[${asset.name}]` : asset.name;
  const plan: Array<[string, number]> = [
    ['https', asset.port ?? 443],
    ['http', asset.port ?? 80],
  ];
  return plan.map(([scheme, port]) => {
    const isDefault = (scheme === 'https' && port === 443) || (scheme === 'http' && port === 80);
    return `${scheme}://${isDefault ? host : `${host}:${port}`}${proofPath}`;
  });
}

/** How to verify an asset: the TXT record and the file to publish, and the check on request. */
function verificationSection(ctx: ConsoleContext, team: Team, asset: Asset): Html {
  if (asset.status === 'verified')
    return html`<section class="panel" aria-labelledby="verify"><h2 id="verify">Ownership</h2>
  <p>Ownership is verified. A verified asset stays verified.</p></section>`;
  const proof = `${proofPrefix}${team.verificationCode}`;
  const [httpsUrl, httpUrl] = proofUrls(asset);
  const txt =
    asset.kind === 'domain'
      ? html`<h3>A DNS TXT record</h3>
  <dl class="facts">
    <dt>Name</dt><dd><code>${asset.name}</code></dd>
    <dt>Type</dt><dd>TXT</dd>
    <dt>Value</dt><dd><code class="secret" data-proof="txt">${proof}</code></dd>
  </dl>
  <h3>Or a file</h3>`
      : html`<h3>A file</h3>`;
  const check = roleAllows(ctx.signedIn.member.role, 'scan')
    ? html`<form method="post" action="${assetPath(asset.token, '/check')}">${csrfField(ctx.signedIn)}<button type="submit" class="primary">Check now</button></form>`
    : html`<p class="hint">An Editor or an Admin can run the check now.</p>`;
  return html`<section class="panel" aria-labelledby="verify">
  <h2 id="verify">How to verify</h2>
  <p>The asset is not verified yet, so it is not scanned. Publish one of these proofs, then check.</p>
  ${txt}
  <dl class="facts">
    <dt>Address</dt><dd><code>${httpsUrl}</code>, or <code>${httpUrl}</code></dd>
    <dt>Content</dt><dd><code class="secret" data-proof="file">${proof}</code></dd>
  </dl>
  <p class="hint">The file must answer 200 with this content (the code alone is accepted too); redirects are not followed. The check also runs right after an asset is added.</p>
  ${check}
</section>`;
}

function rootFact(root: Asset | undefined): Html {
  if (root === undefined) return html`<dt>Place</dt><dd>Root asset</dd>`;
  return html`<dt>Subdomain of</dt><dd><a href="${assetPath(root.token)}">${root.name}</a></dd>`;
}

function assetFacts(asset: Asset, root: Asset | undefined): Html {
  return html`<dl class="facts">
  <dt>Name</dt><dd>${asset.name}</dd>
  <dt>Kind</dt><dd>${asset.kind === 'ip' ? 'IP address' : 'Domain'}</dd>
  ${asset.port === null ? '' : html`<dt>Port</dt><dd>${asset.port}</dd>`}
  <dt>Status</dt><dd>${statusBadge(asset.status)}</dd>
  ${rootFact(root)}
  <dt>Added by</dt><dd>${asset.addedBy.join(', ')}</dd>
  <dt>Surface monitoring</dt><dd>${asset.monitored ? 'on' : 'off'}</dd>
  <dt>Created</dt><dd>${timeOf(asset.created)}</dd>
  <dt>Last seen</dt><dd>${timeOf(asset.lastSeen)}</dd>
  <dt>Verified</dt><dd>${timeOf(asset.verifiedAt)}</dd>
  <dt>Last checked</dt><dd>${timeOf(asset.checkedAt)}</dd>
</dl>`;
}

async function subdomainSection(ctx: ConsoleContext, asset: Asset): Promise<Html> {
  if (!asset.isRoot || asset.kind !== 'domain') return html``;
  const listed = await listedPage(ctx, { subdomainsOf: asset.token });
  const isFirst = (ctx.query.get('marker') ?? '') === '';
  const table =
    listed.assets.length === 0
      ? html`<p>${isFirst ? 'No subdomains yet: they are added by hand, or found by zone data and surface monitoring.' : 'No more subdomains.'}</p>`
      : assetRows(listed.assets, `Subdomains of ${asset.name}`);
  return html`<section aria-labelledby="subdomains">
  <h2 id="subdomains">Subdomains</h2>
  ${table}
  ${pager(assetPath(asset.token), listed, isFirst)}
</section>`;
}

async function assetBody(ctx: ConsoleContext, asset: Asset): Promise<Html> {
  const root = await rootOf(ctx, asset.isRoot ? null : asset.rootId);
  return html`<p class="hint"><a href="/assets">Assets</a></p>
<h1>${asset.name}</h1>
${actions(ctx, asset.token, asset.name)}
<section class="panel" aria-labelledby="facts"><h2 id="facts">Facts</h2>${assetFacts(asset, root)}</section>
${verificationSection(ctx, ctx.signedIn.team, asset)}
${await subdomainSection(ctx, asset)}`;
}

async function discoveredBody(ctx: ConsoleContext, name: DiscoveredName): Promise<Html> {
  const root = await rootOf(ctx, name.rootId);
  return html`<p class="hint"><a href="/assets">Assets</a></p>
<h1>${name.name}</h1>
${actions(ctx, name.token, name.name)}
<section class="panel" aria-labelledby="facts"><h2 id="facts">Facts</h2>
<dl class="facts">
  <dt>Name</dt><dd>${name.name}</dd>
  <dt>Kind</dt><dd>Domain, found by DNS</dd>
  <dt>Status</dt><dd>${statusBadge(name.status)}</dd>
  ${rootFact(root)}
  <dt>Found by</dt><dd>${name.sources.join(', ')}</dd>
  <dt>First seen</dt><dd>${timeOf(name.firstSeen)}</dd>
  <dt>Last seen</dt><dd>${timeOf(name.lastSeen)}</dd>
</dl>
<p class="hint">A name found under a root asset takes the root's status: verifying the root covers it. Changing its settings makes it an asset of its own.</p>
</section>`;
}

async function detailPage(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const target = await targetOf(ctx);
  const notice = noticeOf(ctx.query);
  const title = target.asset?.name ?? target.discovered!.name;
  const body =
    target.asset !== undefined ? await assetBody(ctx, target.asset) : await discoveredBody(ctx, target.discovered);
  return {
    page: page({ title, signedIn: ctx.signedIn, section: 'assets', ...(notice === undefined ? {} : { notice }) }, body),
  };
}

/**
 * Runs the ownership check now, as `perimeter admin asset check` does (the verification
 * service's check, recorded), and says whether it passed. A name found by DNS takes its root's
 * status: the root is checked.
 */
async function checkHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const target = await targetOf(ctx);
  const asset = target.asset ?? (await rootOf(ctx, target.discovered.rootId));
  if (asset === undefined) return { redirect: assetPath(tokenOf(ctx)) };
  const result = await ctx.deps.verification.check(ctx.signedIn.team, asset);
  return { redirect: withNotice(assetPath(tokenOf(ctx)), result.isVerified ? 'asset-verified' : 'asset-not-verified') };
}

async function deleteHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  await targetOf(ctx);
  await deleteAsset(ctx.deps.store, ctx.signedIn.team, tokenOf(ctx));
  return { redirect: withNotice('/assets', 'asset-deleted') };
}

/** The asset pages, the settings form included. */
export const assetRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/assets', access: 'read', handler: (ctx) => listPage(ctx) },
  { method: 'POST', path: '/assets', access: 'scan', handler: addHandler },
  { method: 'GET', path: '/assets/:token', access: 'read', handler: detailPage },
  { method: 'POST', path: '/assets/:token/check', access: 'scan', handler: checkHandler },
  { method: 'POST', path: '/assets/:token/delete', access: 'administer', handler: deleteHandler },
  ...assetSettingsRoutes,
];
