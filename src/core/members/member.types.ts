import type { Transactional } from '../shared/transactional.ts';
import type { TeamRepositories } from '../teams/team.types.ts';

/** Roles a member can have in a team. */
export const memberRoles = ['Admin', 'Editor', 'Viewer'] as const;

/** One role of a team member. */
export type MemberRole = (typeof memberRoles)[number];

/** `pending` from the invitation until the user accepts it, `active` afterwards. */
export type MemberState = 'pending' | 'active';

/**
 * How a member logs in: `none` while the invitation is pending, then `password`, `2fa` or
 * `sso` (the spec's sample shows `2fa`).
 */
export const memberAuthentications = ['none', 'password', '2fa', 'sso'] as const;

/** One authentication value of a member. */
export type MemberAuthentication = (typeof memberAuthentications)[number];

/** A user of a team: invited by e-mail, active once the invitation is accepted. */
export interface Member {
  id: number;
  teamId: number;
  /** The user's token, issued at the invitation; group members refer to it. */
  userToken: string;
  /** Lowercase; unique within the team. */
  email: string;
  /** Empty until the user (or an operator on their behalf) accepts the invitation. */
  firstName: string;
  lastName: string;
  role: MemberRole;
  state: MemberState;
  authentication: MemberAuthentication;
  /** Time of the invitation. */
  created: Date;
  /** Time of the last login; null until the user has logged in. */
  lastLogin: Date | null;
}

/** What accepting an invitation sets. */
export interface MemberProfile {
  firstName: string;
  lastName: string;
  authentication: Exclude<MemberAuthentication, 'none'>;
}

/** Persistence of team members. Every method is scoped to a team. */
export interface MemberRepository {
  /** The team's members, in the order they were invited. */
  listByTeam(teamId: number): Promise<Member[]>;
  findByEmails(teamId: number, emails: string[]): Promise<Member[]>;
  findByUserToken(teamId: number, userToken: string): Promise<Member | undefined>;
  findById(teamId: number, id: number): Promise<Member | undefined>;
  /** Sets how an active member signs in (`password` or `2fa`, from the console's account page). */
  setAuthentication(teamId: number, id: number, authentication: MemberAuthentication): Promise<void>;
  insertMany(members: Array<Omit<Member, 'id'>>): Promise<void>;
  /** Sets a member's role (the console's team page). */
  setRole(teamId: number, id: number, role: MemberRole): Promise<void>;
  /** Removes a member; its sessions, links and group memberships go with it (foreign keys cascade). */
  remove(teamId: number, id: number): Promise<void>;
  /** Marks a pending member active with its profile; undefined when no such member. */
  activate(teamId: number, id: number, profile: MemberProfile): Promise<Member | undefined>;
  /** Serialises writes of the members and groups of one team (a row lock on PostgreSQL; SQLite has one writer). */
  lockTeam(teamId: number): Promise<void>;
}

/** The repositories of the member services. */
export interface MemberRepositories extends TeamRepositories {
  members: MemberRepository;
}

/** The store as the member services see it. */
export type MemberStore = Transactional<MemberRepositories>;
