import type { AssetPattern, Group, GroupMember } from '../../core/groups/group.types.ts';
import { toWireTime } from '../../core/shared/time.ts';

/** The v2 wire shape of a group. */
export function presentGroup(group: Group): Record<string, unknown> {
  return {
    token: group.token,
    name: group.name,
    description: group.description,
    created: toWireTime(group.created),
    updated: toWireTime(group.updated),
  };
}

/** The v2 wire shape of a group member. */
export function presentGroupMember(member: GroupMember): Record<string, unknown> {
  return {
    token: member.token,
    group_token: member.groupToken,
    user_token: member.userToken,
    created: toWireTime(member.created),
    updated: toWireTime(member.updated),
  };
}

/** The v2 wire shape of an asset pattern. */
export function presentAssetPattern(pattern: AssetPattern): Record<string, unknown> {
  return {
    token: pattern.token,
    group_token: pattern.groupToken,
    pattern: pattern.pattern,
    created: toWireTime(pattern.created),
    updated: toWireTime(pattern.updated),
  };
}
