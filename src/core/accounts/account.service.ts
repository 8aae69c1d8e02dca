import type { Member } from '../members/member.types.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import type { AccountPolicy } from './account-policy.ts';
import type { AccountStore } from './account.types.ts';
import { hashPassword, passwordProblem, verifyPassword } from './password.ts';
import { openSession, type ClientInfo, type OpenedSession } from './session.service.ts';
import { totpStep } from './totp.ts';

/**
 * What a signed-in member changes of their own account: the password (the current one proves it
 * is them; every session ends and a new one opens for this browser) and the second factor (on
 * once a first code proves the enrolment; off with the password).
 */

/** The outcome of an account change: done (with a new session when the password changed) or the problem to show. */
export type AccountChange = { kind: 'done'; opened?: OpenedSession } | { kind: 'invalid'; problem: string };

const ssoOnly =
  'You sign in through single sign-on: your password and second factor are those of your identity provider.';

/** Changes a member's password: every session of the member ends; a new one opens for this browser. */
export async function changePassword(
  store: AccountStore,
  member: Member,
  input: { current: string; next: string },
  client: ClientInfo,
  policy: AccountPolicy,
  now = new Date(),
): Promise<AccountChange> {
  if (member.authentication === 'sso') return { kind: 'invalid', problem: ssoOnly };
  const credential = await store.accounts.findCredential(member.id);
  if (credential === undefined || !(await verifyPassword(input.current, credential.passwordHash)))
    return { kind: 'invalid', problem: 'The current password is wrong.' };
  const problem = passwordProblem(input.next, member.email);
  if (problem !== undefined) return { kind: 'invalid', problem };
  const hash = await hashPassword(input.next);
  const opened = await store.transaction(async (tx) => {
    await tx.accounts.setPassword(member.id, hash, now, false);
    await tx.accounts.revokeMemberSessions(member.id, now);
    return openSession(tx, member, 'signed_in', client, policy, now);
  });
  return { kind: 'done', opened };
}

/**
 * Turns the second factor on: the code proves the enrolment started on the account page (the
 * secret sealed in the store), then the member's authentication becomes `2fa`.
 */
export async function enableTwoFactor(
  store: AccountStore,
  box: SecretBox,
  member: Member,
  code: string,
  now = new Date(),
): Promise<AccountChange> {
  // A single sign-on member's sign-in is the Admin's choice (Team page), not a second factor's.
  if (member.authentication === 'sso') return { kind: 'invalid', problem: ssoOnly };
  const credential = await store.accounts.findCredential(member.id);
  if (credential?.totpSecretSealed == null) return { kind: 'invalid', problem: 'Start the set-up again.' };
  const step = totpStep(box.decrypt(credential.totpSecretSealed), code, now);
  if (step === undefined) return { kind: 'invalid', problem: 'That code is wrong. Enter the code the app shows now.' };
  await store.transaction(async (tx) => {
    await tx.accounts.confirmTotp(member.id, step, now);
    await tx.members.setAuthentication(member.teamId, member.id, '2fa');
  });
  return { kind: 'done' };
}

/** Turns the second factor off (the password proves it is the member); the secret is deleted. */
export async function disableTwoFactor(
  store: AccountStore,
  member: Member,
  password: string,
  now = new Date(),
): Promise<AccountChange> {
  const credential = await store.accounts.findCredential(member.id);
  if (credential === undefined || !(await verifyPassword(password, credential.passwordHash)))
    return { kind: 'invalid', problem: 'The password is wrong.' };
  await store.transaction(async (tx) => {
    await tx.accounts.setPassword(member.id, credential.passwordHash, now, true);
    await tx.members.setAuthentication(member.teamId, member.id, 'password');
  });
  return { kind: 'done' };
}
