import { roleAllows } from '../../../core/accounts/account-policy.ts';
import { OperatorError } from '../../../core/errors/operator-error.ts';
import { createApiKey, isKeyId, listApiKeys, revokeApiKey } from '../../../core/teams/api-key.service.ts';
import { plans, type EndpointGroup } from '../../../core/teams/plans.ts';
import type { ApiKey } from '../../../core/teams/team.types.ts';
import type { ConsoleAnswer, ConsoleContext, ConsoleRoute } from '../console-route.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { withNotice } from '../notices.ts';
import { notFoundPage } from './error.page.ts';
import { problemFor, teamPage, whenOf, type FormProblem } from './team-shared.ts';

/**
 * The team's API keys: each key's public id, hint, kind, permissions, signing, creation, last use
 * and revocation (what `perimeter admin key list` shows), a create form for Admins (the same
 * createApiKey as `key create`: v2 or v3, optional signing, permissions among the plan's endpoint
 * groups) whose key and signing secret are shown once on the next page and never again (the
 * store keeps only the key's hash and the sealed secret), and revocation. A key of another team,
 * an unknown and a malformed id answer the not-found page.
 */

/** A key just created: shown once. */
interface CreatedKey {
  key: string;
  secret: string | undefined;
  record: ApiKey;
}

function keyRows(ctx: ConsoleContext, keys: ApiKey[], isAdmin: boolean): Html {
  return html`${keys.map(
    (k) => html`<tr data-key="${k.publicId}">
  <td class="mono">${k.publicId}</td>
  <td class="mono">${k.hint}…</td>
  <td>${k.kind}</td>
  <td class="wrap">${k.permissions === null ? html`<span class="muted">all of the plan</span>` : k.permissions.join(', ')}</td>
  <td>${k.secretSealed === null ? 'no' : 'yes'}</td>
  <td class="nowrap">${whenOf(k.created)}</td>
  <td class="nowrap">${whenOf(k.lastUsed)}</td>
  <td class="nowrap">${k.revoked === null ? (isAdmin ? html`<form method="post" action="${`/team/keys/${k.publicId}/revoke`}" class="inline" data-confirm="${`Revoke ${k.publicId}? Requests with it are refused from now on.`}">${csrfField(ctx.signedIn)}<button type="submit" class="danger">Revoke<span class="visually-hidden"> ${k.publicId}</span></button></form>` : html`<span class="muted">active</span>`) : whenOf(k.revoked)}</td>
</tr>`,
  )}`;
}

function createdPanel(created: CreatedKey): Html {
  return html`<section class="panel shown-once" aria-labelledby="created-key">
  <h2 id="created-key">Key ${created.record.publicId} created</h2>
  <p>Copy the key${created.secret === undefined ? '' : ' and its signing secret'} now: ${created.secret === undefined ? 'it is' : 'they are'} shown only this once and cannot be read again.</p>
  <dl class="facts">
    <dt>Key</dt><dd><code class="secret" data-secret="key">${created.key}</code></dd>
    ${created.secret === undefined ? '' : html`<dt>Signing secret</dt><dd><code class="secret" data-secret="signing">${created.secret}</code></dd>`}
  </dl>
</section>`;
}

function createForm(ctx: ConsoleContext, problem: FormProblem | undefined): Html {
  const groups = plans[ctx.signedIn.team.plan].groups as readonly EndpointGroup[];
  const boxes = groups.map(
    (g) =>
      html`<label class="check" for="${`perm-${g}`}"><input type="checkbox" id="${`perm-${g}`}" name="permission" value="${g}"> <span>${g}</span></label>`,
  );
  return html`<section class="panel" aria-labelledby="create-key">
  <h2 id="create-key">Create an API key</h2>
  ${problemFor(problem, 'key')}
  <form method="post" action="/team/keys" class="stack">
    ${csrfField(ctx.signedIn)}
    <fieldset class="plain"><legend>API</legend>
      <label class="check" for="kind-v2"><input type="radio" id="kind-v2" name="kind" value="v2" checked> <span>v2 (X-Service-Key header)</span></label>
      <label class="check" for="kind-v3"><input type="radio" id="kind-v3" name="kind" value="v3"> <span>v3 (Authorization header)</span></label>
    </fieldset>
    <label class="check" for="signing"><input type="checkbox" id="signing" name="signing" value="true" aria-describedby="signing-hint"> <span>Signed requests</span></label>
    <p class="hint" id="signing-hint">Every request then carries an HMAC signature made with a secret shown once with the key.</p>
    <fieldset class="plain"><legend>Permissions</legend>
      <div class="checks">${boxes}</div>
      <p class="hint">None ticked: every endpoint group of the team's plan.</p>
    </fieldset>
    <button type="submit" class="primary">Create the key</button>
  </form>
</section>`;
}

async function keysPage(
  ctx: ConsoleContext,
  extra: { problem?: FormProblem; created?: CreatedKey } = {},
  status = 200,
): Promise<ConsoleAnswer> {
  const { team, member } = ctx.signedIn;
  const keys = await listApiKeys(ctx.deps.store, team.name);
  const isAdmin = roleAllows(member.role, 'administer');
  const table =
    keys.length === 0
      ? html`<p>The team has no API keys.</p>`
      : html`<div class="table-wrap" role="region" tabindex="0" aria-label="API keys of the team"><table>
<thead><tr><th scope="col">ID</th><th scope="col">Hint</th><th scope="col">API</th><th scope="col">Permissions</th><th scope="col">Signing</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Revoked</th></tr></thead>
<tbody>${keyRows(ctx, keys, isAdmin)}</tbody></table></div>`;
  const body = html`${extra.created === undefined ? '' : createdPanel(extra.created)}
${problemFor(extra.problem, 'keys')}
${isAdmin ? createForm(ctx, extra.problem) : html`<p class="hint">Your role (${member.role}) reads the keys; an Admin creates and revokes them.</p>`}
<section aria-labelledby="keys"><h2 id="keys">API keys</h2>${table}</section>`;
  return teamPage(ctx, 'keys', 'API keys', body, status);
}

async function createHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const kind = ctx.form.get('kind') ?? 'v2';
  const signing = ctx.form.get('signing') === 'true';
  const refuse = (message: string) => keysPage(ctx, { problem: { form: 'key', code: 0, message, values: {} } }, 400);
  if (kind !== 'v2' && kind !== 'v3') return refuse('The API must be v2 or v3.');
  const permissions = ctx.form.getAll('permission');
  const inPlan = plans[ctx.signedIn.team.plan].groups as readonly string[];
  const outside = permissions.filter((p) => !inPlan.includes(p));
  if (outside.length > 0) return refuse(`Not in the team's plan (${ctx.signedIn.team.plan}): ${outside.join(', ')}.`);
  try {
    const created = await createApiKey(ctx.deps.store, ctx.deps.box, {
      teamName: ctx.signedIn.team.name,
      kind,
      signing,
      permissions: [...new Set(permissions)],
    });
    return await keysPage(ctx, { created: { key: created.key, secret: created.secret, record: created.record } });
  } catch (err) {
    if (!(err instanceof OperatorError)) throw err;
    return refuse(err.message);
  }
}

async function revokeHandler(ctx: ConsoleContext): Promise<ConsoleAnswer> {
  const id = ctx.params['id'] ?? '';
  const key = isKeyId(id) ? await ctx.deps.store.keys.findByPublicId(id) : undefined;
  if (key === undefined || !key.teamIds.includes(ctx.signedIn.team.id))
    return { status: 404, page: notFoundPage({ signedIn: ctx.signedIn }) };
  await revokeApiKey(ctx.deps.store, id);
  return { redirect: withNotice('/team/keys', 'key-revoked') };
}

/** The API key pages: read by every role (hints only), created and revoked by Admins. */
export const teamKeyRoutes: ConsoleRoute[] = [
  { method: 'GET', path: '/team/keys', access: 'read', handler: (ctx) => keysPage(ctx) },
  { method: 'POST', path: '/team/keys', access: 'administer', handler: createHandler },
  { method: 'POST', path: '/team/keys/:id/revoke', access: 'administer', handler: revokeHandler },
];
