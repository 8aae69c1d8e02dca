import QRCode from 'qrcode';
import { passSecondFactor, signIn } from '../../../core/accounts/sign-in.service.ts';
import { endSession, newSecretToken, readSession } from '../../../core/accounts/session.service.ts';
import { startTotpEnrolment } from '../../../core/accounts/account-link.service.ts';
import { clearSessionCookie, formToken, sessionToken, setFormCookie, setSessionCookie } from '../cookies.ts';
import { safeNext, type ConsoleContext, type ConsoleRoute } from '../console-route.ts';
import { html, trusted, type Html } from '../html.ts';
import { page } from '../layout.ts';
import { noticeOf } from '../notices.ts';
import { ssoAnswerForEmail } from './sso.page.ts';

/** The form token of a visitor without a session: the one its cookie holds, else a new one set now. */
export function visitorFormToken(ctx: Pick<ConsoleContext, 'request' | 'reply' | 'secure'>): string {
  const current = formToken(ctx.request, ctx.secure);
  if (/^[\w-]{43}$/.test(current)) return current;
  const token = newSecretToken();
  setFormCookie(ctx.reply, token, ctx.secure);
  return token;
}

function signInForm(ctx: ConsoleContext, problem?: string, email = ''): Html {
  const next = safeNext(ctx.query.get('next') ?? ctx.form.get('next'));
  const notice = noticeOf(ctx.query);
  return page(
    { title: 'Sign in', ...(notice === undefined ? {} : { notice }) },
    html`<section class="panel narrow">
  <h1>Sign in</h1>
  ${problem === undefined ? '' : html`<p class="problem" role="alert">${problem}</p>`}
  <form method="post" action="/signin" class="stack">
    <input type="hidden" name="_csrf" value="${visitorFormToken(ctx)}">
    <input type="hidden" name="next" value="${next}">
    <label for="email">E-mail address</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${email}"${email === '' ? html` autofocus` : ''}>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" aria-describedby="password-hint"${email === '' ? '' : html` autofocus`}>
    <p class="hint" id="password-hint">Your team signs in through single sign-on? Leave the password empty.</p>
    <button type="submit" class="primary">Sign in</button>
  </form>
  <p><a href="/signin/sso${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}">Sign in with single sign-on</a></p>
  <p class="hint">New member? Open the invitation link an Admin of your team sent you.</p>
</section>`,
  );
}

async function secondFactorForm(ctx: ConsoleContext, problem?: string): Promise<ConsoleAnswerPage> {
  const signedIn = await readSession(ctx.deps.store, sessionToken(ctx.request, ctx.secure), ctx.policy, new Date());
  if (signedIn === undefined || signedIn.session.stage !== 'second_factor') return { redirect: '/signin' };
  const credential = await ctx.deps.store.accounts.findCredential(signedIn.member.id);
  const enrolment =
    credential?.totpConfirmedAt === null
      ? await startTotpEnrolment(ctx.deps.store, ctx.deps.box, signedIn.member)
      : undefined;
  const next = safeNext(ctx.query.get('next') ?? ctx.form.get('next'));
  const qr = enrolment === undefined ? undefined : await QRCode.toString(enrolment.uri, { type: 'svg', margin: 1 });
  const enrol =
    enrolment === undefined
      ? html`<p>Enter the 6-digit code your authenticator app shows for perimeter.</p>`
      : html`<p>Your account signs in with a second factor. Scan this code with an authenticator app, then enter the 6-digit code it shows.</p>
  <figure class="qr" aria-label="QR code of your authenticator secret">${trusted(qr!)}</figure>
  <p class="hint">Cannot scan? Enter this key in the app: <code class="secret">${enrolment.secret}</code></p>`;
  return {
    page: page(
      { title: 'Second factor' },
      html`<section class="panel narrow">
  <h1>Second factor</h1>
  ${problem === undefined ? '' : html`<p class="problem" role="alert">${problem}</p>`}
  ${enrol}
  <form method="post" action="/signin/code" class="stack">
    <input type="hidden" name="_csrf" value="${visitorFormToken(ctx)}">
    <input type="hidden" name="next" value="${next}">
    <label for="code">Code</label>
    <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" required autofocus>
    <button type="submit" class="primary">Verify</button>
  </form>
</section>`,
    ),
    ...(problem === undefined ? {} : { status: 401 }),
  };
}

type ConsoleAnswerPage = { page: Html; status?: number } | { redirect: string };

/** Sign-in, the second factor and sign-out. */
export const signInRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/signin',
    access: 'public',
    handler: async (ctx) => ({ page: signInForm(ctx) }),
  },
  {
    method: 'POST',
    path: '/signin',
    access: 'public',
    handler: async (ctx) => {
      const email = ctx.form.get('email') ?? '';
      // A member who signs in through the team's identity provider is sent there.
      const sso = await ssoAnswerForEmail(ctx, email);
      if (sso !== undefined) return sso;
      const result = await signIn(
        ctx.deps.store,
        { email, password: ctx.form.get('password') ?? '' },
        { address: ctx.request.ip, userAgent: String(ctx.request.headers['user-agent'] ?? '') },
        ctx.policy,
      );
      if (result.kind === 'throttled') {
        ctx.reply.header('retry-after', String(result.retryAfterSeconds));
        const minutes = Math.ceil(result.retryAfterSeconds / 60);
        return {
          status: 429,
          page: signInForm(ctx, `Too many failed sign-ins. Try again in ${minutes} minutes.`, email),
        };
      }
      if (result.kind === 'refused')
        return { status: 401, page: signInForm(ctx, 'The e-mail address or the password is wrong.', email) };
      setSessionCookie(ctx.reply, result.token, ctx.secure);
      const next = safeNext(ctx.form.get('next'));
      if (result.kind === 'second_factor') return { redirect: `/signin/code?next=${encodeURIComponent(next)}` };
      return { redirect: next };
    },
  },
  {
    method: 'GET',
    path: '/signin/code',
    access: 'public',
    handler: async (ctx) => secondFactorForm(ctx),
  },
  {
    method: 'POST',
    path: '/signin/code',
    access: 'public',
    handler: async (ctx) => {
      const signedIn = await readSession(ctx.deps.store, sessionToken(ctx.request, ctx.secure), ctx.policy, new Date());
      if (signedIn === undefined || signedIn.session.stage !== 'second_factor') return { redirect: '/signin' };
      const result = await passSecondFactor(
        ctx.deps.store,
        ctx.deps.box,
        signedIn.session,
        ctx.form.get('code') ?? '',
        ctx.policy,
      );
      if (result.kind === 'throttled') {
        clearSessionCookie(ctx.reply, ctx.secure);
        return { status: 429, page: signInForm(ctx, 'Too many wrong codes. Sign in again later.') };
      }
      if (result.kind === 'refused') return secondFactorForm(ctx, 'That code is wrong or was used already.');
      setSessionCookie(ctx.reply, result.token, ctx.secure);
      return { redirect: safeNext(ctx.form.get('next')) };
    },
  },
  {
    method: 'POST',
    path: '/signout',
    access: 'read',
    handler: async (ctx) => {
      await endSession(ctx.deps.store, ctx.signedIn.session, new Date());
      clearSessionCookie(ctx.reply, ctx.secure);
      return { redirect: '/signin?notice=signed-out' };
    },
  },
];
