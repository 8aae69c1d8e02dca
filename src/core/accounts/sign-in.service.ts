import { normalizeEmail } from '../members/member-email.ts';
import type { Member } from '../members/member.types.ts';
import type { SecretBox } from '../shared/secret-box.ts';
import type { AccountPolicy } from './account-policy.ts';
import type { AccountStore, ConsoleSession } from './account.types.ts';
import { decoyHash, verifyPassword } from './password.ts';
import { newSecretToken, openSession, tokenHash, type ClientInfo, type OpenedSession } from './session.service.ts';
import { totpStep } from './totp.ts';

/**
 * Signing in to the console: e-mail and password, then for a `2fa` member a TOTP code. Failed
 * attempts are counted per account and per client address (AccountPolicy); past either limit the
 * sign-in is refused without checking the password until the window ends. A wrong e-mail and a
 * wrong password answer the same, in the same time (a decoy hash is checked when no account
 * matches).
 */

/** The outcome of a sign-in attempt. */
export type SignInResult =
  | { kind: 'throttled'; retryAfterSeconds: number }
  | { kind: 'refused' }
  | ({ kind: 'signed_in' | 'second_factor'; member: Member } & OpenedSession);

const accountKey = (email: string) => `account:${email}`;
const addressKey = (address: string) => `address:${address}`;
const totpKey = (memberId: number) => `totp:${memberId}`;

/** The seconds until a throttled key may try again, or 0 when it may now. */
async function throttledFor(store: AccountStore, keys: Array<[string, number]>, policy: AccountPolicy, now: Date) {
  const since = new Date(now.getTime() - policy.failureWindowMs);
  for (const [key, limit] of keys) {
    if ((await store.accounts.failures(key, since)) >= limit) return Math.ceil(policy.failureWindowMs / 1000);
  }
  return 0;
}

async function fail(store: AccountStore, keys: string[], policy: AccountPolicy, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - policy.failureWindowMs);
  for (const key of keys) await store.accounts.addFailure(key, now, windowStart);
}

/**
 * The seconds until a client address may try to sign in again (0 when it may now): single sign-on
 * shares the per-address failure count of the password form.
 */
export async function addressThrottledFor(
  store: AccountStore,
  address: string,
  policy: AccountPolicy,
  now: Date,
): Promise<number> {
  return throttledFor(store, [[addressKey(address), policy.addressFailures]], policy, now);
}

/** Counts one failed sign-in of a client address (a refused single sign-on callback). */
export async function addAddressFailure(
  store: AccountStore,
  address: string,
  policy: AccountPolicy,
  now: Date,
): Promise<void> {
  await fail(store, [addressKey(address)], policy, now);
}

/** The active member of that e-mail whose console password this is (the first, by invitation order). */
async function memberWithPassword(store: AccountStore, email: string, password: string): Promise<Member | undefined> {
  let checked = false;
  for (const { memberId, teamId } of await store.accounts.findMembersByEmail(email)) {
    const member = await store.members.findById(teamId, memberId);
    if (member === undefined || member.state !== 'active') continue;
    if (member.authentication !== 'password' && member.authentication !== '2fa') continue;
    const credential = await store.accounts.findCredential(memberId);
    if (credential === undefined) continue;
    checked = true;
    if (await verifyPassword(password, credential.passwordHash)) return member;
  }
  if (!checked) await verifyPassword(password, await decoyHash());
  return undefined;
}

/** Checks an e-mail and password; opens a session (its second-factor stage for a `2fa` member). */
export async function signIn(
  store: AccountStore,
  input: { email: string; password: string },
  client: ClientInfo,
  policy: AccountPolicy,
  now = new Date(),
): Promise<SignInResult> {
  const email = normalizeEmail(input.email) ?? input.email.trim().toLowerCase().slice(0, 254);
  const keys: Array<[string, number]> = [
    [accountKey(email), policy.accountFailures],
    [addressKey(client.address), policy.addressFailures],
  ];
  const wait = await throttledFor(store, keys, policy, now);
  if (wait > 0) return { kind: 'throttled', retryAfterSeconds: wait };
  const member = input.password.length > 4096 ? undefined : await memberWithPassword(store, email, input.password);
  if (member === undefined) {
    await fail(store, [accountKey(email), addressKey(client.address)], policy, now);
    return { kind: 'refused' };
  }
  await store.accounts.clearFailures(accountKey(email));
  if (member.authentication === '2fa') {
    const opened = await openSession(store, member, 'second_factor', client, policy, now);
    return { kind: 'second_factor', member, ...opened };
  }
  const opened = await openSession(store, member, 'signed_in', client, policy, now);
  await store.accounts.recordLogin(member.id, now);
  return { kind: 'signed_in', member, ...opened };
}

/** The outcome of a TOTP code. */
export type SecondFactorResult =
  { kind: 'signed_in'; token: string } | { kind: 'refused' } | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * Checks the TOTP code of a session at its second-factor stage (enrolment proved, or proving it
 * now): a right code, never used before, promotes the session under a new token and sets the
 * member's last login. Too many wrong codes end the session.
 */
export async function passSecondFactor(
  store: AccountStore,
  box: SecretBox,
  session: ConsoleSession,
  code: string,
  policy: AccountPolicy,
  now = new Date(),
): Promise<SecondFactorResult> {
  const key = totpKey(session.memberId);
  const wait = await throttledFor(store, [[key, policy.accountFailures]], policy, now);
  if (wait > 0) {
    await store.accounts.revokeSession(session.id, now);
    return { kind: 'throttled', retryAfterSeconds: wait };
  }
  const credential = await store.accounts.findCredential(session.memberId);
  const secret = credential?.totpSecretSealed == null ? undefined : box.decrypt(credential.totpSecretSealed);
  const step = secret === undefined ? undefined : totpStep(secret, code, now);
  let isFresh = false;
  if (step !== undefined && credential!.totpConfirmedAt === null) {
    // The first code proves the enrolment.
    await store.accounts.confirmTotp(session.memberId, step, now);
    isFresh = true;
  } else if (step !== undefined) {
    isFresh = await store.accounts.useTotpStep(session.memberId, step);
  }
  if (!isFresh) {
    await fail(store, [key], policy, now);
    return { kind: 'refused' };
  }
  await store.accounts.clearFailures(key);
  const token = newSecretToken();
  await store.accounts.promoteSession(session.id, tokenHash(token), now);
  await store.accounts.recordLogin(session.memberId, now);
  return { kind: 'signed_in', token };
}
