import {
  finishSsoSignIn,
  ssoTeamsOf,
  startSsoSignIn,
  ssoSignInMaxMs,
} from '../../../core/accounts/sso-sign-in.service.ts';
import type { Team } from '../../../core/teams/team.types.ts';
import { newSecretToken } from '../../../core/accounts/session.service.ts';
import { formToken, readCookies, setFormCookie, setSessionCookie } from '../cookies.ts';
import { safeNext, type ConsoleAnswer, type ConsoleContext, type ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { page } from '../layout.ts';
import { staticUrl } from '../static-files.ts';

/**
 * Single sign-on pages: "Sign in with single sign-on" (the team's name), the hand-over to the
 * team's OpenID provider and its callback. The pending sign-in (state, nonce, PKCE verifier, the
 * team and the page to return to) is sealed with the server key into a short-lived HttpOnly
 * cookie; the callback opens it, and the core checks the provider's answer and opens a session
 * exactly as a password sign-in does (sso-sign-in.service.ts).
 */

const callbackPath = '/signin/sso/callback';

/**
 * The visitor's form token (the double-submit cookie), as sign-in.page.ts's visitorFormToken:
 * repeated here because the sign-in page imports this one (a module loop otherwise).
 */
function visitorFormToken(ctx: ConsoleContext): string {
  const current = formToken(ctx.request, ctx.secure);
  if (/^[\w-]{43}$/.test(current)) return current;
  const token = newSecretToken();
  setFormCookie(ctx.reply, token, ctx.secure);
  return token;
}

function pendingCookieName(secure: boolean): string {
  return secure ? '__Host-perimeter_sso' : 'perimeter_sso';
}

function pendingCookie(ctx: ConsoleContext, value: string, maxAgeSeconds: number): string {
  const parts = [`${pendingCookieName(ctx.secure)}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (ctx.secure) parts.push('Secure');
  parts.push(`Max-Age=${maxAgeSeconds}`);
  return parts.join('; ');
}

function appendCookie(ctx: ConsoleContext, value: string): void {
  const current = ctx.reply.getHeader('set-cookie');
  const list = current === undefined ? [] : Array.isArray(current) ? current : [String(current)];
  ctx.reply.header('set-cookie', [...list, value]);
}

/** The callback URL the provider sends the browser back to: under the public URL when one is set. */
export function ssoRedirectUri(ctx: ConsoleContext): string {
  const base =
    ctx.deps.config.publicUrl ?? `${ctx.secure ? 'https' : 'http'}://${ctx.request.headers.host ?? 'localhost'}`;
  return new URL(callbackPath, base).href;
}

function ssoForm(
  ctx: ConsoleContext,
  options: { problem?: string; team?: string; teams?: Team[]; status?: number },
): ConsoleAnswer {
  const next = safeNext(ctx.query.get('next') ?? ctx.form.get('next'));
  const teams = options.teams ?? [];
  const choice =
    teams.length > 1
      ? html`<label for="team">Team</label>
    <select id="team" name="team">${teams.map((t) => html`<option value="${t.name}">${t.name}</option>`)}</select>`
      : html`<label for="team">Team name</label>
    <input id="team" name="team" required autocomplete="organization" value="${options.team ?? ''}" aria-describedby="team-hint"${options.problem === undefined ? '' : html` aria-invalid="true"`} autofocus>
    <p class="hint" id="team-hint">The name of your team in perimeter; your administrator can tell you.</p>`;
  return {
    ...(options.status === undefined ? {} : { status: options.status }),
    page: page(
      { title: 'Sign in with single sign-on' },
      html`<section class="panel narrow">
  <h1>Sign in with single sign-on</h1>
  ${options.problem === undefined ? '' : html`<p class="problem" role="alert">${options.problem}</p>`}
  ${teams.length > 1 ? html`<p>Your address signs in to several teams. Choose one.</p>` : ''}
  <form method="post" action="/signin/sso" class="stack">
    <input type="hidden" name="_csrf" value="${visitorFormToken(ctx)}">
    <input type="hidden" name="next" value="${next}">
    ${choice}
    <button type="submit" class="primary">Continue</button>
  </form>
  <p class="hint"><a href="/signin">Sign in with a password instead</a></p>
</section>`,
    ),
  };
}

/**
 * The hand-over page: a refresh to the provider, not a redirect. The console's CSP allows forms
 * to post only to itself (form-action 'self'), and browsers apply that to the redirects that
 * follow a form; a refresh is a new navigation. The link serves a browser that does not refresh.
 */
function handOverPage(url: string): Html {
  const host = new URL(url).host;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="${`0;url=${url}`}">
<title>Signing in · perimeter</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${staticUrl('console.css')}">
</head>
<body>
<header class="top"><a class="brand" href="/">perimeter</a></header>
<main id="main">
<section class="panel narrow">
  <h1>Signing in</h1>
  <p>Your team signs in at ${host}. <a href="${url}">Continue to ${host}</a></p>
</section>
</main>
</body>
</html>`;
}

/** Where a request comes from, as a session records it and the failure counts key it. */
function clientOf(ctx: ConsoleContext): { address: string; userAgent: string } {
  return { address: ctx.request.ip, userAgent: String(ctx.request.headers['user-agent'] ?? '') };
}

/** The password form's words for a throttled client (sign-in.page.ts). */
const tooMany = (seconds: number) => `Too many failed sign-ins. Try again in ${Math.ceil(seconds / 60)} minutes.`;

/** Starts a sign-in at a team's provider: the hand-over page with the pending sign-in in its cookie. */
async function handOver(ctx: ConsoleContext, team: Team, next: string): Promise<ConsoleAnswer> {
  const started = await startSsoSignIn(
    { store: ctx.deps.store, box: ctx.deps.box, oidc: ctx.deps.oidc },
    team,
    ssoRedirectUri(ctx),
    next,
    { client: clientOf(ctx), policy: ctx.policy },
  );
  if (started.kind === 'throttled') {
    ctx.reply.header('retry-after', String(started.retryAfterSeconds));
    return ssoForm(ctx, { problem: tooMany(started.retryAfterSeconds), team: team.name, status: 429 });
  }
  if (started.kind === 'not_configured') return ssoForm(ctx, { problem: notSetUp, team: team.name, status: 400 });
  if (started.kind === 'unreachable') {
    ctx.request.log.warn({ team: team.id, reason: started.message }, 'sso: provider unreachable');
    return ssoForm(ctx, {
      problem: `Your team's identity provider could not be reached: ${started.message}. Try again later, or tell an Admin of your team.`,
      team: team.name,
      status: 502,
    });
  }
  appendCookie(ctx, pendingCookie(ctx, started.sealed, Math.floor(ssoSignInMaxMs / 1000)));
  ctx.reply.header('referrer-policy', 'no-referrer');
  return { page: handOverPage(started.url) };
}

const notSetUp = 'No team of that name signs in with single sign-on. Check the name, or sign in with a password.';

/**
 * For the password form: when the address is an `sso` member of a team with single sign-on, the
 * hand-over to that team's provider (or, for several teams, the choice); undefined otherwise.
 */
export async function ssoAnswerForEmail(ctx: ConsoleContext, email: string): Promise<ConsoleAnswer | undefined> {
  const teams = await ssoTeamsOf(ctx.deps.store, email);
  if (teams.length === 0) return undefined;
  const next = safeNext(ctx.form.get('next'));
  if (teams.length > 1) return ssoForm(ctx, { teams });
  return handOver(ctx, teams[0]!, next);
}

function refusedPage(message: string, status = 401): ConsoleAnswer {
  return {
    status,
    page: page(
      { title: 'Single sign-on refused' },
      html`<section class="panel narrow">
  <h1>Single sign-on refused</h1>
  <p class="problem" role="alert">${message}</p>
  <p>You are not signed in. <a href="/signin/sso">Start again</a> or <a href="/signin">sign in with a password</a>.</p>
</section>`,
    ),
  };
}

/** The single sign-on routes (public: they come before a session). */
export const ssoRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/signin/sso',
    access: 'public',
    handler: async (ctx) => ssoForm(ctx, {}),
  },
  {
    method: 'POST',
    path: '/signin/sso',
    access: 'public',
    handler: async (ctx) => {
      const name = (ctx.form.get('team') ?? '').trim();
      if (name === '') return ssoForm(ctx, { problem: 'Enter the name of your team.', status: 400 });
      const team = name.length > 256 ? undefined : await ctx.deps.store.teams.findByName(name);
      if (team === undefined) return ssoForm(ctx, { problem: notSetUp, team: name, status: 400 });
      return handOver(ctx, team, safeNext(ctx.form.get('next')));
    },
  },
  {
    method: 'GET',
    path: callbackPath,
    access: 'public',
    handler: async (ctx) => {
      const sealed = readCookies(ctx.request).get(pendingCookieName(ctx.secure)) ?? '';
      // The pending sign-in is used once, whatever the outcome.
      appendCookie(ctx, pendingCookie(ctx, '', 0));
      ctx.reply.header('referrer-policy', 'no-referrer');
      const redirectUri = ssoRedirectUri(ctx);
      const callbackUrl = new URL(redirectUri);
      callbackUrl.search = ctx.request.url.split('?')[1] ?? '';
      const result = await finishSsoSignIn(
        { store: ctx.deps.store, box: ctx.deps.box, oidc: ctx.deps.oidc },
        sealed,
        callbackUrl,
        redirectUri,
        clientOf(ctx),
        ctx.policy,
      );
      if (result.kind === 'throttled') {
        ctx.reply.header('retry-after', String(result.retryAfterSeconds));
        return refusedPage(tooMany(result.retryAfterSeconds), 429);
      }
      if (result.kind === 'refused') {
        ctx.request.log.info({ reason: result.message }, 'sso: sign-in refused');
        return refusedPage(result.message);
      }
      setSessionCookie(ctx.reply, result.token, ctx.secure);
      return { redirect: safeNext(result.next) };
    },
  },
];
