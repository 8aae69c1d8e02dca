import { createHash } from 'node:crypto';
import { defaultAssetSettings } from '../../src/core/assets/asset-settings.ts';
import { defaultScanProfileSettings } from '../../src/core/scans/scan-profile-settings.ts';
import type { SurfaceRunSummary } from '../../src/core/surface/surface-run.types.ts';
import { finding, scan, scanTarget, type ScanTarget } from './findings.ts';
import type { Harness } from './harness.ts';

/**
 * A team's data for the overview tests, written through the ingestion service (findings) and the
 * store (monitoring, breaches, runs, a scan profile and its scan: what a real run or scan would
 * leave, without the network). What `seedOverviewTeam` writes is what `OverviewSeed` says the
 * overview must count.
 */

const dayMs = 86_400_000;

/** A finished run's summary with these counts. */
export function runSummary(names: number, created: number): SurfaceRunSummary {
  return {
    names,
    newNames: names,
    goneNames: 0,
    addresses: 1,
    isWildcard: false,
    takeovers: 0,
    ports: { open: 2, opened: 2, reopened: 0, closed: 0 },
    tlsEndpoints: 1,
    technologies: { seen: 1, added: 1, returned: 0, disappeared: 0 },
    findings: { created, updated: 0, regressions: 0, patched: 0 },
    breaches: { breached: 2, opened: 2, reopened: 0, resolved: 0 },
  };
}

/** What one team holds beside its findings: monitored assets, breaches, a run, a profile and its scan. */
export interface SurroundingsSeed {
  monitored: string[];
  openBreaches: number;
  resolvedBreaches: number;
  profileName: string;
}

/**
 * Monitoring switched on for the named root assets (added when missing), breaches on the first
 * (some resolved), a completed monitoring run of it, and a scan profile with a starting scan.
 */
export async function seedSurroundings(h: Harness, team: string, seed: SurroundingsSeed): Promise<ScanTarget> {
  const store = h.runtime.store;
  const now = new Date();
  const targets: ScanTarget[] = [];
  for (const name of seed.monitored) {
    const target = await scanTarget(h, team, name);
    await store.assets.updateSettings(
      target.team.id,
      target.asset.id,
      { ...defaultAssetSettings, monitoring: true },
      now,
    );
    targets.push(target);
  }
  const { team: t, asset } = targets[0]!;
  const total = seed.openBreaches + seed.resolvedBreaches;
  await store.breaches.insertMany(
    Array.from({ length: total }, (_, i) => ({
      teamId: t.id,
      assetId: asset.id,
      policyId: `policy-${i}`,
      policyName: `Policy ${i}`,
      assetName: `host${i}.${asset.name}`,
      severity: 'HIGH' as const,
      evidence: `port ${8000 + i}`,
      at: now,
    })),
  );
  const rows = await store.breaches.listOfAsset(t.id, asset.id);
  const resolved = rows.slice(0, seed.resolvedBreaches).map((r) => r.id);
  if (resolved.length > 0) await store.breaches.markResolved(t.id, resolved, now);
  const run = (await store.surfaceRuns.insertLive({
    teamId: t.id,
    assetId: asset.id,
    trigger: 'enable',
    created: now,
  }))!;
  await store.surfaceRuns.end(run.id, 'completed', now, { summary: runSummary(7, 3) });
  const profile = await store.scanProfiles.insert({
    teamId: t.id,
    assetId: asset.id,
    token: createHash('md5').update(`profile of ${team}`).digest('hex'),
    name: seed.profileName,
    endpoint: `https://app.${asset.name}`,
    endpointKey: `https://app.${asset.name}:443`,
    scheme: 'https',
    port: 443,
    settings: { ...defaultScanProfileSettings },
    isActive: true,
    schedule: { frequency: 'never', first: null, next: null },
    created: now,
    updated: now,
  });
  await store.scans.insertLive({
    teamId: t.id,
    profileId: profile.id,
    token: profile.token.split('').reverse().join(''),
    trigger: 'api',
    endpoint: profile.endpoint,
    profileName: profile.name,
    created: now,
  });
  return targets[0]!;
}

/**
 * Findings of one team over days: five recorded three days ago (one critical, two high, one
 * medium, one low), a rescan a day ago that no longer sees the low one (patched now), and an
 * information finding of another profile recorded now.
 */
export async function seedFindings(h: Harness, target: ScanTarget): Promise<void> {
  const now = Date.now();
  const first = [
    finding('a', { severity: 'critical' }),
    finding('b', { severity: 'high' }),
    finding('c', { severity: 'high' }),
    finding('d', { severity: 'medium' }),
    finding('e', { severity: 'low' }),
  ];
  await scan(h, target, first, { at: new Date(now - 3 * dayMs) });
  await scan(h, target, first.slice(0, 4), { at: new Date(now - dayMs) });
  await scan(h, target, [finding('f', { severity: 'information' })], {
    at: new Date(now),
    profile: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  });
}

/** The UTC day (YYYY-MM-DD) `days` before now. */
export function dayBefore(days: number): string {
  return new Date(Date.now() - days * dayMs).toISOString().slice(0, 10);
}
