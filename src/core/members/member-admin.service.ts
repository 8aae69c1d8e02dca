import type { Team } from '../teams/team.types.ts';
import { memberRoles, type Member, type MemberRole, type MemberStore } from './member.types.ts';

/**
 * What an Admin does to the members of a team from the console: change a role, remove a member.
 * The team always keeps an active Admin, so nobody can lock the team out of its own settings; a
 * member of another team, an unknown one and a malformed token are alike not found. There is no
 * v2 operation for either, so the outcomes are values for the page to word, not error codes.
 */

/** The outcome of a change to a member. */
export type MemberChange =
  { kind: 'done'; member: Member } | { kind: 'not-found' } | { kind: 'invalid'; problem: string };

/** The role a form names (Admin, Editor or Viewer, any case), or undefined. */
export function parseMemberRole(raw: unknown): MemberRole | undefined {
  if (typeof raw !== 'string') return undefined;
  return memberRoles.find((r) => r.toLowerCase() === raw.trim().toLowerCase());
}

const lastAdmin = 'The team needs at least one active Admin: make another member Admin first.';

/** Whether the change leaves the team without an active Admin. */
function isLastAdmin(members: Member[], member: Member): boolean {
  if (member.role !== 'Admin' || member.state !== 'active') return false;
  return !members.some((m) => m.id !== member.id && m.role === 'Admin' && m.state === 'active');
}

/** Sets a member's role, in a transaction that serialises the team's member writes. */
export async function changeMemberRole(
  store: MemberStore,
  team: Team,
  userToken: string,
  rawRole: unknown,
): Promise<MemberChange> {
  const role = parseMemberRole(rawRole);
  if (role === undefined)
    return { kind: 'invalid', problem: `Role malformed: expected one of ${memberRoles.join(', ')}` };
  return store.transaction(async (tx) => {
    await tx.members.lockTeam(team.id);
    const member = await tx.members.findByUserToken(team.id, userToken);
    if (member === undefined) return { kind: 'not-found' };
    if (role !== 'Admin' && isLastAdmin(await tx.members.listByTeam(team.id), member))
      return { kind: 'invalid', problem: lastAdmin };
    await tx.members.setRole(team.id, member.id, role);
    return { kind: 'done', member: { ...member, role } };
  });
}

/** Removes a member (its sessions end, its group memberships go), unless it is the team's last active Admin. */
export async function removeMember(store: MemberStore, team: Team, userToken: string): Promise<MemberChange> {
  return store.transaction(async (tx) => {
    await tx.members.lockTeam(team.id);
    const member = await tx.members.findByUserToken(team.id, userToken);
    if (member === undefined) return { kind: 'not-found' };
    if (isLastAdmin(await tx.members.listByTeam(team.id), member)) return { kind: 'invalid', problem: lastAdmin };
    await tx.members.remove(team.id, member.id);
    return { kind: 'done', member };
  });
}
