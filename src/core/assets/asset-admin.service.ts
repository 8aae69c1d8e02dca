import { OperatorError } from '../errors/operator-error.ts';
import type { Team } from '../teams/team.types.ts';
import type { Asset, AssetStore } from './asset.types.ts';
import { recordOwnershipCheck, type OwnershipCheckResult, type VerificationService } from './verification.service.ts';

/**
 * Finds the one asset an operator means by name: `teamName` is needed only when several teams
 * own that name.
 */
export async function findAssetForOperator(
  store: AssetStore,
  name: string,
  teamName?: string,
): Promise<{ asset: Asset; team: Team }> {
  const normalized = name.trim().toLowerCase().replace(/\.$/, '');
  const candidates: Array<{ asset: Asset; team: Team }> = [];
  for (const asset of await store.assets.findAllByName(normalized)) {
    const team = await store.teams.findById(asset.teamId);
    if (team !== undefined && (teamName === undefined || team.name === teamName)) candidates.push({ asset, team });
  }
  if (candidates.length === 0)
    throw new OperatorError(`no asset named "${normalized}"${teamName ? ` in team "${teamName}"` : ''}`);
  if (candidates.length > 1) {
    throw new OperatorError(
      `several teams own "${normalized}" (${candidates.map((c) => c.team.name).join(', ')}): name one with --team`,
    );
  }
  return candidates[0]!;
}

/** Marks an asset verified by an operator's decision. */
export async function markAssetVerified(store: AssetStore, name: string, teamName?: string): Promise<Asset> {
  const { asset, team } = await findAssetForOperator(store, name, teamName);
  await recordOwnershipCheck(store, asset, true);
  return (await store.assets.findByToken(team.id, asset.token))!;
}

/** Runs the ownership check of an asset now. */
export async function checkAssetNow(
  store: AssetStore,
  verification: VerificationService,
  name: string,
  teamName?: string,
): Promise<{ asset: Asset; result: OwnershipCheckResult }> {
  const { asset, team } = await findAssetForOperator(store, name, teamName);
  const result = await verification.check(team, asset);
  return { asset: (await store.assets.findByToken(team.id, asset.token))!, result };
}
