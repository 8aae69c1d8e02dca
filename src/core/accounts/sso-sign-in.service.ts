import { normalizeEmail } from '../members/member-email.ts';
import type { Member } from '../members/member.types.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import type { Team } from '../teams/team.types.ts';
import type { AccountPolicy } from './account-policy.ts';
import { newSecretToken, openSession, type ClientInfo, type OpenedSession } from './session.service.ts';
import { addAddressFailure, addressThrottledFor } from './sign-in.service.ts';
import { OidcError, type OidcChecks, type OidcClient, type SsoStore } from './sso.types.ts';

/**
 * Signing in to the console through the team's OpenID Connect provider. The start makes the
 * single-use state, nonce and PKCE verifier and seals them (with the team and the page to return
 * to) for the browser to keep in a cookie; the callback opens them, has the OpenID client check
 * the provider's answer, then maps the ID token's verified e-mail to an active `sso` member of
 * THAT team and opens a session exactly as a password sign-in does. A pending member invited to
 * sign in through single sign-on becomes active at its first sign-in. Attempts share the password
 * form's per-address failure count: a refused callback is a failure, and past the limit neither
 * the start nor the callback goes on until the window ends.
 */

/** How long a started sign-in may take at the provider. */
export const ssoSignInMaxMs = 10 * 60_000;

/** What the browser keeps (sealed) between the redirect to the provider and the callback. */
export interface SsoPending extends OidcChecks {
  teamId: number;
  /** The console path to land on afterwards (already checked by the page). */
  next: string;
  /** Epoch milliseconds of the start. */
  started: number;
}

/** The dependencies of a sign-in. */
export interface SsoSignInDeps {
  store: SsoStore;
  box: SecretBox;
  oidc: OidcClient;
}

/** Seals a pending sign-in with the server key: the browser can neither read nor forge it. */
export function sealPending(box: SecretBox, pending: SsoPending): string {
  return box.encrypt(JSON.stringify(pending));
}

/** The pending sign-in a cookie holds, or undefined: none, tampered with, or older than ssoSignInMaxMs. */
export function openPending(box: SecretBox, sealed: string, now: Date): SsoPending | undefined {
  if (sealed === '' || sealed.length > 4096) return undefined;
  try {
    const pending = JSON.parse(box.decrypt(sealed)) as SsoPending;
    const age = now.getTime() - pending.started;
    if (!Number.isSafeInteger(pending.teamId) || age < 0 || age > ssoSignInMaxMs) return undefined;
    return pending;
  } catch {
    return undefined;
  }
}

/**
 * The teams an e-mail address signs in to with single sign-on: an `sso` member (active, or invited
 * to sign in so), and a provider set up.
 */
export async function ssoTeamsOf(store: SsoStore, rawEmail: string): Promise<Team[]> {
  const email = normalizeEmail(rawEmail);
  if (email === undefined) return [];
  const teams: Team[] = [];
  for (const { memberId, teamId } of await store.accounts.findMembersByEmail(email)) {
    const member = await store.members.findById(teamId, memberId);
    if (member === undefined || member.authentication !== 'sso') continue;
    if ((await store.teamSso.find(teamId)) === undefined) continue;
    const team = await store.teams.findById(teamId);
    if (team !== undefined) teams.push(team);
  }
  return teams;
}

/** The outcome of a start. */
export type SsoStartResult =
  | { kind: 'redirect'; url: string; sealed: string }
  | { kind: 'throttled'; retryAfterSeconds: number }
  | { kind: 'not_configured' }
  | { kind: 'unreachable'; message: string };

/**
 * Starts a sign-in at the team's provider: the URL to send the browser to, and the sealed pending
 * sign-in; `throttled` when the client address has failed too often.
 */
export async function startSsoSignIn(
  deps: SsoSignInDeps,
  team: Pick<Team, 'id'>,
  redirectUri: string,
  next: string,
  limits: { client: ClientInfo; policy: AccountPolicy },
  now = new Date(),
): Promise<SsoStartResult> {
  const wait = await addressThrottledFor(deps.store, limits.client.address, limits.policy, now);
  if (wait > 0) return { kind: 'throttled', retryAfterSeconds: wait };
  const sso = await deps.store.teamSso.find(team.id);
  if (sso === undefined) return { kind: 'not_configured' };
  const pending: SsoPending = {
    teamId: team.id,
    next,
    started: now.getTime(),
    state: newSecretToken(),
    nonce: newSecretToken(),
    codeVerifier: newSecretToken(),
  };
  const provider = {
    issuer: sso.issuer,
    clientId: sso.clientId,
    clientSecret: deps.box.decrypt(sso.clientSecretSealed),
  };
  try {
    const url = await deps.oidc.authorizationUrl(provider, redirectUri, pending);
    return { kind: 'redirect', url: url.href, sealed: sealPending(deps.box, pending) };
  } catch (err) {
    if (!(err instanceof OidcError)) throw err;
    return { kind: 'unreachable', message: err.message };
  }
}

/** The outcome of a callback: a session, or a refusal with the sentence to show. */
export type SsoFinishResult =
  | ({ kind: 'signed_in'; member: Member; team: Team; next: string } & OpenedSession)
  | { kind: 'refused'; message: string }
  | { kind: 'throttled'; retryAfterSeconds: number };

const refused = (message: string): SsoFinishResult => ({ kind: 'refused', message });

/**
 * Completes a sign-in from the provider's callback. Refused, with no session: a callback without
 * its pending sign-in (expired, another browser), a provider answer that fails a check (state,
 * issuer, audience, expiry, nonce, PKCE), an e-mail the provider does not vouch for
 * (`email_verified` not true), an address that is no active member of the team, and a member who
 * signs in with a password. Each refusal counts as a failed sign-in of the client address.
 */
export async function finishSsoSignIn(
  deps: SsoSignInDeps,
  sealed: string,
  callbackUrl: URL,
  redirectUri: string,
  client: ClientInfo,
  policy: AccountPolicy,
  now = new Date(),
): Promise<SsoFinishResult> {
  const wait = await addressThrottledFor(deps.store, client.address, policy, now);
  if (wait > 0) return { kind: 'throttled', retryAfterSeconds: wait };
  const result = await checkCallback(deps, sealed, callbackUrl, redirectUri, client, policy, now);
  if (result.kind === 'refused') await addAddressFailure(deps.store, client.address, policy, now);
  return result;
}

async function checkCallback(
  deps: SsoSignInDeps,
  sealed: string,
  callbackUrl: URL,
  redirectUri: string,
  client: ClientInfo,
  policy: AccountPolicy,
  now: Date,
): Promise<SsoFinishResult> {
  const pending = openPending(deps.box, sealed, now);
  if (pending === undefined)
    return refused('This sign-in expired or was started in another browser. Start the sign-in again.');
  const sso = await deps.store.teamSso.find(pending.teamId);
  const team = await deps.store.teams.findById(pending.teamId);
  if (sso === undefined || team === undefined)
    return refused('Single sign-on is no longer set up for this team. Ask an Admin of your team.');
  const provider = {
    issuer: sso.issuer,
    clientId: sso.clientId,
    clientSecret: deps.box.decrypt(sso.clientSecretSealed),
  };
  let identity;
  try {
    identity = await deps.oidc.completeSignIn(provider, callbackUrl, redirectUri, pending);
  } catch (err) {
    if (!(err instanceof OidcError)) throw err;
    return refused(refusalOf(err));
  }
  const email = identity.email === undefined ? undefined : normalizeEmail(identity.email);
  if (email === undefined) return refused('The identity provider did not give an e-mail address for your account.');
  if (!identity.isEmailVerified)
    return refused(`The identity provider does not confirm that ${email} is verified, so it cannot sign you in.`);
  let [member] = await deps.store.members.findByEmails(team.id, [email]);
  if (member === undefined || (member.state !== 'active' && member.authentication !== 'sso'))
    return refused(`${email} is not a member of team ${team.name}. Ask an Admin of the team to invite you.`);
  if (member.authentication !== 'sso')
    return refused(`${email} signs in to team ${team.name} with a password, not single sign-on. Use the sign-in form.`);
  if (member.state === 'pending') {
    // The invitation is accepted by this first sign-in: the provider vouched for the address.
    const { teamId, id } = member;
    member = await deps.store.transaction((tx) =>
      tx.members.activate(teamId, id, { firstName: '', lastName: '', authentication: 'sso' }),
    );
    if (member === undefined)
      return refused(`${email} is not a member of team ${team.name}. Ask an Admin of the team to invite you.`);
  }
  const opened = await openSession(deps.store, member, 'signed_in', client, policy, now);
  await deps.store.accounts.recordLogin(member.id, now);
  return { kind: 'signed_in', member, team, next: pending.next, ...opened };
}

function refusalOf(err: OidcError): string {
  switch (err.kind) {
    case 'state':
      return 'The answer of the identity provider does not belong to this sign-in. Start the sign-in again.';
    case 'provider':
      return `The identity provider did not sign you in: ${err.message}`;
    case 'token':
      return `The identity provider's token was refused: ${err.message}`;
    case 'unreachable':
      return `The identity provider could not be reached: ${err.message}`;
  }
}
