import { matchesAnyPattern, type ParsedPattern } from '../groups/asset-pattern.ts';
import type { GroupStore } from '../groups/group.types.ts';
import type { Team } from '../teams/team.types.ts';
import type { VulnerabilityStore } from './vulnerability.repository.ts';

const assetChunk = 1000;

/** What the filter asks of the groups area: the parsed patterns of the team's groups (loadGroupPatterns implements it). */
export interface GroupPatternSource {
  loadGroupPatterns(store: GroupStore, team: Team, groupTokens: unknown[]): Promise<{ patterns: ParsedPattern[] }>;
}

/**
 * What the patterns of the given groups match for the vulnerability filter: the team's assets
 * whose names match (read in keyset chunks) and the distinct vulnerability hosts that match.
 * Group tokens follow the groups' rules: 9001 malformed, 9003 unknown or another team's.
 */
export async function matchGroupsForVulnerabilities(
  store: VulnerabilityStore,
  team: Team,
  groupTokens: string[],
  groups: GroupPatternSource,
): Promise<{ assetIds: number[]; hosts: string[] }> {
  const { patterns } = await groups.loadGroupPatterns(store, team, groupTokens);
  if (patterns.length === 0) return { assetIds: [], hosts: [] };
  const assetIds: number[] = [];
  let afterId: number | undefined;
  for (;;) {
    const chunk = await store.assets.listPage({
      teamId: team.id,
      scope: { kind: 'all' },
      afterId,
      createdAfter: undefined,
      limit: assetChunk,
    });
    for (const asset of chunk) if (matchesAnyPattern(patterns, asset.name)) assetIds.push(asset.id);
    if (chunk.length < assetChunk) break;
    afterId = chunk[chunk.length - 1]!.id;
  }
  const hosts = (await store.vulnerabilities.distinctHosts(team.id)).filter((host) =>
    matchesAnyPattern(patterns, host),
  );
  return { assetIds, hosts };
}
