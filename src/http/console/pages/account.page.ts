import QRCode from 'qrcode';
import { startTotpEnrolment } from '../../../core/accounts/account-link.service.ts';
import { changePassword, disableTwoFactor, enableTwoFactor } from '../../../core/accounts/account.service.ts';
import { passwordLimits } from '../../../core/accounts/password.ts';
import { setSessionCookie } from '../cookies.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, trusted, type Html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { noticeOf, withNotice } from '../notices.ts';

function when(date: Date | null): string {
  return date === null ? 'never' : date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

async function twoFactorSection(ctx: ConsoleContext, problem?: string): Promise<Html> {
  const { member } = ctx.signedIn;
  const csrf = csrfField(ctx.signedIn);
  const alert = problem === undefined ? '' : html`<p class="problem" role="alert">${problem}</p>`;
  if (member.authentication === '2fa')
    return html`<section class="panel" aria-labelledby="tf">
  <h2 id="tf">Second factor</h2>
  <p>Sign-in asks for a code from your authenticator app.</p>
  ${alert}
  <form method="post" action="/account/two-factor/off" class="stack">
    ${csrf}
    <label for="off-password">Your password, to turn it off</label>
    <input id="off-password" name="password" type="password" autocomplete="current-password" required>
    <button type="submit">Turn off the second factor</button>
  </form>
</section>`;
  const isSettingUp = ctx.query.get('setup') === '1' || problem !== undefined;
  if (!isSettingUp)
    return html`<section class="panel" aria-labelledby="tf">
  <h2 id="tf">Second factor</h2>
  <p>Sign-in asks for your password only. A code from an authenticator app as well protects the account if the password leaks.</p>
  <p><a class="button" href="/account?setup=1">Set up an authenticator app</a></p>
</section>`;
  const enrolment = await startTotpEnrolment(ctx.deps.store, ctx.deps.box, member);
  if (enrolment === undefined) return html``;
  const qr = await QRCode.toString(enrolment.uri, { type: 'svg', margin: 1 });
  return html`<section class="panel" aria-labelledby="tf">
  <h2 id="tf">Set up an authenticator app</h2>
  ${alert}
  <p>Scan this code with the app, then enter the 6-digit code it shows.</p>
  <figure class="qr" aria-label="QR code of your authenticator secret">${trusted(qr)}</figure>
  <p class="hint">Cannot scan? Enter this key in the app: <code class="secret">${enrolment.secret}</code></p>
  <form method="post" action="/account/two-factor" class="stack">
    ${csrf}
    <label for="code">Code</label>
    <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required>
    <button type="submit" class="primary">Turn on</button>
  </form>
</section>`;
}

async function accountPage(
  ctx: ConsoleContext,
  problems: { password?: string; twoFactor?: string } = {},
): Promise<ConsoleAnswer> {
  const { member, team } = ctx.signedIn;
  const notice = noticeOf(ctx.query);
  const name = `${member.firstName} ${member.lastName}`.trim();
  const body = html`<h1>Your account</h1>
<section class="panel" aria-labelledby="me">
  <h2 id="me">${name === '' ? member.email : name}</h2>
  <dl class="facts">
    <dt>E-mail</dt><dd>${member.email}</dd>
    <dt>Team</dt><dd>${team.name}</dd>
    <dt>Role</dt><dd>${member.role}</dd>
    <dt>Last sign-in</dt><dd>${when(member.lastLogin)}</dd>
  </dl>
</section>
${member.authentication === 'sso' ? ssoSection(problems.password ?? problems.twoFactor) : await passwordSections(ctx, problems)}`;
  const status = problems.password !== undefined || problems.twoFactor !== undefined ? 400 : 200;
  return {
    status,
    page: page(
      {
        title: 'Your account',
        signedIn: ctx.signedIn,
        section: 'account',
        ...(notice === undefined ? {} : { notice }),
      },
      body,
    ),
  };
}

/** A single sign-on member has no password here: the identity provider keeps it. */
function ssoSection(problem: string | undefined): Html {
  return html`<section class="panel" aria-labelledby="sign-in">
  <h2 id="sign-in">Sign-in</h2>
  ${problem === undefined ? '' : html`<p class="problem" role="alert">${problem}</p>`}
  <p>You sign in through your team's single sign-on: your password and second factor are those of your identity provider. An Admin of your team chooses how members sign in.</p>
</section>`;
}

/** The second factor and the password change of a member who signs in with a password. */
async function passwordSections(
  ctx: ConsoleContext,
  problems: { password?: string; twoFactor?: string },
): Promise<Html> {
  const { member } = ctx.signedIn;
  return html`${await twoFactorSection(ctx, problems.twoFactor)}
<section class="panel" aria-labelledby="pw">
  <h2 id="pw">Change the password</h2>
  ${problems.password === undefined ? '' : html`<p class="problem" role="alert">${problems.password}</p>`}
  <form method="post" action="/account/password" class="stack">
    ${csrfField(ctx.signedIn)}
    <input type="hidden" name="username" value="${member.email}" autocomplete="username">
    <label for="current">Current password</label>
    <input id="current" name="current" type="password" autocomplete="current-password" required>
    <label for="next">New password</label>
    <input id="next" name="next" type="password" autocomplete="new-password" minlength="${passwordLimits.min}" required>
    <button type="submit">Change the password</button>
  </form>
</section>`;
}

/** The signed-in member's own account: password and second factor. */
export const accountRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/account', access: 'read', handler: (ctx) => accountPage(ctx) },
  {
    method: 'POST',
    path: '/account/password',
    access: 'read',
    handler: async (ctx) => {
      const result = await changePassword(
        ctx.deps.store,
        ctx.signedIn.member,
        { current: ctx.form.get('current') ?? '', next: ctx.form.get('next') ?? '' },
        { address: ctx.request.ip, userAgent: String(ctx.request.headers['user-agent'] ?? '') },
        ctx.policy,
      );
      if (result.kind === 'invalid') return accountPage(ctx, { password: result.problem });
      setSessionCookie(ctx.reply, result.opened!.token, ctx.secure);
      return { redirect: withNotice('/account', 'password-changed') };
    },
  },
  {
    method: 'POST',
    path: '/account/two-factor',
    access: 'read',
    handler: async (ctx) => {
      const result = await enableTwoFactor(
        ctx.deps.store,
        ctx.deps.box,
        ctx.signedIn.member,
        ctx.form.get('code') ?? '',
      );
      if (result.kind === 'invalid') return accountPage(ctx, { twoFactor: result.problem });
      return { redirect: withNotice('/account', 'two-factor-on') };
    },
  },
  {
    method: 'POST',
    path: '/account/two-factor/off',
    access: 'read',
    handler: async (ctx) => {
      const result = await disableTwoFactor(ctx.deps.store, ctx.signedIn.member, ctx.form.get('password') ?? '');
      if (result.kind === 'invalid') return accountPage(ctx, { twoFactor: result.problem });
      return { redirect: withNotice('/account', 'two-factor-off') };
    },
  },
];
