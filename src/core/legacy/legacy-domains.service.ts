import { maxAssetPageSize, type Asset } from '../assets/asset.types.ts';
import type { MarkerCodec } from '../shared/marker.ts';
import type { Team } from '../teams/team.types.ts';
import { legacyListCap } from './legacy-findings.service.ts';
import type { ScanStore } from '../scans/scan.types.ts';
import type { LegacyDeps } from './legacy.types.ts';

/**
 * The older v2 reads of domains: a domain is a root asset (a domain name or an IP address the
 * team added). Both answers are bare arrays, read page by page up to a cap.
 */

/** The team's root assets in the order they were added, at most `cap`. */
export async function listDomains(
  store: ScanStore,
  team: Team,
  cap = legacyListCap,
): Promise<{ domains: Asset[]; isTruncated: boolean }> {
  const domains: Asset[] = [];
  let afterId: number | undefined;
  for (;;) {
    const limit = Math.min(maxAssetPageSize, cap - domains.length);
    const page = await store.assets.listFullPage({
      teamId: team.id,
      scope: { kind: 'roots' },
      afterId,
      createdAfter: undefined,
      limit: limit + 1,
    });
    domains.push(...page.slice(0, limit));
    if (page.length <= limit) return { domains, isTruncated: false };
    if (domains.length >= cap) return { domains, isTruncated: true };
    afterId = domains[domains.length - 1]!.id;
  }
}

/**
 * The subdomains of a domain token as the current listing gives them (subdomain assets, then
 * names discovered by DNS), as runs of comma-joined v2 wire JSON (AssetPage.items), at most `cap`
 * items. 2011 / 2014 for the token.
 */
export async function collectSubdomains(
  { store, ports }: LegacyDeps,
  markers: MarkerCodec,
  team: Team,
  token: string,
  cap = legacyListCap,
): Promise<{ items: Array<string | Uint8Array>; isTruncated: boolean }> {
  const items: Array<string | Uint8Array> = [];
  let count = 0;
  let marker: string | undefined;
  for (;;) {
    const page = await ports.assets.listAssets(store, markers, team, {
      scope: { subdomainsOf: token },
      marker,
      pageSize: Math.min(maxAssetPageSize, cap - count),
    });
    items.push(...page.items);
    count += page.count;
    if (!page.hasMore) return { items, isTruncated: false };
    if (count >= cap) return { items, isTruncated: true };
    marker = page.nextMarker;
  }
}
