import { setTimeout as sleep } from 'node:timers/promises';
import type { SurfaceRun } from '../../src/core/surface/surface-run.types.ts';
import type { Harness } from './harness.ts';

/** Polls `probe` every 100 ms until it gives a value; fails naming `what` after the time limit. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** A verified root domain of a new enterprise team, ready for monitoring, with the team's keys. */
export interface MonitoredDomain {
  key: string;
  v3Key: string;
  assetToken: string;
  assetId: number;
  teamId: number;
}

/** Creates the team, its v2 and v3 keys, and the domain asset, verified by the operator. */
export async function addMonitoredDomain(h: Harness, team: string, name: string): Promise<MonitoredDomain> {
  const { key } = await h.team(team, { plan: 'enterprise' });
  const v3Key = (await h.key(team, '--v3')).key;
  const added = await h.send('POST', '/rest/v2/assets/', { key, body: { name } });
  const assetToken = (added.json() as { token: string }).token;
  await h.admin('asset', 'verify', name, '--team', team);
  const asset = (await h.runtime.store.assets.findByToken(
    (await h.runtime.store.teams.findByName(team))!.id,
    assetToken,
  ))!;
  return { key, v3Key, assetToken, assetId: asset.id, teamId: asset.teamId };
}

/** The latest surface run of the asset (live or ended). */
export async function latestSurfaceRun(
  h: Harness,
  domain: Pick<MonitoredDomain, 'teamId' | 'assetId'>,
): Promise<SurfaceRun | undefined> {
  return (await h.runtime.store.surfaceRuns.latestOf(domain.teamId, [domain.assetId])).get(domain.assetId);
}

/** Waits for a run of the asset newer than `afterId` to end, and returns it. */
export function endedSurfaceRun(
  h: Harness,
  domain: Pick<MonitoredDomain, 'teamId' | 'assetId'>,
  afterId = 0,
): Promise<SurfaceRun> {
  return until('the run to end', async () => {
    const run = await latestSurfaceRun(h, domain);
    return run !== undefined && run.id > afterId && !['queued', 'running', 'stopping'].includes(run.status)
      ? run
      : undefined;
  });
}
