import { OperatorError } from '../errors/operator-error.ts';
import { normalizeEmail } from '../members/member-email.ts';
import type { Member } from '../members/member.types.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import type { Team } from '../teams/team.types.ts';
import type { AccountPolicy } from './account-policy.ts';
import type { AccountLink, AccountStore } from './account.types.ts';
import { hashPassword, passwordProblem } from './password.ts';
import { newSecretToken, tokenHash } from './session.service.ts';
import { newTotpSecret, totpUri } from './totp.ts';

/**
 * One-time account links: an invitation link sets a pending member's first password (and makes
 * the member active), a reset link sets an active member's new password and ends its sessions.
 * Each link is used once and expires (AccountPolicy); only the SHA-256 of its token is stored.
 */

/** A link issued: the token for the URL (shown once) and when it expires. */
export interface IssuedLink {
  token: string;
  link: AccountLink;
  member: Member;
}

/** Issues a link for a member of a team: an invitation while pending, a reset once active. */
export async function issueAccountLink(
  store: AccountStore,
  team: Team,
  rawEmail: string,
  policy: AccountPolicy,
  now = new Date(),
): Promise<IssuedLink> {
  const email = normalizeEmail(rawEmail);
  if (email === undefined) throw new OperatorError(`"${rawEmail}" is not an e-mail address`);
  const [member] = await store.members.findByEmails(team.id, [email]);
  if (member === undefined) throw new OperatorError(`${email} is not a member of team "${team.name}"`);
  if (member.authentication === 'sso')
    throw new OperatorError(`${email} signs in through single sign-on: no password link is needed`);
  const purpose = member.state === 'pending' ? 'invitation' : 'reset';
  const token = newSecretToken();
  const link = await store.accounts.insertLink({
    tokenHash: tokenHash(token),
    memberId: member.id,
    teamId: team.id,
    purpose,
    created: now,
    expires: new Date(now.getTime() + (purpose === 'invitation' ? policy.invitationLinkMs : policy.resetLinkMs)),
  });
  return { token, link, member };
}

/** A link that may still be used, with its member; undefined for one unknown, used or expired. */
export async function openAccountLink(
  store: AccountStore,
  token: string,
  now = new Date(),
): Promise<{ link: AccountLink; member: Member } | undefined> {
  if (token.length === 0 || token.length > 128) return undefined;
  const link = await store.accounts.findLink(tokenHash(token));
  if (link === undefined || link.used !== null || now.getTime() >= link.expires.getTime()) return undefined;
  const member = await store.members.findById(link.teamId, link.memberId);
  if (member === undefined) return undefined;
  // An invitation is for a pending member only; a reset for an active one.
  if ((link.purpose === 'invitation') !== (member.state === 'pending')) return undefined;
  return { link, member };
}

/** What a member sends with a link. */
export interface LinkInput {
  password: string;
  firstName?: string;
  lastName?: string;
  /** An invitation only: sign in with a TOTP code too (`2fa`), enrolled at the first sign-in. */
  isTwoFactor?: boolean;
}

/** The outcome of using a link: `done`, or the problem to show on the form (the link stays usable). */
export type LinkResult = { kind: 'done'; member: Member } | { kind: 'invalid'; problem: string } | { kind: 'gone' };

const nameLimit = 100;

/**
 * Uses a link: checks the new password (and names), then in one transaction marks the link used,
 * stores the password hash and activates the invited member (or ends every session of a member
 * who reset the password). A link used twice at once is used once.
 */
export async function useAccountLink(
  store: AccountStore,
  token: string,
  input: LinkInput,
  now = new Date(),
): Promise<LinkResult> {
  const opened = await openAccountLink(store, token, now);
  if (opened === undefined) return { kind: 'gone' };
  const { link, member } = opened;
  // A member switched to single sign-on since the link was made has no password to set.
  if (member.authentication === 'sso') return { kind: 'gone' };
  const problem = passwordProblem(input.password, member.email);
  if (problem !== undefined) return { kind: 'invalid', problem };
  const firstName = (input.firstName ?? '').trim();
  const lastName = (input.lastName ?? '').trim();
  if ([...firstName].length > nameLimit || [...lastName].length > nameLimit)
    return { kind: 'invalid', problem: `Names must be at most ${nameLimit} characters long.` };
  const hash = await hashPassword(input.password);
  return store.transaction(async (tx) => {
    if (!(await tx.accounts.useLink(link.id, now))) return { kind: 'gone' } as const;
    if (link.purpose === 'invitation') {
      await tx.accounts.setPassword(member.id, hash, now, true);
      const active = await tx.members.activate(member.teamId, member.id, {
        firstName,
        lastName,
        authentication: input.isTwoFactor === true ? '2fa' : 'password',
      });
      if (active === undefined) throw new Error(`member ${member.id} vanished while its invitation was used`);
      return { kind: 'done', member: active } as const;
    }
    await tx.accounts.setPassword(member.id, hash, now, false);
    await tx.accounts.revokeMemberSessions(member.id, now);
    return { kind: 'done', member } as const;
  });
}

/**
 * The TOTP enrolment of a member who has not proved one yet: the secret (sealed in the store) and
 * what the authenticator app reads. The secret is made once and kept until a first code proves
 * it, so a page shown again keeps working with the code already scanned; a proved enrolment is
 * never replaced here (undefined).
 */
export async function startTotpEnrolment(
  store: AccountStore,
  box: SecretBox,
  member: Pick<Member, 'id' | 'email'>,
  now = new Date(),
): Promise<{ uri: string; secret: string } | undefined> {
  const credential = await store.accounts.findCredential(member.id);
  if (credential === undefined || credential.totpConfirmedAt !== null) return undefined;
  let secret = credential.totpSecretSealed === null ? undefined : box.decrypt(credential.totpSecretSealed);
  if (secret === undefined) {
    secret = newTotpSecret();
    await store.accounts.setTotpSecret(member.id, box.encrypt(secret), now);
  }
  return { uri: totpUri(secret, member.email), secret };
}

/** The console path a link's token opens (the face puts the public URL before it). */
export function accountLinkPath(token: string): string {
  return `/account/link/${token}`;
}
