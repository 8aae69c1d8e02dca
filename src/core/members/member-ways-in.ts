import type { Member } from './member.types.ts';

/**
 * The rules of a team's ways in, shared by the member changes of an Admin (member-admin.service.ts)
 * and the sign-in switches of single sign-on (accounts/sso-members.service.ts): pure functions
 * of the members, no store.
 */

/** The outcome of a change to a member. */
export type MemberChange =
  { kind: 'done'; member: Member } | { kind: 'not-found' } | { kind: 'invalid'; problem: string };

/**
 * Whether a member can sign in now: active, and with a password (`password`, `2fa`; a missing
 * password is the operator's reset link away) or through single sign-on set up for the team.
 */
export function canSignIn(member: Member, isSsoConfigured: boolean): boolean {
  if (member.state !== 'active') return false;
  return member.authentication === 'sso' ? isSsoConfigured : member.authentication !== 'none';
}

/**
 * Whether changing `before` into `after` (undefined: removed) takes away the team's last way in:
 * `before` is an Admin who can sign in, `after` is not, and no other member is one. A change to a
 * member who was no such way in is never refused by this rule.
 */
export function losesLastWayIn(
  members: Member[],
  before: Member,
  after: Member | undefined,
  isSsoConfigured: boolean,
): boolean {
  const isWayIn = (m: Member) => m.role === 'Admin' && canSignIn(m, isSsoConfigured);
  if (!isWayIn(before) || (after !== undefined && isWayIn(after))) return false;
  return !members.some((m) => m.id !== before.id && isWayIn(m));
}
