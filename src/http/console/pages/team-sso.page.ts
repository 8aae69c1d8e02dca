import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { turnOffSso } from '../../../core/accounts/sso-members.service.ts';
import {
  readSsoSettings,
  saveSsoSettings,
  type SsoSettingsField,
} from '../../../core/accounts/sso-settings.service.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { withNotice } from '../notices.ts';
import { ssoRedirectUri } from './sso.page.ts';
import { teamPage, whenOf } from './team-shared.ts';

/**
 * The team's single sign-on (Team, "Single sign-on" tab): the OpenID Connect provider its `sso`
 * members sign in through. Every member sees whether it is set up and where; Admins set the
 * issuer URL, client id and client secret (stored encrypted, never shown back: left blank, the
 * stored one is kept) and can turn it off. The values go through the same rules as
 * `perimeter admin team sso` (sso-settings.service.ts).
 */

interface SsoProblem {
  field: SsoSettingsField;
  message: string;
  values: { issuer: string; client_id: string };
}

function invalid(problem: SsoProblem | undefined, field: SsoSettingsField): Html {
  return problem?.field === field ? html` aria-invalid="true" aria-errormessage="sso-problem"` : html``;
}

function settingsForm(
  ctx: ConsoleContext,
  current: { issuer: string; clientId: string } | undefined,
  problem: SsoProblem | undefined,
): Html {
  const issuer = problem?.values.issuer ?? current?.issuer ?? '';
  const clientId = problem?.values.client_id ?? current?.clientId ?? '';
  const secretHint =
    current === undefined
      ? 'Stored encrypted and never shown again.'
      : 'Stored encrypted and never shown. Leave it empty to keep the stored secret.';
  return html`<section class="panel" aria-labelledby="sso-settings">
  <h2 id="sso-settings">${current === undefined ? 'Set up single sign-on' : 'Change the provider'}</h2>
  ${problem === undefined ? '' : html`<p class="problem" role="alert" id="sso-problem">${problem.message}</p>`}
  <form method="post" action="/team/sso" class="stack">
    ${csrfField(ctx.signedIn)}
    <label for="sso-issuer">Issuer URL</label>
    <input id="sso-issuer" name="issuer" type="url" required autocomplete="off" spellcheck="false" value="${issuer}" aria-describedby="sso-issuer-hint"${invalid(problem, 'issuer')}>
    <p class="hint" id="sso-issuer-hint">The provider's issuer, for example https://login.example.com/realms/acme: its discovery document is read from it now.</p>
    <label for="sso-client-id">Client id</label>
    <input id="sso-client-id" name="client_id" required autocomplete="off" spellcheck="false" value="${clientId}"${invalid(problem, 'client_id')}>
    <label for="sso-client-secret">Client secret</label>
    <input id="sso-client-secret" name="client_secret" type="password" autocomplete="new-password"${current === undefined ? html` required` : ''} aria-describedby="sso-secret-hint"${invalid(problem, 'client_secret')}>
    <p class="hint" id="sso-secret-hint">${secretHint}</p>
    <button type="submit" class="primary">Save</button>
  </form>
</section>`;
}

async function ssoPage(
  ctx: ConsoleContext,
  problem?: SsoProblem,
  status = 200,
  offProblem?: string,
): Promise<ConsoleAnswer> {
  const settings = await readSsoSettings(ctx.deps.store, ctx.signedIn.team);
  const isAdmin = roleAllows(ctx.signedIn.member.role, 'administer');
  const state =
    settings === undefined
      ? html`<p>Single sign-on is not set up: members sign in with a password.</p>`
      : html`<dl class="facts">
  <dt>Issuer</dt><dd><code>${settings.issuer}</code></dd>
  <dt>Client id</dt><dd><code>${settings.clientId}</code></dd>
  <dt>Changed</dt><dd>${whenOf(settings.updated)}</dd>
</dl>`;
  const adminPart = !isAdmin
    ? html`<p class="hint">Only an Admin of the team can change single sign-on.</p>`
    : html`${settingsForm(ctx, settings, problem)}
${
  settings === undefined
    ? ''
    : html`<section class="panel" aria-labelledby="sso-off">
  <h2 id="sso-off">Turn off</h2>
  ${offProblem === undefined ? '' : html`<p class="problem" role="alert">${offProblem}</p>`}
  <p>Members whose authentication is sso cannot sign in until single sign-on is set up again. The team keeps an Admin who signs in with a password.</p>
  <form method="post" action="/team/sso/delete" class="inline" data-confirm="Turn off single sign-on for the team?">${csrfField(ctx.signedIn)}<button type="submit" class="danger">Turn off single sign-on</button></form>
</section>`
}`;
  const body = html`<section class="panel" aria-labelledby="sso-state">
  <h2 id="sso-state">Single sign-on</h2>
  <p>Members whose authentication is <code>sso</code> sign in through the team's OpenID Connect provider; the e-mail address the provider verifies must be theirs in this team.</p>
  ${state}
  ${isAdmin ? html`<p class="hint">Register this redirect URI with the provider: <code>${ssoRedirectUri(ctx)}</code></p>` : ''}
</section>
${adminPart}`;
  return teamPage(ctx, 'sso', 'Single sign-on', body, status);
}

async function saveHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const input = {
    issuer: ctx.form.get('issuer') ?? '',
    clientId: ctx.form.get('client_id') ?? '',
    clientSecret: ctx.form.get('client_secret') ?? '',
  };
  const result = await saveSsoSettings(
    { store: ctx.deps.store, box: ctx.deps.box, oidc: ctx.deps.oidc },
    ctx.signedIn.team,
    input,
  );
  if (result.kind === 'invalid')
    return ssoPage(
      ctx,
      {
        field: result.field,
        message: result.message,
        values: { issuer: input.issuer.slice(0, 4096), client_id: input.clientId.slice(0, 512) },
      },
      400,
    );
  return { redirect: withNotice('/team/sso', 'sso-saved') };
}

/** The team's single sign-on page and its two forms. */
export const teamSsoRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team/sso', access: 'read', handler: (ctx) => ssoPage(ctx) },
  { method: 'POST', path: '/team/sso', access: 'administer', handler: saveHandler },
  {
    method: 'POST',
    path: '/team/sso/delete',
    access: 'administer',
    handler: async (ctx) => {
      const off = await turnOffSso(ctx.deps.store, ctx.signedIn.team);
      if (off.kind === 'invalid') return ssoPage(ctx, undefined, 400, off.problem);
      return { redirect: withNotice('/team/sso', 'sso-removed') };
    },
  },
];
