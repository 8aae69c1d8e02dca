import type { Team } from '../teams/team.types.ts';
import { memberRoles, type MemberRole, type MemberStore } from './member.types.ts';
import { losesLastWayIn, type MemberChange } from './member-ways-in.ts';

/**
 * What an Admin does to the members of a team from the console: change a role, remove a member.
 * The team always keeps an active Admin who can sign in (a password, or single sign-on set up for
 * the team), so nobody can lock the team out of its own settings; a
 * member of another team, an unknown one and a malformed token are alike not found. There is no
 * v2 operation for either, so the outcomes are values for the page to word, not error codes.
 */

/** The role a form names (Admin, Editor or Viewer, any case), or undefined. */
export function parseMemberRole(raw: unknown): MemberRole | undefined {
  if (typeof raw !== 'string') return undefined;
  return memberRoles.find((r) => r.toLowerCase() === raw.trim().toLowerCase());
}

const lastAdmin = 'The team needs at least one active Admin who can sign in: make another member Admin first.';

/** Sets a member's role, in a transaction that serialises the team's member writes. */
export async function changeMemberRole(
  store: MemberStore,
  team: Team,
  userToken: string,
  rawRole: unknown,
  isSsoConfigured = false,
): Promise<MemberChange> {
  const role = parseMemberRole(rawRole);
  if (role === undefined)
    return { kind: 'invalid', problem: `Role malformed: expected one of ${memberRoles.join(', ')}` };
  return store.transaction(async (tx) => {
    await tx.members.lockTeam(team.id);
    const member = await tx.members.findByUserToken(team.id, userToken);
    if (member === undefined) return { kind: 'not-found' };
    const members = await tx.members.listByTeam(team.id);
    if (losesLastWayIn(members, member, { ...member, role }, isSsoConfigured))
      return { kind: 'invalid', problem: lastAdmin };
    await tx.members.setRole(team.id, member.id, role);
    return { kind: 'done', member: { ...member, role } };
  });
}

/** Removes a member (its sessions end, its group memberships go), unless it is the team's last way in. */
export async function removeMember(
  store: MemberStore,
  team: Team,
  userToken: string,
  isSsoConfigured = false,
): Promise<MemberChange> {
  return store.transaction(async (tx) => {
    await tx.members.lockTeam(team.id);
    const member = await tx.members.findByUserToken(team.id, userToken);
    if (member === undefined) return { kind: 'not-found' };
    const members = await tx.members.listByTeam(team.id);
    if (losesLastWayIn(members, member, undefined, isSsoConfigured)) return { kind: 'invalid', problem: lastAdmin };
    await tx.members.remove(team.id, member.id);
    return { kind: 'done', member };
  });
}
