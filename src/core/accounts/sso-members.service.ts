import { randomBytes } from 'node:crypto';
import { OperatorError } from '../errors/operator-error.ts';
import { normalizeEmail } from '../members/member-email.ts';
import { canSignIn, losesLastWayIn, type MemberChange } from '../members/member-ways-in.ts';
import type { Member, MemberAuthentication } from '../members/member.types.ts';
import type { Team } from '../teams/team.types.ts';
import { hashPassword } from './password.ts';
import type { SsoStore } from './sso.types.ts';

/**
 * How an Admin chooses a member's sign-in from the console: a password (`password` or `2fa`) or
 * the team's single sign-on (`sso`). A switch to single sign-on ends the member's sessions and
 * replaces the password with a random one nobody knows, so password sign-in stops working; a
 * switch back needs the operator's reset link (`perimeter admin member link`), which sets a new
 * one. A pending member's invitation follows the choice: `sso` (no link, active at the first
 * single sign-on) or `none` (a password invitation link). The team keeps an Admin who can sign in.
 * A switch away from single sign-on ends every link issued before it, so an old invitation or
 * reset link never works again: the member needs a new one.
 */

/** The sign-ins an Admin chooses between. */
export const signInChoices = ['password', 'sso'] as const;

/** One sign-in choice. */
export type SignInChoice = (typeof signInChoices)[number];

/** The choice a form names (`password` or `sso`, any case), or undefined. */
export function parseSignInChoice(raw: unknown): SignInChoice | undefined {
  if (typeof raw !== 'string') return undefined;
  return signInChoices.find((c) => c === raw.trim().toLowerCase());
}

/** Whether the team has an OpenID Connect provider set up. */
export async function isSsoConfigured(store: SsoStore, team: Pick<Team, 'id'>): Promise<boolean> {
  return (await store.teamSso.find(team.id)) !== undefined;
}

const noWayIn =
  'The team needs at least one active Admin who can sign in: single sign-on is not set up, so this Admin would be locked out. Set up single sign-on first, or make another member Admin.';

/** The authentication a member gets for a choice: a pending member's `none` is a password invitation. */
function authenticationFor(member: Member, choice: SignInChoice): MemberAuthentication {
  if (choice === 'sso') return 'sso';
  if (member.state === 'pending') return 'none';
  return member.authentication === 'sso' ? 'password' : member.authentication;
}

/**
 * Sets how a member signs in. Switching an active member to `sso` ends its sessions and makes its
 * password unusable; switching it back to `password` leaves it without a usable password until
 * the operator's reset link. Refused: a choice other than password or sso, and the switch of the
 * last Admin who can sign in to single sign-on the team has not set up.
 */
export async function changeMemberSignIn(
  store: SsoStore,
  team: Team,
  userToken: string,
  rawChoice: unknown,
  now = new Date(),
): Promise<MemberChange> {
  const choice = parseSignInChoice(rawChoice);
  if (choice === undefined)
    return { kind: 'invalid', problem: `Sign-in malformed: expected one of ${signInChoices.join(', ')}` };
  // Hashed before the transaction: scrypt takes tens of milliseconds.
  const unusable = choice === 'sso' ? await hashPassword(randomBytes(32).toString('base64url')) : undefined;
  return store.transaction(async (tx) => {
    await tx.members.lockTeam(team.id);
    const member = await tx.members.findByUserToken(team.id, userToken);
    if (member === undefined) return { kind: 'not-found' };
    const authentication = authenticationFor(member, choice);
    if (authentication === member.authentication) return { kind: 'done', member };
    const changed = { ...member, authentication };
    const isConfigured = (await tx.teamSso.find(team.id)) !== undefined;
    if (losesLastWayIn(await tx.members.listByTeam(team.id), member, changed, isConfigured))
      return { kind: 'invalid', problem: noWayIn };
    await tx.members.setAuthentication(team.id, member.id, authentication);
    if (authentication === 'sso' && member.state === 'active') {
      if ((await tx.accounts.findCredential(member.id)) !== undefined)
        await tx.accounts.setPassword(member.id, unusable!, now, true);
      await tx.accounts.revokeMemberSessions(member.id, now);
    }
    // Links are refused while a member uses single sign-on (useAccountLink); they must not come back with the password.
    if (member.authentication === 'sso') await tx.accounts.endMemberLinks(member.id, now);
    return { kind: 'done', member: changed };
  });
}

const ssoOnlyAdmins =
  'Every active Admin of the team signs in through single sign-on: turning it off would lock the team out. Switch an Admin to a password first (Members tab); they need a reset link from your operator.';

/**
 * Turns the team's single sign-on off from the console, unless no active Admin could sign in
 * afterwards (all sign in through it). The operator's `perimeter admin sso remove` is not held
 * back: the operator can still issue links.
 */
export async function turnOffSso(
  store: SsoStore,
  team: Pick<Team, 'id'>,
): Promise<{ kind: 'done' } | { kind: 'invalid'; problem: string }> {
  return store.transaction(async (tx) => {
    await tx.members.lockTeam(team.id);
    const members = await tx.members.listByTeam(team.id);
    const hasWayIn = members.some((m) => m.role === 'Admin' && canSignIn(m, false));
    if (!hasWayIn && members.some((m) => m.role === 'Admin' && canSignIn(m, true)))
      return { kind: 'invalid', problem: ssoOnlyAdmins };
    await tx.teamSso.remove(team.id);
    return { kind: 'done' };
  });
}

/**
 * The operator's way back to a password (`perimeter admin member link --password`), for a team
 * whose provider broke while its Admins sign in through it: the member's sign-in switches to a
 * password by the console's rules (changeMemberSignIn) and, since the provider may be the
 * problem, every session of the member ends too. A member who has a password keeps it. The
 * member found, and whether it used single sign-on; an OperatorError for an unknown address.
 */
export async function restorePasswordSignIn(
  store: SsoStore,
  team: Team,
  rawEmail: string,
  now = new Date(),
): Promise<{ member: Member; wasSso: boolean }> {
  const email = normalizeEmail(rawEmail);
  if (email === undefined) throw new OperatorError(`"${rawEmail}" is not an e-mail address`);
  const [member] = await store.members.findByEmails(team.id, [email]);
  if (member === undefined) throw new OperatorError(`${email} is not a member of team "${team.name}"`);
  if (member.authentication !== 'sso') return { member, wasSso: false };
  const change = await changeMemberSignIn(store, team, member.userToken, 'password', now);
  if (change.kind === 'invalid') throw new OperatorError(change.problem);
  if (change.kind === 'not-found') throw new OperatorError(`${email} is not a member of team "${team.name}"`);
  await store.accounts.revokeMemberSessions(member.id, now);
  return { member: change.member, wasSso: true };
}
