import type { AssetListInput, AssetPage, AssetStore } from '../assets/asset.types.ts';
import type { MarkerCodec } from '../shared/marker.ts';
import type { AssetTokenLookup, ScanProfile, ScanStore } from '../scans/scan.types.ts';
import type { Team } from '../teams/team.types.ts';
import type { VulnerabilityStore } from '../vulnerabilities/vulnerability.repository.ts';
import type { VulnerabilityRecord } from '../vulnerabilities/vulnerability.types.ts';

/**
 * What the legacy reads ask of the assets area: what a domain token names, and one page of an
 * asset listing (the subdomains). The assets area implements it (requireTokenTarget, listAssets).
 */
export interface LegacyAssetReads extends AssetTokenLookup {
  listAssets(store: AssetStore, markers: MarkerCodec, team: Team, input: AssetListInput): Promise<AssetPage>;
}

/** What the legacy reports ask of the scans area: a profile of the team by token, 2601 / 2604 (requireProfile). */
export interface ProfileLookup {
  requireProfile(store: Pick<ScanStore, 'scanProfiles'>, team: Team, token: string): Promise<ScanProfile>;
}

/** What the legacy findings ask of the vulnerabilities area: one of the team's by UUID, 4111 / 1900 (requireVulnerability). */
export interface VulnerabilityLookup {
  requireVulnerability(store: VulnerabilityStore, team: Team, uuid: string): Promise<VulnerabilityRecord>;
}

/** The other areas' capabilities the legacy reads take, wired by the composition root. */
export interface LegacyPorts {
  assets: LegacyAssetReads;
  profiles: ProfileLookup;
  vulnerabilities: VulnerabilityLookup;
}

/** The store and the ports, as the reads that need another area take them (the HTTP deps satisfy it). */
export interface LegacyDeps {
  store: ScanStore;
  ports: LegacyPorts;
}
