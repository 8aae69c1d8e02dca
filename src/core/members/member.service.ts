import { normalizeEmail } from './member-email.ts';
import { appError, type AppError } from '../errors/app-error.ts';
import { newToken } from '../shared/ids.ts';
import { OperatorError } from '../errors/operator-error.ts';
import type { Team } from '../teams/team.types.ts';
import {
  memberAuthentications,
  memberRoles,
  type Member,
  type MemberProfile,
  type MemberRole,
} from './member.types.ts';
import type { MemberStore } from './member.types.ts';

/** One invitation that was not made, and why (the wire's `invitation_errors` item). */
export interface InvitationError {
  email: string;
  reason: string;
}

/** The reasons an invitation is not made. */
export const invitationReasons = {
  malformed: 'malformed e-mail address',
  member: 'already a member of the team',
  invited: 'already invited',
  duplicated: 'duplicated in the request',
} as const;

/** Most invitations in one request. */
export const maxInvitations = 1000;

export { normalizeEmail };

/** A role as an invitation gives it: Admin, Editor or Viewer in any case. */
export const invitationRolePattern = `^(?:${memberRoles
  .map((r) => [...r].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join(''))
  .join('|')})$`;

/** An invitation as the route's schema has checked it: the role valid in some case; the e-mail address anything (a malformed one is reported, not refused). */
export interface InvitationInput {
  email?: unknown;
  role: string;
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The error of an invitation body that fails the route's schema: 1051 for a body that is neither
 * an array nor an object, a list of more than 1000, or an item that is not an object (the
 * first); else 8101 for the first invitation whose role is not Admin, Editor or Viewer (any case).
 */
export function invalidInvitations(body: unknown): AppError {
  const list = Array.isArray(body) ? body : isObject(body) ? [body] : undefined;
  if (list === undefined) return appError(1051, 'Request body malformed: expected a JSON array of {email, role}');
  if (list.length > maxInvitations)
    return appError(1051, `Request body malformed: at most ${maxInvitations} invitations per request`);
  const notObject = list.findIndex((item) => !isObject(item));
  if (notObject !== -1)
    return appError(1051, `Request body malformed: invitation ${notObject} is not an object {email, role}`);
  const role = new RegExp(invitationRolePattern);
  const index = Math.max(
    0,
    list.findIndex((item: Record<string, unknown>) => typeof item['role'] !== 'string' || !role.test(item['role'])),
  );
  const raw = (list[index] as Record<string, unknown>)['role'];
  const given = raw === undefined || raw === null ? 'no role' : `role ${JSON.stringify(raw)}`;
  return appError(
    8101,
    `Role of invited member malformed: invitation ${index} has ${given}; use Admin, Editor or Viewer`,
    ['role'],
  );
}

/** The invitations of a checked body (a single object is a one-item list), each role in its own case. */
function invitationsOf(body: InvitationInput[] | InvitationInput): Array<{ raw: unknown; role: MemberRole }> {
  const list = Array.isArray(body) ? body : [body];
  return list.map((item) => ({
    raw: item.email,
    role: memberRoles.find((r) => r.toLowerCase() === item.role.toLowerCase())!,
  }));
}

/** Why a well-formed address is not invited, if it is not; remembers it as seen in the request. */
function refusalOf(email: string, seen: Set<string>, existing: Map<string, Member>): string | undefined {
  if (seen.has(email)) return invitationReasons.duplicated;
  seen.add(email);
  const current = existing.get(email);
  if (current === undefined) return undefined;
  return current.state === 'active' ? invitationReasons.member : invitationReasons.invited;
}

/** The members of a team, pending invitations included, in invitation order. */
export async function listMembers(store: MemberStore, team: Team): Promise<Member[]> {
  return store.members.listByTeam(team.id);
}

/**
 * Invites members by e-mail. Each invitation that cannot be made (malformed e-mail, already a
 * member, already invited, duplicated in the request) is returned with its reason and the others
 * are made, as pending members, in one transaction. A role other than Admin, Editor or Viewer
 * (any case) is 8101 and makes none. The console invites with `sso` a member who will sign in
 * through the team's single sign-on (no password link; active at the first sign-in).
 */
export async function inviteMembers(
  store: MemberStore,
  team: Team,
  body: InvitationInput[] | InvitationInput,
  authentication: 'none' | 'sso' = 'none',
): Promise<InvitationError[]> {
  const invitations = invitationsOf(body);
  return store.transaction(async (tx) => {
    await tx.members.lockTeam(team.id);
    const emails = invitations.map((i) => normalizeEmail(i.raw));
    const known = await tx.members.findByEmails(team.id, [...new Set(emails.filter((e) => e !== undefined))]);
    const existing = new Map(known.map((m) => [m.email, m]));
    const errors: InvitationError[] = [];
    const seen = new Set<string>();
    const created = new Date();
    const made: Array<Omit<Member, 'id'>> = [];
    for (const [index, { raw, role }] of invitations.entries()) {
      const email = emails[index];
      const reason = email === undefined ? invitationReasons.malformed : refusalOf(email, seen, existing);
      if (reason !== undefined) {
        errors.push({
          email: typeof raw === 'string' ? raw : raw === undefined || raw === null ? '' : JSON.stringify(raw),
          reason,
        });
        continue;
      }
      made.push({
        teamId: team.id,
        userToken: newToken(),
        email: email!,
        firstName: '',
        lastName: '',
        role,
        state: 'pending',
        authentication,
        created,
        lastLogin: null,
      });
    }
    await tx.members.insertMany(made);
    return errors;
  });
}

function isLoginAuthentication(value: string): value is MemberProfile['authentication'] {
  return value !== 'none' && (memberAuthentications as readonly string[]).includes(value);
}

/**
 * Accepts a pending invitation on behalf of its user (operators setting up a team without a web
 * login): the member becomes active with the given names and authentication. The operator names
 * the team; the command line finds it (requireTeam) and passes it in.
 */
export async function acceptInvitation(
  store: MemberStore,
  team: Team,
  rawEmail: string,
  profile: { firstName?: string | undefined; lastName?: string | undefined; authentication?: string | undefined },
): Promise<Member> {
  const email = normalizeEmail(rawEmail);
  if (email === undefined) throw new OperatorError(`"${rawEmail}" is not an e-mail address`);
  const authentication = profile.authentication ?? 'password';
  if (!isLoginAuthentication(authentication))
    throw new OperatorError(`unknown authentication "${authentication}" (password, 2fa, sso)`);
  const [member] = await store.members.findByEmails(team.id, [email]);
  if (member === undefined) throw new OperatorError(`no invitation for ${email} in team "${team.name}"`);
  if (member.state === 'active') throw new OperatorError(`${email} is already an active member of team "${team.name}"`);
  const accepted = await store.members.activate(team.id, member.id, {
    firstName: profile.firstName ?? '',
    lastName: profile.lastName ?? '',
    authentication,
  });
  if (accepted === undefined) throw new OperatorError(`no invitation for ${email} in team "${team.name}"`);
  return accepted;
}
