import { appError, type AppError } from '../errors/app-error.ts';
import { newToken } from '../shared/ids.ts';
import type { Team } from '../teams/team.types.ts';
import { parseAssetPattern, type ParsedPattern } from './asset-pattern.ts';
import { requireGroup, requireGroups } from './group.service.ts';
import type { AssetPattern, Group, GroupStore } from './group.types.ts';

/** 9011: an asset pattern token that is not a token (the path's `assetPatternToken`). */
export function malformedPatternToken(): AppError {
  return appError(9011, 'Asset pattern token malformed: a token is 32 lowercase hexadecimal characters', [
    'assetPatternToken',
  ]);
}

/** The pattern of the group: its token is read (checked, 9011) once the group is found. */
async function requirePattern(
  store: GroupStore,
  team: Team,
  group: Group,
  patternToken: () => string,
): Promise<AssetPattern> {
  const token = patternToken();
  const pattern = await store.assetPatterns.findByToken(team.id, group.id, token);
  if (pattern === undefined) throw appError(9013, 'Asset pattern does not exist', ['assetPatternToken']);
  return pattern;
}

/** The asset patterns of a group in creation order. */
export async function listAssetPatterns(store: GroupStore, team: Team, groupToken: string): Promise<AssetPattern[]> {
  const group = await requireGroup(store, team, groupToken);
  return store.assetPatterns.list(team.id, group.id);
}

/** Adds a pattern to a group; it is validated (9012) and stored in canonical form. */
export async function createAssetPattern(
  store: GroupStore,
  team: Team,
  groupToken: string,
  rawPattern: unknown,
): Promise<AssetPattern> {
  const group = await requireGroup(store, team, groupToken);
  const parsed = parseAssetPattern(rawPattern);
  const now = new Date();
  return store.transaction(async (tx) => {
    // Vulnerability lists filtered by group_token[] depend on the patterns: outdate their cached pages.
    await tx.vulnerabilities.bumpVersion(team.id);
    return tx.assetPatterns.insert({
      teamId: team.id,
      groupId: group.id,
      token: newToken(),
      pattern: parsed.text,
      created: now,
      updated: now,
    });
  });
}

/** Replaces the text of a pattern (9011, 9013, 9012); the pattern's token is read after the group's lookup. */
export async function updateAssetPattern(
  store: GroupStore,
  team: Team,
  groupToken: string,
  patternToken: () => string,
  rawPattern: unknown,
): Promise<AssetPattern> {
  const group = await requireGroup(store, team, groupToken);
  const current = await requirePattern(store, team, group, patternToken);
  const parsed = parseAssetPattern(rawPattern);
  return store.transaction(async (tx) => {
    const updated = await tx.assetPatterns.update(team.id, current.id, parsed.text, new Date());
    if (updated === undefined) throw appError(9013, 'Asset pattern does not exist', ['assetPatternToken']);
    await tx.vulnerabilities.bumpVersion(team.id);
    return updated;
  });
}

/** Deletes a pattern of a group (9011, 9013); the pattern's token is read after the group's lookup. */
export async function deleteAssetPattern(
  store: GroupStore,
  team: Team,
  groupToken: string,
  patternToken: () => string,
): Promise<void> {
  const group = await requireGroup(store, team, groupToken);
  const current = await requirePattern(store, team, group, patternToken);
  await store.transaction(async (tx) => {
    if (!(await tx.assetPatterns.delete(team.id, current.id)))
      throw appError(9013, 'Asset pattern does not exist', ['assetPatternToken']);
    await tx.vulnerabilities.bumpVersion(team.id);
  });
}

/**
 * The parsed patterns of the given groups of the team, ready for matchesAnyPattern (group asset
 * listings, vulnerability filters): 9001 for a malformed token, 9003 for an unknown one.
 */
export async function loadGroupPatterns(
  store: GroupStore,
  team: Team,
  groupTokens: unknown[],
): Promise<{ groups: Group[]; patterns: ParsedPattern[] }> {
  const groups = await requireGroups(store, team, groupTokens);
  const rows = await store.assetPatterns.listByGroups(
    team.id,
    groups.map((g) => g.id),
  );
  // Stored patterns were validated on the way in; one that no longer parses is skipped, not fatal.
  const patterns = rows.flatMap((row) => {
    try {
      return [parseAssetPattern(row.pattern)];
    } catch {
      return [];
    }
  });
  return { groups, patterns };
}
