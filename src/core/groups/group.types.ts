import type { AssetRepositories } from '../assets/asset.types.ts';
import type { MemberRepository } from '../members/member.types.ts';
import type { Transactional } from '../shared/transactional.ts';

/** A named set of team members and asset patterns; the patterns select the group's assets. */
export interface Group {
  id: number;
  teamId: number;
  token: string;
  name: string;
  description: string;
  created: Date;
  updated: Date;
}

/** A member of the team placed in a group. */
export interface GroupMember {
  id: number;
  teamId: number;
  groupId: number;
  groupToken: string;
  memberId: number;
  userToken: string;
  token: string;
  created: Date;
  updated: Date;
}

/** A pattern of a group (see asset-pattern.ts for the language), stored in canonical form. */
export interface AssetPattern {
  id: number;
  teamId: number;
  groupId: number;
  groupToken: string;
  token: string;
  pattern: string;
  created: Date;
  updated: Date;
}

/** Persistence of groups. Every method is scoped to a team. */
export interface GroupRepository {
  /** The team's groups in creation order. */
  list(teamId: number): Promise<Group[]>;
  findByToken(teamId: number, token: string): Promise<Group | undefined>;
  findByTokens(teamId: number, tokens: string[]): Promise<Group[]>;
  /** The group whose name equals `name` ignoring case. */
  findByName(teamId: number, name: string): Promise<Group | undefined>;
  insert(group: Omit<Group, 'id'>): Promise<Group>;
  update(
    teamId: number,
    id: number,
    fields: Pick<Group, 'name' | 'description' | 'updated'>,
  ): Promise<Group | undefined>;
  /** Deletes the group with its members and patterns; false when no such group. */
  delete(teamId: number, id: number): Promise<boolean>;
}

/** Persistence of group members. Every method is scoped to a team. */
export interface GroupMemberRepository {
  list(teamId: number, groupId: number): Promise<GroupMember[]>;
  findByToken(teamId: number, groupId: number, token: string): Promise<GroupMember | undefined>;
  findByMember(teamId: number, groupId: number, memberId: number): Promise<GroupMember | undefined>;
  insert(member: Omit<GroupMember, 'id' | 'groupToken' | 'userToken'>): Promise<GroupMember>;
  delete(teamId: number, id: number): Promise<boolean>;
}

/** Persistence of asset patterns. Every method is scoped to a team. */
export interface AssetPatternRepository {
  list(teamId: number, groupId: number): Promise<AssetPattern[]>;
  /** The patterns of several groups at once. */
  listByGroups(teamId: number, groupIds: number[]): Promise<AssetPattern[]>;
  findByToken(teamId: number, groupId: number, token: string): Promise<AssetPattern | undefined>;
  insert(pattern: Omit<AssetPattern, 'id' | 'groupToken'>): Promise<AssetPattern>;
  update(teamId: number, id: number, pattern: string, at: Date): Promise<AssetPattern | undefined>;
  delete(teamId: number, id: number): Promise<boolean>;
}

/** The repositories of the group services: the asset services' (a group lists assets), groups, their members and patterns. */
export type GroupRepositories = AssetRepositories & {
  groups: GroupRepository;
  groupMembers: GroupMemberRepository;
  assetPatterns: AssetPatternRepository;
  /** Group members are members of the team. */
  members: Pick<MemberRepository, 'findByUserToken' | 'lockTeam'>;
};

/** The store as the group services see it. */
export type GroupStore = Transactional<GroupRepositories>;
