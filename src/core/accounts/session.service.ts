import { createHash, randomBytes } from 'node:crypto';
import type { Member } from '../members/member.types.ts';
import type { Team, TeamRepositories } from '../teams/team.types.ts';
import type { AccountPolicy } from './account-policy.ts';
import type { AccountRepositories, ConsoleSession, SessionStage } from './account.types.ts';

/** A new random token (a session id, a link): 256 bits, base64url. */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the store keeps of a token: its SHA-256, so a copy of the store opens no session. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Where a request comes from, kept with its session. */
export interface ClientInfo {
  address: string;
  userAgent: string;
}

/** A session opened for a member: the token for the cookie (never stored) and its row. */
export interface OpenedSession {
  token: string;
  session: ConsoleSession;
}

/** Opens a session of a member at a stage: a new random token each time (never one the client chose). */
export async function openSession(
  store: Pick<AccountRepositories, 'accounts'>,
  member: Pick<Member, 'id' | 'teamId'>,
  stage: SessionStage,
  client: ClientInfo,
  policy: AccountPolicy,
  now: Date,
): Promise<OpenedSession> {
  const token = newSecretToken();
  const session = await store.accounts.insertSession({
    tokenHash: tokenHash(token),
    memberId: member.id,
    teamId: member.teamId,
    stage,
    csrfToken: newSecretToken(),
    created: now,
    lastSeen: now,
    expires: new Date(now.getTime() + policy.sessionMaxMs),
    revoked: null,
    address: client.address.slice(0, 64),
    userAgent: client.userAgent.slice(0, 256),
  });
  return { token, session };
}

/** A live session with its member and team, as every console request sees it. */
export interface SessionContext {
  session: ConsoleSession;
  member: Member;
  team: Team;
}

/**
 * The live session a cookie's token names, or undefined: none with that token, revoked, past its
 * absolute end or idle too long, or its member no longer active in the team. The idle clock is
 * moved on (at most once a minute, to spare the store a write per request).
 */
export async function readSession(
  store: Pick<AccountRepositories, 'accounts' | 'members'> & Pick<TeamRepositories, 'teams'>,
  token: string,
  policy: AccountPolicy,
  now: Date,
): Promise<SessionContext | undefined> {
  if (token.length === 0 || token.length > 128) return undefined;
  const session = await store.accounts.findSession(tokenHash(token));
  if (session === undefined || session.revoked !== null) return undefined;
  if (now.getTime() >= session.expires.getTime()) return undefined;
  if (now.getTime() - session.lastSeen.getTime() >= policy.sessionIdleMs) return undefined;
  const member = await store.members.findById(session.teamId, session.memberId);
  if (member === undefined || member.state !== 'active') return undefined;
  const team = await store.teams.findById(session.teamId);
  if (team === undefined) return undefined;
  // The idle clock moves at most once a minute: a read-only request writes nothing else.
  if (now.getTime() - session.lastSeen.getTime() >= 60_000) await store.accounts.touchSession(session.id, now);
  return { session, member, team };
}

/** Ends a session on the server (sign-out): its cookie opens nothing afterwards. */
export async function endSession(
  store: Pick<AccountRepositories, 'accounts'>,
  session: Pick<ConsoleSession, 'id'>,
  now: Date,
): Promise<void> {
  await store.accounts.revokeSession(session.id, now);
}
