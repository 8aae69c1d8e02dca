import { roleAllows } from '../../../core/accounts/account-policy.ts';
import {
  createScanProfile,
  deleteScanProfile,
  listScanProfiles,
  type ProfileView,
} from '../../../core/scans/scan-profile.service.ts';
import { profileRoutes as v2ProfileRoutes } from '../../v2/profiles.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';
import { assetPath, problemOf, timeOf } from './assets-shared.page.ts';
import { invalidMark, namesField, refusalOf, routeBodyCheck, type FormRefusal } from './form-refusal.ts';
import { scanProfileRoutes } from './scans-profile.page.ts';
import { scanReportRoutes } from './scans-reports.page.ts';
import { scanSettingsRoutes } from './scans-settings.page.ts';
import { profileOf, profilePath, scanStatusBadge } from './scans-shared.page.ts';

/**
 * The scans section: every scan profile of the team grouped by the asset it scans, with its
 * latest scan; creating a profile (the fields of POST /rest/v2/profiles/, checked by that
 * route's own validator and created by the same core service, so every refusal is the API's
 * message) and deleting one. The profile's own page, its settings and its reports are in the
 * other scans-*.page.ts files.
 */

/** An asset as the create form offers it. */
interface AssetChoice {
  token: string;
  name: string;
  status: string;
}

/** What the create form shows again after a refusal: the API's message and the values as typed. */
interface CreateOutcome extends FormRefusal {
  values: { asset_token: string; endpoint: string; name: string };
}

/** Most assets the create form lists (the team's first ones, roots and subdomains). */
const assetChoiceLimit = 500;

/**
 * The team's assets (roots and subdomain assets; not the names DNS found under them, which are
 * no assets a profile can name: 2021), in creation order.
 */
async function assetChoices(ctx: ConsoleContext): Promise<AssetChoice[]> {
  const assets = await ctx.deps.store.assets.listFullPage({
    teamId: ctx.signedIn.team.id,
    scope: { kind: 'all' },
    afterId: undefined,
    createdAfter: undefined,
    limit: assetChoiceLimit,
  });
  return assets.map((a) => ({ token: a.token, name: a.name, status: a.status }));
}

function profileRows(views: ProfileView[]): Html {
  const rows = views.map(({ profile, latest }) => {
    const schedule = profile.schedule.frequency;
    return html`<tr>
  <td><a href="${profilePath(profile.token)}">${profile.name}</a></td>
  <td><code>${profile.endpoint}</code></td>
  <td>${scanStatusBadge(latest?.status ?? 'never')}</td>
  <td class="nowrap">${latest === undefined ? '' : timeOf(latest.ended ?? latest.started ?? latest.created)}</td>
  <td>${schedule === 'never' ? 'none' : schedule}</td>
</tr>`;
  });
  return html`<tbody>${rows}</tbody>`;
}

/** One table per asset, in the order the assets' first profiles were created. */
function groupedTables(views: ProfileView[], assets: Map<number, { name: string; token: string }>): Html {
  const byAsset = new Map<number, ProfileView[]>();
  for (const view of views) byAsset.set(view.profile.assetId, [...(byAsset.get(view.profile.assetId) ?? []), view]);
  const sections = [...byAsset].map(([assetId, list]) => {
    const asset = assets.get(assetId);
    const heading =
      asset === undefined ? html`An asset` : html`Asset <a href="${assetPath(asset.token)}">${asset.name}</a>`;
    const id = `asset-${assetId}`;
    return html`<section aria-labelledby="${id}" class="profile-group">
  <h3 id="${id}">${heading}</h3>
  <div class="table-wrap"><table aria-label="${`Scan profiles of ${asset?.name ?? 'an asset'}`}">
<thead><tr><th scope="col">Profile</th><th scope="col">Endpoint</th><th scope="col">Last scan</th><th scope="col">When</th><th scope="col">Schedule</th></tr></thead>
${profileRows(list)}
</table></div>
</section>`;
  });
  return html`${sections}`;
}

function createSection(ctx: ConsoleContext, choices: AssetChoice[], outcome: CreateOutcome | undefined): Html {
  const { member } = ctx.signedIn;
  if (!roleAllows(member.role, 'scan'))
    return html`<p class="hint">Your role (${member.role}) reads the scans; an Editor or an Admin creates profiles and starts scans.</p>`;
  const verified = choices.filter((a) => a.status === 'verified');
  if (verified.length === 0 && outcome === undefined)
    return html`<section class="panel" aria-labelledby="create"><h2 id="create">New scan profile</h2>
  <p>Only a verified asset can be scanned. <a href="/assets">Add and verify an asset</a> first.</p></section>`;
  const values = outcome?.values ?? { asset_token: '', endpoint: '', name: '' };
  // A field the refusal names is marked, and described by the problem beside its hint.
  const invalid = (field: string, hint?: string) => {
    const named = namesField(outcome, field) ? 'create-problem' : undefined;
    const ids = [hint, named].filter((id) => id !== undefined).join(' ');
    return html`${ids === '' ? '' : html` aria-describedby="${ids}"`}${invalidMark(outcome, field)}`;
  };
  const options = verified.map(
    (a) => html`<option value="${a.token}"${a.token === values.asset_token ? html` selected` : ''}>${a.name}</option>`,
  );
  return html`<section class="panel" aria-labelledby="create">
  <h2 id="create">New scan profile</h2>
  ${problemOf(outcome, 'create-problem')}
  <form method="post" action="/scans" class="stack">
    ${csrfField(ctx.signedIn)}
    <label for="asset_token">Asset</label>
    <select id="asset_token" name="asset_token" required${invalid('asset_token')}>${options}</select>
    <label for="endpoint">Endpoint</label>
    <input id="endpoint" name="endpoint" required autocomplete="off" spellcheck="false" value="${values.endpoint}"${invalid('endpoint', 'endpoint-hint')}>
    <p class="hint" id="endpoint-hint">The asset's name or a name under it, with an optional scheme and port: <code>shop.example.com</code>, <code>https://shop.example.com:8443</code>. It must answer HTTP(S) now.</p>
    <label for="profile-name">Name <span class="optional">(optional)</span></label>
    <input id="profile-name" name="name" autocomplete="off" value="${values.name}"${invalid('name', 'name-hint')}>
    <p class="hint" id="name-hint">Up to 255 characters; the endpoint when left empty.</p>
    <button type="submit" class="primary">Create the profile</button>
  </form>
</section>`;
}

async function listPage(ctx: ConsoleContext, outcome?: CreateOutcome): Promise<ConsoleAnswer> {
  const { store, ports } = ctx.deps;
  const team = ctx.signedIn.team;
  const [views, choices] = await Promise.all([listScanProfiles({ store, ports }, team), assetChoices(ctx)]);
  const assets = new Map<number, { name: string; token: string }>();
  for (const assetId of new Set(views.map((v) => v.profile.assetId))) {
    const asset = await store.assets.findById(team.id, assetId);
    if (asset !== undefined) assets.set(assetId, { name: asset.name, token: asset.token });
  }
  const notice = noticeOf(ctx.query);
  const listing =
    views.length === 0
      ? html`<p>The team has no scan profiles yet. A profile names an endpoint of a verified asset to scan.</p>`
      : groupedTables(views, assets);
  const body = html`<h1>Scans</h1>
${createSection(ctx, choices, outcome)}
<section aria-labelledby="profiles">
  <h2 id="profiles">Scan profiles by asset</h2>
  ${listing}
</section>`;
  return {
    status: outcome?.status ?? 200,
    page: page(
      { title: 'Scans', signedIn: ctx.signedIn, section: 'scans', ...(notice === undefined ? {} : { notice }) },
      body,
    ),
  };
}

/**
 * Creates a profile as v2 does: the form's fields as the JSON body of POST /rest/v2/profiles/
 * (an empty name left out, as a client would), that route's validator, then the core service.
 */
async function createHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const values = {
    asset_token: ctx.form.get('asset_token') ?? '',
    endpoint: ctx.form.get('endpoint') ?? '',
    name: ctx.form.get('name') ?? '',
  };
  const body: Record<string, string> = { asset_token: values.asset_token, endpoint: values.endpoint };
  if (values.name !== '') body['name'] = values.name;
  try {
    const checked = routeBodyCheck(v2ProfileRoutes, 'createScanProfile', body);
    const profile = await createScanProfile(
      {
        store: ctx.deps.store,
        ports: ctx.deps.ports,
        engine: ctx.deps.scanEngine,
        validationTimeoutMs: ctx.deps.config.endpointValidationTimeoutMs,
      },
      ctx.signedIn.team,
      checked() as Record<string, unknown>,
    );
    return { redirect: withNotice(profilePath(profile.token), 'profile-created') };
  } catch (err) {
    // Every rule's refusal shows on the form, an unknown asset (2014) too.
    return listPage(ctx, { ...refusalOf(err, () => true), values });
  }
}

/** Deletes a profile (a live scan is stopped first; its reports go, its findings stay), as v2's DELETE does. */
async function deleteHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const profile = await profileOf(ctx);
  await deleteScanProfile(ctx.deps.store, ctx.signedIn.team, profile.token);
  return { redirect: withNotice('/scans', 'profile-deleted') };
}

/**
 * The scan pages: read by every role; an Editor or an Admin creates profiles, starts and stops
 * scans and sets schedules ('scan'); an Admin deletes profiles and saves settings ('administer').
 */
export const scanRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/scans', access: 'read', handler: (ctx) => listPage(ctx) },
  { method: 'POST', path: '/scans', access: 'scan', handler: createHandler },
  { method: 'POST', path: '/scans/:token/delete', access: 'administer', handler: deleteHandler },
  ...scanProfileRoutes,
  ...scanSettingsRoutes,
  ...scanReportRoutes,
];
