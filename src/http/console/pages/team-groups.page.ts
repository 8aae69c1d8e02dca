import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { isAppError } from '../../../core/errors/app-error.ts';
import {
  createAssetPattern,
  deleteAssetPattern,
  listAssetPatterns,
} from '../../../core/groups/asset-pattern.service.ts';
import { assetPatternLanguage } from '../../../core/groups/asset-pattern.ts';
import { addGroupMember, listGroupMembers, removeGroupMember } from '../../../core/groups/group-member.service.ts';
import {
  createGroup,
  deleteGroup,
  listGroups,
  requireGroup,
  type GroupInput,
} from '../../../core/groups/group.service.ts';
import type { Group } from '../../../core/groups/group.types.ts';
import { listMembers } from '../../../core/members/member.service.ts';
import { assetPatternRoutes } from '../../v2/asset-patterns.routes.ts';
import { groupMemberRoutes } from '../../v2/group-members.routes.ts';
import { groupRoutes } from '../../v2/groups.routes.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { withNotice } from '../notices.ts';
import { notFoundPage } from './error.page.ts';
import {
  checkedBody,
  createPanel,
  invalidFor,
  notInPlan,
  planHas,
  problemFor,
  problemFrom,
  teamPage,
  valueFor,
  whenOf,
  type FormProblem,
} from './team-shared.ts';

/**
 * The team's groups: the list and the create form, and a group's page with its members and
 * asset patterns (add, remove) and its deletion. Each form runs the v2 route's validator and the
 * same group services (9002 for a bad name, 9012 for a bad pattern, 9024 for a user not of the
 * team, in the API's words). A group of another team, an unknown and a malformed token answer the
 * not-found page. Groups are in the professional and enterprise plans, as in the API.
 */

/** The API's description of the pattern language, without its Markdown code marks. */
const patternHint = assetPatternLanguage.replace(/`/g, '');

const notFound = (ctx: ConsoleContext): ConsoleAnswer => ({
  status: 404,
  page: notFoundPage({ signedIn: ctx.signedIn }),
});

/** The group of the path, or undefined (malformed, unknown or another team's). */
async function groupOf(ctx: ConsoleContext): Promise<Group | undefined> {
  try {
    return await requireGroup(ctx.deps.store, ctx.signedIn.team, ctx.params['group'] ?? '');
  } catch (err) {
    if (isAppError(err) && (err.code === 9001 || err.code === 9003)) return undefined;
    throw err;
  }
}

function createForm(ctx: ConsoleContext, problem: FormProblem | undefined): Html {
  return createPanel(ctx, problem, {
    name: 'group',
    title: 'Create a group',
    action: '/team/groups',
    fields: html`<label for="group-description">Description <span class="optional">(optional)</span></label>
    <input id="group-description" name="description" autocomplete="off" value="${valueFor(problem, 'group', 'description')}">
    <p class="hint">Letters, digits, underscore, dash and space, shorter than 255 characters; unique in the team.</p>`,
  });
}

async function groupsPage(ctx: ConsoleContext, problem?: FormProblem, status = 200): Promise<ConsoleAnswer> {
  const { team, member } = ctx.signedIn;
  if (!planHas(team, 'groups')) return teamPage(ctx, 'groups', 'Groups', notInPlan(team, 'groups'), status);
  const groups = await listGroups(ctx.deps.store, team);
  const rows = groups.map(
    (g) => html`<tr>
  <td><a href="${`/team/groups/${g.token}`}">${g.name}</a></td>
  <td class="wrap">${g.description}</td>
  <td class="nowrap">${whenOf(g.created)}</td>
</tr>`,
  );
  const table =
    groups.length === 0
      ? html`<p>The team has no groups yet.</p>`
      : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Groups of the team"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Created</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
  const isAdmin = roleAllows(member.role, 'administer');
  const body = html`${isAdmin ? createForm(ctx, problem) : html`<p class="hint">Your role (${member.role}) reads the groups; an Admin changes them.</p>`}
<section aria-labelledby="groups"><h2 id="groups">Groups</h2>${table}</section>`;
  return teamPage(ctx, 'groups', 'Groups', body, status);
}

async function groupPage(ctx: ConsoleContext, problem?: FormProblem, status = 200): Promise<ConsoleAnswer> {
  const { team, member } = ctx.signedIn;
  if (!planHas(team, 'groups')) return groupsPage(ctx);
  const group = await groupOf(ctx);
  if (group === undefined) return notFound(ctx);
  const [inGroup, patterns, members] = await Promise.all([
    listGroupMembers(ctx.deps.store, team, group.token),
    listAssetPatterns(ctx.deps.store, team, group.token),
    listMembers(ctx.deps.store, team),
  ]);
  const isAdmin = roleAllows(member.role, 'administer');
  const path = `/team/groups/${group.token}`;
  const emailOf = new Map(members.map((m) => [m.userToken, m.email]));
  const memberRows = inGroup.map(
    (gm) =>
      html`<li><span>${emailOf.get(gm.userToken) ?? gm.userToken}</span>${
        isAdmin
          ? html` <form method="post" action="${`${path}/members/${gm.token}/delete`}" class="inline">${csrfField(ctx.signedIn)}<button type="submit" class="danger">Remove<span class="visually-hidden"> ${emailOf.get(gm.userToken) ?? ''}</span></button></form>`
          : ''
      }</li>`,
  );
  const patternRows = patterns.map(
    (p) =>
      html`<li><code>${p.pattern}</code>${
        isAdmin
          ? html` <form method="post" action="${`${path}/patterns/${p.token}/delete`}" class="inline">${csrfField(ctx.signedIn)}<button type="submit" class="danger">Remove<span class="visually-hidden"> ${p.pattern}</span></button></form>`
          : ''
      }</li>`,
  );
  const candidates = members.filter((m) => !inGroup.some((gm) => gm.userToken === m.userToken));
  const addMember =
    isAdmin && candidates.length > 0
      ? html`${problemFor(problem, 'group-member')}<form method="post" action="${`${path}/members`}" class="stack">
  ${csrfField(ctx.signedIn)}
  <label for="group-user">Add a member</label>
  <select id="group-user" name="userToken"${invalidFor(problem, 'group-member')}>${candidates.map((m) => html`<option value="${m.userToken}">${m.email}</option>`)}</select>
  <button type="submit">Add to the group</button>
</form>`
      : problemFor(problem, 'group-member');
  const addPattern = isAdmin
    ? html`${problemFor(problem, 'pattern')}<form method="post" action="${`${path}/patterns`}" class="stack">
  ${csrfField(ctx.signedIn)}
  <label for="pattern">Add an asset pattern</label>
  <input id="pattern" name="pattern" required autocomplete="off" spellcheck="false" value="${valueFor(problem, 'pattern', 'pattern')}" aria-describedby="pattern-hint"${problem?.form === 'pattern' ? html` aria-invalid="true"` : ''}>
  <p class="hint" id="pattern-hint">${patternHint}</p>
  <button type="submit">Add the pattern</button>
</form>`
    : '';
  const remove = isAdmin
    ? html`<form method="post" action="${`${path}/delete`}" data-confirm="${`Delete the group ${group.name}?`}">${csrfField(ctx.signedIn)}<button type="submit" class="danger">Delete the group</button></form>`
    : '';
  const body = html`<p class="hint"><a href="/team/groups">Groups</a> / ${group.name}</p>
<h2>${group.name}</h2>
${group.description === '' ? '' : html`<p>${group.description}</p>`}
<div class="grid2">
  <section class="panel" aria-labelledby="group-members">
    <h3 id="group-members">Members</h3>
    ${inGroup.length === 0 ? html`<p class="muted">No members yet.</p>` : html`<ul class="plain">${memberRows}</ul>`}
    ${addMember}
  </section>
  <section class="panel" aria-labelledby="group-patterns">
    <h3 id="group-patterns">Asset patterns</h3>
    ${patterns.length === 0 ? html`<p class="muted">No patterns yet: the group selects no assets.</p>` : html`<ul class="plain">${patternRows}</ul>`}
    ${addPattern}
  </section>
</div>
${remove}`;
  return teamPage(ctx, 'groups', `Group ${group.name}`, body, status);
}

/** Runs a group change for the group of the path: not found, the page with the API's message, or back. */
async function groupChange(
  ctx: ConsoleContext,
  form: string,
  values: Record<string, string>,
  change: (group: Group) => Promise<unknown>,
  notice: string,
  back?: string,
): Promise<ConsoleAnswer> {
  if (!planHas(ctx.signedIn.team, 'groups')) return groupsPage(ctx, undefined, 403);
  const group = await groupOf(ctx);
  if (group === undefined) return notFound(ctx);
  try {
    await change(group);
  } catch (err) {
    // Another group's member or pattern, an unknown and a malformed one: the not-found page.
    if (isAppError(err) && [9011, 9013, 9021, 9023].includes(err.code)) return notFound(ctx);
    const { problem, status } = problemFrom(err, form, values);
    return groupPage(ctx, problem, status);
  }
  return { redirect: withNotice(back ?? `/team/groups/${group.token}`, notice) };
}

async function createHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  if (!planHas(ctx.signedIn.team, 'groups')) return groupsPage(ctx, undefined, 403);
  const values = { name: ctx.form.get('name') ?? '', description: ctx.form.get('description') ?? '' };
  try {
    const body = checkedBody(groupRoutes, 'createGroup', values) as GroupInput;
    const group = await createGroup(ctx.deps.store, ctx.signedIn.team, body);
    return { redirect: withNotice(`/team/groups/${group.token}`, 'group-created') };
  } catch (err) {
    const { problem, status } = problemFrom(err, 'group', values);
    return groupsPage(ctx, problem, status);
  }
}

const team = (ctx: ConsoleContext) => ctx.signedIn.team;

/** The group pages: read by every role, changed by Admins. */
export const teamGroupRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team/groups', access: 'read', handler: (ctx) => groupsPage(ctx) },
  { method: 'POST', path: '/team/groups', access: 'administer', handler: createHandler },
  { method: 'GET', path: '/team/groups/:group', access: 'read', handler: (ctx) => groupPage(ctx) },
  {
    method: 'POST',
    path: '/team/groups/:group/delete',
    access: 'administer',
    handler: (ctx) =>
      groupChange(
        ctx,
        'group',
        {},
        (g) => deleteGroup(ctx.deps.store, team(ctx), g.token),
        'group-deleted',
        '/team/groups',
      ),
  },
  {
    method: 'POST',
    path: '/team/groups/:group/members',
    access: 'administer',
    handler: (ctx) => {
      const userToken = ctx.form.get('userToken') ?? '';
      return groupChange(
        ctx,
        'group-member',
        { userToken },
        (g) =>
          addGroupMember(
            ctx.deps.store,
            team(ctx),
            g.token,
            () =>
              checkedBody(groupMemberRoutes, 'addGroupMember', { userToken }, { groupToken: g.token }) as {
                userToken: string;
              },
          ),
        'group-member-added',
      );
    },
  },
  {
    method: 'POST',
    path: '/team/groups/:group/members/:member/delete',
    access: 'administer',
    handler: (ctx) =>
      groupChange(
        ctx,
        'group-member',
        {},
        (g) => removeGroupMember(ctx.deps.store, team(ctx), g.token, () => ctx.params['member'] ?? ''),
        'group-member-removed',
      ),
  },
  {
    method: 'POST',
    path: '/team/groups/:group/patterns',
    access: 'administer',
    handler: (ctx) => {
      const pattern = ctx.form.get('pattern') ?? '';
      return groupChange(
        ctx,
        'pattern',
        { pattern },
        async (g) => {
          const body = checkedBody(assetPatternRoutes, 'createAssetPattern', { pattern }, { groupToken: g.token });
          return createAssetPattern(ctx.deps.store, team(ctx), g.token, (body as { pattern: unknown }).pattern);
        },
        'pattern-added',
      );
    },
  },
  {
    method: 'POST',
    path: '/team/groups/:group/patterns/:pattern/delete',
    access: 'administer',
    handler: (ctx) =>
      groupChange(
        ctx,
        'pattern',
        {},
        (g) => deleteAssetPattern(ctx.deps.store, team(ctx), g.token, () => ctx.params['pattern'] ?? ''),
        'pattern-removed',
      ),
  },
];
