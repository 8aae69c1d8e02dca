import { appError, type AppError } from '../errors/app-error.ts';
import { isToken, newToken } from '../shared/ids.ts';
import type { Team } from '../teams/team.types.ts';
import type { Group, GroupRepositories, GroupStore } from './group.types.ts';

/** Group names and descriptions are shorter than this many characters. */
export const groupTextLimit = 255;

/** 9001: a group token that is not a token (the path's `groupToken`, or one of the body's `groupTokens`). */
export function malformedGroupToken(parameter = 'groupToken'): AppError {
  return appError(9001, 'Group token malformed: a token is 32 lowercase hexadecimal characters', [parameter]);
}

/** Validates the shape of a group token (9001). */
export function assertGroupToken(token: unknown, parameter = 'groupToken'): asserts token is string {
  if (typeof token !== 'string' || !isToken(token)) throw malformedGroupToken(parameter);
}

/** Finds a group of the team: 9001 when the token is malformed, 9003 when unknown or another team's. */
export async function requireGroup(store: GroupStore, team: Team, token: string): Promise<Group> {
  assertGroupToken(token);
  const group = await store.groups.findByToken(team.id, token);
  if (group === undefined) throw appError(9003, 'Group does not exist', ['groupToken']);
  return group;
}

/**
 * Finds several groups of the team by token (the body of "assets of groups"): 9001 for any
 * malformed token, 9003 for any unknown or another team's. Duplicates are fine.
 */
export async function requireGroups(store: GroupStore, team: Team, tokens: unknown[]): Promise<Group[]> {
  for (const token of tokens) assertGroupToken(token, 'groupTokens');
  const unique = [...new Set(tokens as string[])];
  const groups = await store.groups.findByTokens(team.id, unique);
  const missing = unique.find((token) => !groups.some((g) => g.token === token));
  if (missing !== undefined) throw appError(9003, `Group does not exist: ${missing}`, ['groupTokens']);
  return groups;
}

/**
 * 9002 for a group name that fails the body schema (a string of 1 to 254 letters, digits,
 * underscore, dash and space, not blank), naming the first rule it breaks.
 */
export function invalidGroupName(raw: unknown): AppError {
  const invalid = (why: string) => appError(9002, `Group name invalid: ${why}`, ['name']);
  if (typeof raw !== 'string') return invalid('name is required and must be a string');
  if (raw.trim() === '') return invalid('the name is empty');
  if (raw.length >= groupTextLimit) return invalid(`the name must be shorter than ${groupTextLimit} characters`);
  return invalid('the name may contain only letters, digits, underscore, dash and space');
}

/** 9002 for a group description that fails the body schema (a string shorter than 255 characters without NUL, or null), naming the rule. */
export function invalidGroupDescription(raw: unknown): AppError {
  if (typeof raw !== 'string')
    return appError(9002, 'Group description invalid: description must be a string', ['description']);
  if (raw.length >= groupTextLimit)
    return appError(
      9002,
      `Group description invalid: the description must be shorter than ${groupTextLimit} characters`,
      ['description'],
    );
  return appError(9002, 'Group description invalid: the description may not hold a NUL character (U+0000)', [
    'description',
  ]);
}

/** A group's fields as the body schema has checked them: null description means none (""). */
export interface GroupInput {
  name: string;
  description?: string | null;
}

async function assertNameFree(repos: GroupRepositories, team: Team, name: string, exceptId?: number): Promise<void> {
  const holder = await repos.groups.findByName(team.id, name);
  if (holder !== undefined && holder.id !== exceptId)
    throw appError(9002, 'Group name invalid: a group with that name exists', ['name']);
}

/** The groups of a team in creation order. */
export async function listGroups(store: GroupStore, team: Team): Promise<Group[]> {
  return store.groups.list(team.id);
}

/**
 * Creates a group. The body's schema has checked the name (non-empty, shorter than 255
 * characters, letters, digits, underscore, dash and space only) and the description (optional,
 * "" by default or null, shorter than 255 characters); the name must also be unique within the
 * team ignoring case. Each rule is 9002.
 */
export async function createGroup(store: GroupStore, team: Team, body: GroupInput): Promise<Group> {
  const { name } = body;
  const description = body.description ?? '';
  return store.transaction(async (tx) => {
    await tx.members.lockTeam(team.id);
    await assertNameFree(tx, team, name);
    const now = new Date();
    return tx.groups.insert({ teamId: team.id, token: newToken(), name, description, created: now, updated: now });
  });
}

/** Updates the name and/or description of a group (each optional, same rules as creation); the body is read after the group's lookup. */
export async function updateGroup(
  store: GroupStore,
  team: Team,
  token: string,
  input: () => Partial<GroupInput>,
): Promise<Group> {
  const group = await requireGroup(store, team, token);
  const body = input();
  const name = body.name ?? group.name;
  const description = body.description === undefined ? group.description : (body.description ?? '');
  return store.transaction(async (tx) => {
    await tx.members.lockTeam(team.id);
    await assertNameFree(tx, team, name, group.id);
    const updated = await tx.groups.update(team.id, group.id, { name, description, updated: new Date() });
    if (updated === undefined) throw appError(9003, 'Group does not exist', ['groupToken']);
    return updated;
  });
}

/** Deletes a group with its members and asset patterns. */
export async function deleteGroup(store: GroupStore, team: Team, token: string): Promise<void> {
  const group = await requireGroup(store, team, token);
  const isDeleted = await store.transaction(async (tx) => {
    // Its patterns go with it: cached vulnerability pages filtered by this group are outdated.
    await tx.vulnerabilities.bumpVersion(team.id);
    return tx.groups.delete(team.id, group.id);
  });
  if (!isDeleted) throw appError(9003, 'Group does not exist', ['groupToken']);
}
