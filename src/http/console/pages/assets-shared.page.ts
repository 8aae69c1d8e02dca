import { listAssets, requireTokenTarget } from '../../../core/assets/asset.service.ts';
import type { Asset, AssetListInput, TokenTarget } from '../../../core/assets/asset.types.ts';
import { appError } from '../../../core/errors/app-error.ts';
import { isToken } from '../../../core/shared/ids.ts';
import { presentAssetPage } from '../../v2/asset.presenter.ts';
import { ownedBody } from '../../../shared/page-render.mjs';
import type { ConsoleContext } from '../console-route.ts';
import { html, type Html } from '../html.ts';

/**
 * What the asset pages share: the asset a path's token names for the signed-in member's team,
 * the rows of a listing (the core's v2 documents, parsed), and how times and statuses show.
 */

/** An asset as a listing gives it: the v2 wire shape (src/http/v2/asset.render.ts). */
export interface ListedAsset {
  token: string;
  name: string;
  status: 'verified' | 'unverified';
  added_by: string[];
  monitored: boolean;
  created: string;
  updated: string;
  discovered: string;
  last_seen: string;
}

/** One page of a listing: its rows and the marker of the next page, if any. */
export interface ListedPage {
  assets: ListedAsset[];
  nextMarker: string | undefined;
}

/** Assets shown per page of a console listing. */
export const consolePageSize = 50;

/**
 * The asset (or the name found by DNS) that the path's `token` names for the member's team. A
 * malformed token answers the same not-found page as an unknown one or another team's (2014).
 */
export async function targetOf(ctx: ConsoleContext): Promise<TokenTarget> {
  const token = ctx.params['token'] ?? '';
  if (!isToken(token)) throw appError(2014, 'Asset does not exist', ['token']);
  return requireTokenTarget(ctx.deps.store, ctx.signedIn.team, token);
}

/** The token of the path, once targetOf accepted it. */
export function tokenOf(ctx: ConsoleContext): string {
  return ctx.params['token']!;
}

/**
 * One page of a listing of the team's assets through the core service, its rows parsed from the
 * v2 documents it renders (the lent page memory given back at once).
 */
export async function listedPage(ctx: ConsoleContext, scope: AssetListInput['scope']): Promise<ListedPage> {
  const marker = ctx.query.get('marker') ?? undefined;
  const page = await listAssets(ctx.deps.store, ctx.deps.markers, ctx.signedIn.team, {
    scope,
    marker: marker === '' ? undefined : marker,
    pageSize: consolePageSize,
  });
  const body = presentAssetPage(page, { emptyTeamIsEmptyObject: false });
  const text = typeof body === 'string' ? body : ownedBody(body).toString('utf8');
  const parsed = JSON.parse(text) as { assets?: ListedAsset[] };
  return { assets: parsed.assets ?? [], nextMarker: page.nextMarker };
}

/** The root asset of a subdomain (or of a name found by DNS), looked up within the team. */
export async function rootOf(ctx: ConsoleContext, rootId: number | null): Promise<Asset | undefined> {
  if (rootId === null) return undefined;
  return ctx.deps.store.assets.findById(ctx.signedIn.team.id, rootId);
}

/** The console path of an asset. */
export function assetPath(token: string, rest = ''): string {
  return `/assets/${token}${rest}`;
}

/** A time for people: `2026-11-28 17:04 UTC`, in a <time> element. */
export function timeOf(value: Date | string | null): Html {
  if (value === null) return html`never`;
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return html`${String(value)}`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 16)} UTC</time>`;
}

/** The verification status as a badge. */
export function statusBadge(status: string): Html {
  return html`<span class="status status-${status}">${status}</span>`;
}

/** A problem shown on a form: the rule's message, as the API words it, and its catalogue code. */
export function problemOf(problem: { code: number; message: string } | undefined, id = 'problem'): Html {
  if (problem === undefined) return html``;
  return html`<p class="problem" role="alert" id="${id}">${problem.message} <span class="code">(error ${problem.code})</span></p>`;
}
