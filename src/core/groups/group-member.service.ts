import { appError, type AppError } from '../errors/app-error.ts';
import { newToken } from '../shared/ids.ts';
import type { Team } from '../teams/team.types.ts';
import { requireGroup } from './group.service.ts';
import type { GroupMember, GroupStore } from './group.types.ts';

/** The members of a group in the order they were added. */
export async function listGroupMembers(store: GroupStore, team: Team, groupToken: string): Promise<GroupMember[]> {
  const group = await requireGroup(store, team, groupToken);
  return store.groupMembers.list(team.id, group.id);
}

/** 9022 for a group member body whose user token fails the body schema (32 lowercase hexadecimal characters). */
export function invalidGroupMemberUser(): AppError {
  return appError(9022, 'User token of the group member malformed: a token is 32 lowercase hexadecimal characters', [
    'userToken',
  ]);
}

/**
 * Adds a member of the team (pending invitations included) to a group: the body is read once
 * the group is found (its 9022 after 9003); 9024 when the user is not a member of this team.
 * Adding a user who is in the group already answers the existing group member.
 */
export async function addGroupMember(
  store: GroupStore,
  team: Team,
  groupToken: string,
  body: () => { userToken: string },
): Promise<GroupMember> {
  const group = await requireGroup(store, team, groupToken);
  const { userToken } = body();
  const member = await store.members.findByUserToken(team.id, userToken);
  if (member === undefined) throw appError(9024, 'User does not belong to the team', ['userToken']);
  return store.transaction(async (tx) => {
    await tx.members.lockTeam(team.id);
    const existing = await tx.groupMembers.findByMember(team.id, group.id, member.id);
    if (existing !== undefined) return existing;
    const now = new Date();
    return tx.groupMembers.insert({
      teamId: team.id,
      groupId: group.id,
      memberId: member.id,
      token: newToken(),
      created: now,
      updated: now,
    });
  });
}

/** 9021: a group member token that is not a token (the path's `groupMemberToken`). */
export function malformedGroupMemberToken(): AppError {
  return appError(9021, 'Group member token malformed: a token is 32 lowercase hexadecimal characters', [
    'groupMemberToken',
  ]);
}

/**
 * Removes a member from a group: 9021 for a malformed token (read, and checked, once the group
 * is found), 9023 when not a member of this group.
 */
export async function removeGroupMember(
  store: GroupStore,
  team: Team,
  groupToken: string,
  groupMemberToken: () => string,
): Promise<void> {
  const group = await requireGroup(store, team, groupToken);
  const member = await store.groupMembers.findByToken(team.id, group.id, groupMemberToken());
  if (member === undefined || !(await store.groupMembers.delete(team.id, member.id))) {
    throw appError(9023, 'Group member does not exist', ['groupMemberToken']);
  }
}
