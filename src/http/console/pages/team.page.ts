import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { accountLinkPath, issueAccountLink } from '../../../core/accounts/account-link.service.ts';
import {
  changeMemberSignIn,
  isSsoConfigured,
  parseSignInChoice,
  signInChoices,
} from '../../../core/accounts/sso-members.service.ts';
import { OperatorError } from '../../../core/errors/operator-error.ts';
import { changeMemberRole, removeMember } from '../../../core/members/member-admin.service.ts';
import type { MemberChange } from '../../../core/members/member-ways-in.ts';
import { inviteMembers, listMembers } from '../../../core/members/member.service.ts';
import { memberRoles, type Member } from '../../../core/members/member.types.ts';
import { memberRoutes } from '../../v2/members.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { withNotice } from '../notices.ts';
import { notFoundPage } from './error.page.ts';
import { teamConnectorRoutes } from './team-connectors.page.ts';
import { teamGroupRoutes } from './team-groups.page.ts';
import { teamKeyRoutes } from './team-keys.page.ts';
import {
  checkedBody,
  invalidFor,
  problemFor,
  problemFrom,
  teamPage,
  valueFor,
  whenOf,
  type FormProblem,
} from './team-shared.ts';

/**
 * The Team page's members: every member and invitation of the team (as v2's member list reads
 * them), and for Admins the invitation form (v2's invite: its validator and its refusals, word for
 * word), a pending member's new invitation link shown once (as `perimeter admin member link`
 * prints it), a role change, the member's sign-in (a password or the team's single sign-on:
 * sso-members.service.ts) and removal. The team always keeps an active Admin who can sign in
 * (member-admin.service.ts).
 */

/** What the page needs to know of the team's single sign-on. */
interface MembersView {
  isAdmin: boolean;
  isSso: boolean;
}

/** A one-time link just issued, to show once. */
interface IssuedLink {
  email: string;
  purpose: 'invitation' | 'reset';
  url: string;
  expires: Date;
}

/** The console's own base URL: the public URL when set, else the one this request came to. */
function baseUrl(ctx: ConsoleContext): string {
  const configured = ctx.deps.config.publicUrl;
  if (configured !== undefined && configured !== null && configured !== '') return configured.replace(/\/$/, '');
  return `${ctx.secure ? 'https' : 'http'}://${ctx.request.headers.host ?? '127.0.0.1'}`;
}

function roleForm(ctx: ConsoleContext, m: Member): Html {
  const options = memberRoles.map(
    (r) => html`<option value="${r}"${r === m.role ? html` selected` : ''}>${r}</option>`,
  );
  const id = `role-${m.userToken}`;
  return html`<form method="post" action="${`/team/members/${m.userToken}/role`}" class="inline">${csrfField(ctx.signedIn)}<label class="visually-hidden" for="${id}">Role of ${m.email}</label><select id="${id}" name="role">${options}</select> <button type="submit">Change</button></form>`;
}

/** How a member signs in, in words. */
function signInOf(m: Member): Html {
  switch (m.authentication) {
    case 'sso':
      return html`single sign-on${m.state === 'pending' ? html` <span class="muted">(active at the first sign-in)</span>` : ''}`;
    case '2fa':
      return html`password and code`;
    case 'password':
      return html`password`;
    case 'none':
      return html`password <span class="muted">(invitation link)</span>`;
  }
}

/** The switch between a password and single sign-on (to single sign-on only once the team has it). */
function signInForm(ctx: ConsoleContext, m: Member, view: MembersView): Html {
  const isSso = m.authentication === 'sso';
  if (!isSso && !view.isSso) return html``;
  const to = isSso ? 'password' : 'sso';
  const confirm = isSso
    ? `${m.email} will sign in with a password. ${m.state === 'active' ? 'They need a reset link from your operator first (perimeter admin member link).' : 'They need a new invitation link.'}`
    : `${m.email} will sign in through single sign-on. ${m.state === 'active' ? 'Their sessions end at once and their password stops working.' : 'Their invitation link stops working.'}`;
  return html`<form method="post" action="${`/team/members/${m.userToken}/sign-in`}" class="inline" data-confirm="${confirm}">${csrfField(ctx.signedIn)}<input type="hidden" name="authentication" value="${to}"><button type="submit">${isSso ? 'Use a password' : 'Use single sign-on'}</button></form>`;
}

function memberActions(ctx: ConsoleContext, m: Member, view: MembersView): Html {
  const link =
    // Pending members only: a reset link for an active member would let an Admin take over that
    // account (the operator's `perimeter admin member link` still makes one).
    m.state !== 'pending' || m.authentication === 'sso'
      ? ''
      : html`<form method="post" action="${`/team/members/${m.userToken}/link`}" class="inline">${csrfField(ctx.signedIn)}<button type="submit">New invitation link</button></form>`;
  const remove = html`<form method="post" action="${`/team/members/${m.userToken}/delete`}" class="inline" data-confirm="${`Remove ${m.email} from the team? Their sessions end at once.`}">${csrfField(ctx.signedIn)}<button type="submit" class="danger">Remove</button></form>`;
  return html`<td><div class="row-actions">${roleForm(ctx, m)}${signInForm(ctx, m, view)}${link}${remove}</div></td>`;
}

function memberTable(ctx: ConsoleContext, members: Member[], view: MembersView): Html {
  const { isAdmin } = view;
  const rows = members.map(
    (m) => html`<tr data-user="${m.userToken}">
  <td class="wrap">${m.email}${m.userToken === ctx.signedIn.member.userToken ? html` <span class="muted">(you)</span>` : ''}</td>
  <td>${[m.firstName, m.lastName].filter((n) => n !== '').join(' ') || html`<span class="muted">—</span>`}</td>
  <td>${m.role}</td>
  <td><span class="${`status state-${m.state}`}">${m.state}</span></td>
  <td>${signInOf(m)}</td>
  <td class="nowrap">${whenOf(m.lastLogin)}</td>
  ${isAdmin ? memberActions(ctx, m, view) : ''}
</tr>`,
  );
  return html`<div class="table-wrap" role="region" tabindex="0" aria-label="Members of the team"><table>
<thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Sign-in</th><th scope="col">Last sign-in</th>${isAdmin ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

function linkPanel(link: IssuedLink): Html {
  const what = link.purpose === 'invitation' ? 'sets the first password of' : 'sets a new password for';
  return html`<section class="panel shown-once" aria-labelledby="link-title">
  <h2 id="link-title">One-time link for ${link.email}</h2>
  <p>This link ${what} ${link.email}; it works once, until ${whenOf(link.expires)}. Send it to them now: it is not shown again.</p>
  <p><code class="secret" data-secret="link">${link.url}</code></p>
</section>`;
}

/** The sign-in choice of an invitation: offered only when the team has single sign-on. */
function inviteSignIn(problem: FormProblem | undefined, view: MembersView): Html {
  if (!view.isSso) return html``;
  const chosen = valueFor(problem, 'invite', 'authentication', 'password');
  const labels = {
    password: 'Password (an invitation link sets it)',
    sso: 'Single sign-on (no link; active at the first sign-in)',
  };
  const options = signInChoices.map(
    (c) => html`<option value="${c}"${c === chosen ? html` selected` : ''}>${labels[c]}</option>`,
  );
  return html`<label for="invite-authentication">Sign-in</label>
    <select id="invite-authentication" name="authentication">${options}</select>`;
}

function inviteForm(ctx: ConsoleContext, problem: FormProblem | undefined, view: MembersView): Html {
  const role = valueFor(problem, 'invite', 'role', 'Viewer');
  const options = memberRoles.map((r) => html`<option value="${r}"${r === role ? html` selected` : ''}>${r}</option>`);
  return html`<section class="panel" aria-labelledby="invite">
  <h2 id="invite">Invite a member</h2>
  ${problemFor(problem, 'invite')}
  <form method="post" action="/team/members" class="stack">
    ${csrfField(ctx.signedIn)}
    <label for="invite-email">E-mail address</label>
    <input id="invite-email" name="email" type="email" required autocomplete="off" value="${valueFor(problem, 'invite', 'email')}"${invalidFor(problem, 'invite')}>
    <label for="invite-role">Role</label>
    <select id="invite-role" name="role">${options}</select>
    ${inviteSignIn(problem, view)}
    <p class="hint">Viewers read; Editors also triage findings and add assets and scans; Admins also manage the team. A password invitation: the next page shows its link once.</p>
    <button type="submit" class="primary">Invite</button>
  </form>
</section>`;
}

async function membersPage(
  ctx: ConsoleContext,
  extra: { problem?: FormProblem; link?: IssuedLink } = {},
  status = 200,
): Promise<ConsoleAnswer> {
  const members = await listMembers(ctx.deps.store, ctx.signedIn.team);
  const view = {
    isAdmin: roleAllows(ctx.signedIn.member.role, 'administer'),
    isSso: await isSsoConfigured(ctx.deps.store, ctx.signedIn.team),
  };
  const body = html`${extra.link === undefined ? '' : linkPanel(extra.link)}
${problemFor(extra.problem, 'member')}
${view.isAdmin ? inviteForm(ctx, extra.problem, view) : html`<p class="hint">Your role (${ctx.signedIn.member.role}) reads the team; an Admin invites members and changes roles.</p>`}
<section aria-labelledby="members">
  <h2 id="members">Members</h2>
  ${memberTable(ctx, members, view)}
  ${view.isAdmin ? signInHint(view) : ''}
</section>`;
  return teamPage(ctx, 'members', 'Team', body, status);
}

/** What switching a member's sign-in does, said once under the table. */
function signInHint(view: MembersView): Html {
  const sso = view.isSso
    ? html`“Use single sign-on” ends the member's sessions at once, and their password stops working.`
    : html`Single sign-on is not set up (see the Single sign-on tab), so members sign in with a password.`;
  return html`<p class="hint">${sso} After “Use a password”, a member who signed in through single sign-on needs a reset link from your operator (<code>perimeter admin member link EMAIL --team NAME</code>) before signing in; the console does not issue it.</p>`;
}

/** Issues a one-time link for a member and shows it (a page, not a redirect: the link is shown once). */
async function showLink(ctx: ConsoleContext, email: string): Promise<ConsoleAnswer> {
  try {
    const issued = await issueAccountLink(ctx.deps.store, ctx.signedIn.team, email, ctx.policy);
    const link = {
      email: issued.member.email,
      purpose: issued.link.purpose,
      url: `${baseUrl(ctx)}${accountLinkPath(issued.token)}`,
      expires: issued.link.expires,
    };
    return await membersPage(ctx, { link });
  } catch (err) {
    if (!(err instanceof OperatorError)) throw err;
    return membersPage(ctx, { problem: { form: 'member', code: 0, message: err.message, values: {} } }, 400);
  }
}

/**
 * Invites as v2's POST /members/ does: one invitation checked by the route's validator (8101 for
 * a role that is not Admin, Editor or Viewer), then the core's refusal reasons for the address.
 */
async function inviteHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const values = { email: ctx.form.get('email') ?? '', role: ctx.form.get('role') ?? '' };
  const rawChoice = ctx.form.get('authentication') ?? 'password';
  const choice = parseSignInChoice(rawChoice);
  const invalid = (message: string) =>
    membersPage(
      ctx,
      { problem: { form: 'invite', code: 0, message, values: { ...values, authentication: rawChoice } } },
      400,
    );
  if (choice === undefined) return invalid(`Sign-in malformed: expected one of ${signInChoices.join(', ')}`);
  if (choice === 'sso' && !(await isSsoConfigured(ctx.deps.store, ctx.signedIn.team)))
    return invalid('Single sign-on is not set up for the team: set it up on the Single sign-on tab first.');
  try {
    const invitation = checkedBody(memberRoutes, 'inviteMembers', values) as { email: string; role: string };
    const authentication = choice === 'sso' ? 'sso' : 'none';
    const [refused] = await inviteMembers(ctx.deps.store, ctx.signedIn.team, invitation, authentication);
    // The API lists such an invitation in invitation_errors with its reason; the page says it.
    if (refused !== undefined) {
      const message = `Invitation not made: ${refused.email || '(no address)'}: ${refused.reason}.`;
      return await membersPage(ctx, { problem: { form: 'invite', code: 0, message, values } }, 400);
    }
  } catch (err) {
    const { problem, status } = problemFrom(err, 'invite', { ...values, authentication: rawChoice });
    return membersPage(ctx, { problem }, status);
  }
  // A single sign-on invitation has no link: the first sign-in accepts it.
  if (choice === 'sso') return { redirect: withNotice('/team', 'member-invited-sso') };
  return showLink(ctx, values.email);
}

/** The outcome of a change: back to the list, the not-found page, or the list with the reason. */
async function afterChange(ctx: ConsoleContext, change: MemberChange, notice: string): Promise<ConsoleAnswer> {
  if (change.kind === 'not-found') return { status: 404, page: notFoundPage({ signedIn: ctx.signedIn }) };
  if (change.kind === 'invalid')
    return membersPage(ctx, { problem: { form: 'member', code: 0, message: change.problem, values: {} } }, 400);
  return { redirect: withNotice('/team', notice) };
}

async function roleHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const change = await changeMemberRole(
    ctx.deps.store,
    ctx.signedIn.team,
    ctx.params['user'] ?? '',
    ctx.form.get('role'),
    await isSsoConfigured(ctx.deps.store, ctx.signedIn.team),
  );
  return afterChange(ctx, change, 'member-role-changed');
}

async function signInHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const change = await changeMemberSignIn(
    ctx.deps.store,
    ctx.signedIn.team,
    ctx.params['user'] ?? '',
    ctx.form.get('authentication'),
  );
  // Switching oneself to single sign-on ends one's own session.
  if (change.kind === 'done' && change.member.id === ctx.signedIn.member.id && change.member.authentication === 'sso')
    return { redirect: '/signin' };
  return afterChange(ctx, change, change.kind === 'done' ? signInNotice(change.member) : '');
}

/** The notice after a sign-in switch: what the member needs next. */
function signInNotice(member: Member): string {
  if (member.state === 'pending')
    return member.authentication === 'sso' ? 'member-sign-in-sso-pending' : 'member-sign-in-invitation';
  return member.authentication === 'sso' ? 'member-sign-in-sso' : 'member-sign-in-password';
}

async function removeHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const change = await removeMember(
    ctx.deps.store,
    ctx.signedIn.team,
    ctx.params['user'] ?? '',
    await isSsoConfigured(ctx.deps.store, ctx.signedIn.team),
  );
  // Removing oneself ends one's own session: the next page is the sign-in page.
  if (change.kind === 'done' && change.member.id === ctx.signedIn.member.id) return { redirect: '/signin' };
  return afterChange(ctx, change, 'member-removed');
}

async function linkHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const members = await listMembers(ctx.deps.store, ctx.signedIn.team);
  const member = members.find((m) => m.userToken === ctx.params['user']);
  if (member === undefined) return { status: 404, page: notFoundPage({ signedIn: ctx.signedIn }) };
  if (member.state !== 'pending') {
    const message = `${member.email} has accepted the invitation: a password reset link comes from your operator (perimeter admin member link).`;
    return membersPage(ctx, { problem: { form: 'member', code: 0, message, values: {} } }, 400);
  }
  return showLink(ctx, member.email);
}

/** The Team pages: members here, then groups, API keys and connectors. */
export const teamRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team', access: 'read', handler: (ctx) => membersPage(ctx) },
  { method: 'POST', path: '/team/members', access: 'administer', handler: inviteHandler },
  { method: 'POST', path: '/team/members/:user/role', access: 'administer', handler: roleHandler },
  { method: 'POST', path: '/team/members/:user/delete', access: 'administer', handler: removeHandler },
  { method: 'POST', path: '/team/members/:user/sign-in', access: 'administer', handler: signInHandler },
  { method: 'POST', path: '/team/members/:user/link', access: 'administer', handler: linkHandler },
  ...teamGroupRoutes,
  ...teamKeyRoutes,
  ...teamConnectorRoutes,
];
