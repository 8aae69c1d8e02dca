import { addAsset } from '../../src/core/assets/asset.service.ts';
import type { Asset } from '../../src/core/assets/asset.types.ts';
import type { Team } from '../../src/core/teams/team.types.ts';
import { recordScan, type IngestionResult } from '../../src/core/vulnerabilities/ingestion.service.ts';
import type { FindingInput, ScanSource, Severity } from '../../src/core/vulnerabilities/vulnerability.types.ts';
import type { Harness } from './harness.ts';

/** A minimal finding; override what a test cares about. */
export function finding(checkId: string, overrides: Partial<FindingInput> = {}): FindingInput {
  const host = overrides.host ?? 'app.example.com';
  return {
    checkId,
    location: `https://${host}/${checkId}`,
    host,
    title: `Title of ${checkId}`,
    severity: 'medium' as Severity,
    definition: {
      title: checkId,
      description: 'd',
      risk: 'r',
      module_version: '1',
      module_release: new Date(Date.UTC(2026, 0, 1)),
      is_crowdsourced: false,
    },
    ...overrides,
  };
}

/** A team's context for recording scans in tests. */
export interface ScanTarget {
  team: Team;
  asset: Asset;
}

/** Loads a team by name and adds (or finds) an asset for it. */
export async function scanTarget(h: Harness, teamName: string, assetName: string): Promise<ScanTarget> {
  const team = (await h.runtime.store.teams.findByName(teamName))!;
  const existing = await h.runtime.store.assets.findByName(team.id, assetName);
  const asset = existing ?? (await addAsset(h.runtime.store, team, assetName)).asset;
  return { team, asset };
}

/** Records one scan through the ingestion service. */
export function scan(
  h: Harness,
  target: ScanTarget,
  findings: FindingInput[],
  options: { source?: ScanSource; profile?: string | null; at?: Date; isComplete?: boolean } = {},
): Promise<IngestionResult> {
  return recordScan(
    h.runtime.store,
    {
      teamId: target.team.id,
      asset: { id: target.asset.id, token: target.asset.token, name: target.asset.name },
      scanSource: options.source ?? 'application-scanning',
      scanProfileToken: options.profile === undefined ? 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' : options.profile,
      scannedAt: options.at ?? new Date(),
      isComplete: options.isComplete ?? true,
    },
    findings,
    { detailsPageBase: 'http://perimeter.test' },
  );
}
