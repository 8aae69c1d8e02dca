import { openAccountLink, useAccountLink } from '../../../core/accounts/account-link.service.ts';
import type { ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { page } from '../layout.ts';
import { errorPage } from './error.page.ts';
import { visitorFormToken } from './sign-in.page.ts';
import { passwordLimits } from '../../../core/accounts/password.ts';

const gone = () =>
  errorPage(
    { title: 'Link not valid' },
    'This link was used already, has expired or is wrong. Ask an Admin of your team for a new one.',
  );

/** A member who signs in through single sign-on sets no password: the way in instead. */
function ssoInstead(email: string): Html {
  return page(
    { title: 'Sign in with single sign-on' },
    html`<section class="panel narrow">
  <h1>Sign in with single sign-on</h1>
  <p><strong>${email}</strong> signs in to the team through single sign-on: no password is needed, and this link sets none.</p>
  <p>Sign in with your organisation's account; your first sign-in accepts the invitation.</p>
  <p><a class="button primary" href="/signin/sso">Sign in with single sign-on</a></p>
</section>`,
  );
}

async function linkForm(ctx: ConsoleContext, problem?: string): Promise<{ page: Html; status?: number }> {
  // The token is in the path: no page of this flow tells another site where it came from.
  ctx.reply.header('referrer-policy', 'no-referrer');
  const opened = await openAccountLink(ctx.deps.store, ctx.params['token'] ?? '');
  if (opened === undefined) return { status: 404, page: gone() };
  const { link, member } = opened;
  if (member.authentication === 'sso') return { page: ssoInstead(member.email) };
  const isInvitation = link.purpose === 'invitation';
  const names = isInvitation
    ? html`<label for="first_name">First name <span class="optional">(optional)</span></label>
    <input id="first_name" name="first_name" autocomplete="given-name" maxlength="100" value="${ctx.form.get('first_name') ?? ''}">
    <label for="last_name">Last name <span class="optional">(optional)</span></label>
    <input id="last_name" name="last_name" autocomplete="family-name" maxlength="100" value="${ctx.form.get('last_name') ?? ''}">`
    : '';
  const twoFactor = isInvitation
    ? html`<label class="check"><input type="checkbox" name="two_factor" value="1"${ctx.form.get('two_factor') === '1' ? html` checked` : ''}> Also ask for a code from an authenticator app at sign-in (recommended)</label>`
    : '';
  return {
    ...(problem === undefined ? {} : { status: 400 }),
    page: page(
      { title: isInvitation ? 'Join your team' : 'Set a new password' },
      html`<section class="panel narrow">
  <h1>${isInvitation ? 'Join your team' : 'Set a new password'}</h1>
  <p>For <strong>${member.email}</strong>. This link works once.</p>
  ${problem === undefined ? '' : html`<p class="problem" role="alert">${problem}</p>`}
  <form method="post" class="stack">
    <input type="hidden" name="_csrf" value="${visitorFormToken(ctx)}">
    <input type="hidden" name="username" value="${member.email}" autocomplete="username">
    ${names}
    <label for="password">New password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" minlength="${passwordLimits.min}" maxlength="${passwordLimits.max}" required aria-describedby="password-rule">
    <p id="password-rule" class="hint">At least ${passwordLimits.min} characters.</p>
    <label for="confirm">Repeat the password</label>
    <input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
    ${twoFactor}
    <button type="submit" class="primary">${isInvitation ? 'Join' : 'Set password'}</button>
  </form>
</section>`,
    ),
  };
}

/** The one-time links: an invitation's first password, a reset's new one. */
export const accountLinkRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/account/link/:token', access: 'public', handler: (ctx) => linkForm(ctx) },
  {
    method: 'POST',
    path: '/account/link/:token',
    access: 'public',
    handler: async (ctx) => {
      const password = ctx.form.get('password') ?? '';
      if (password !== (ctx.form.get('confirm') ?? '')) return linkForm(ctx, 'The two passwords differ.');
      const result = await useAccountLink(ctx.deps.store, ctx.params['token'] ?? '', {
        password,
        firstName: ctx.form.get('first_name') ?? '',
        lastName: ctx.form.get('last_name') ?? '',
        isTwoFactor: ctx.form.get('two_factor') === '1',
      });
      ctx.reply.header('referrer-policy', 'no-referrer');
      if (result.kind === 'gone') {
        const opened = await openAccountLink(ctx.deps.store, ctx.params['token'] ?? '');
        if (opened?.member.authentication === 'sso') return { page: ssoInstead(opened.member.email) };
        return { status: 404, page: gone() };
      }
      if (result.kind === 'invalid') return linkForm(ctx, result.problem);
      return { redirect: '/signin?notice=password-set' };
    },
  },
];
