import { evaluateBreaches } from '../../src/core/policies/breach.service.ts';
import type { ServiceGuess } from '../../src/core/surface/exposure-engines.ts';
import type { SurfaceRunSummary } from '../../src/core/surface/surface-run.types.ts';
import { createHarness, type Harness } from './harness.ts';
import { runSummary } from './overview-fixture.ts';

/**
 * A team whose surface inventory the console's Surface pages read, recorded as the surface runner
 * records a completed run (addresses, ports, technologies, then the policies) and with the runs
 * themselves, plus a rival team with an inventory of its own (tenancy). Times are fixed days of
 * February 2026 so pages and filters are predictable.
 */

export const day = (d: number, hour = 12): number => Date.UTC(2026, 1, d, hour);

const service = (name: string, extra: Partial<ServiceGuess> = {}): ServiceGuess => ({
  name,
  isTls: false,
  isHttp: name === 'http',
  banner: undefined,
  product: undefined,
  version: undefined,
  ...extra,
});

/** What the fixture made, by name. */
export interface SurfaceFixture {
  h: Harness;
  v3: string;
  teamId: number;
  assets: Record<string, { id: number; token: string }>;
  /** Inventory ids of the team's addresses, by address. */
  ips: Record<string, number>;
  /** Breach ids by `policy_id host`. */
  breaches: Record<string, number>;
  runs: number[];
  rival: { ip: number; breach: number; run: number };
}

/** A completed run's summary: the overview's with this fixture's counts (three names, two addresses, three ports). */
const summary = (over: Partial<SurfaceRunSummary> = {}): SurfaceRunSummary => ({
  ...runSummary(3, 2),
  addresses: 2,
  ports: { open: 3, opened: 3, reopened: 0, closed: 0 },
  ...over,
});

/** One completed run of an asset: its row, then what it saw, recorded at `at`. */
async function completedRun(
  h: Harness,
  teamId: number,
  assetId: number,
  at: number,
  seen: { ips: Array<{ name: string; address: string }>; open: Array<[string, number, string, ServiceGuess]> },
  technologies: Array<{ domainName: string; port: number; name: string; version: string | null; categories: string[] }>,
  result: SurfaceRunSummary,
): Promise<number> {
  const store = h.runtime.store;
  const run = (await store.surfaceRuns.insertLive({
    teamId,
    assetId,
    trigger: 'enable',
    created: new Date(at - 120_000),
  }))!;
  await store.surfaceRuns.markRunning(run.id, 'fixture', new Date(at - 60_000));
  await h.runtime.ipInventory.recordRun({ teamId, assetId, at, seen: seen.ips });
  await h.runtime.surfaceRunner.portInventory.recordRun({
    teamId,
    assetId,
    at,
    open: seen.open.map(([address, port, domainName, s]) => ({ address, port, domainName, service: s })),
  });
  await h.runtime.surfaceRunner.technologyInventory.recordRun({
    teamId,
    assetId,
    at,
    seen: technologies.map((t) => ({ ...t, serviceProtocol: 'https' })),
  });
  await evaluateBreaches(store, { teamId, assetId, at });
  await store.surfaceRuns.end(run.id, 'completed', new Date(at + 1_000), { summary: result });
  return run.id;
}

/** A fresh harness with the fixture's teams (see seedSurface). */
export async function openSurfaceFixture(): Promise<SurfaceFixture> {
  return seedSurface(await createHarness());
}

/** A team with root assets added through v2: its v2 and v3 keys, id and assets. */
async function teamWithAssets(h: Harness, team: string, names: string[]) {
  const v2 = (await h.team(team)).key;
  const teamId = (await h.runtime.store.teams.findByName(team))!.id;
  const assets: SurfaceFixture['assets'] = {};
  for (const name of names) {
    const res = await h.send('POST', '/rest/v2/assets/', { key: v2, body: { name } });
    if (res.statusCode !== 200) throw new Error(res.body);
    const asset = (await h.runtime.store.assets.findByName(teamId, name))!;
    assets[name] = { id: asset.id, token: asset.token };
  }
  return { v2, teamId, assets };
}

const mysql = service('mysql', { product: 'MySQL', version: '8.0.36' });
const https = service('http', { isTls: true, isHttp: true });
const ssh = service('ssh', { product: 'OpenSSH', version: '9.2p1' });
const nginx = {
  domainName: 'www.shop.example',
  port: 443,
  name: 'Nginx',
  version: '1.25.3',
  categories: ['Web servers'],
};
const shopIps = [
  { name: 'www.shop.example', address: '192.0.2.10' },
  { name: 'db.shop.example', address: '192.0.2.20' },
];

/** Acme's three runs: shop.example twice (the second no longer finds ssh: the port closes, its breach resolves), blog.example once. */
async function acmeRuns(h: Harness, teamId: number, assets: SurfaceFixture['assets']): Promise<number[]> {
  const shop = assets['shop.example']!.id;
  const web: [string, number, string, ServiceGuess] = ['192.0.2.10', 443, 'www.shop.example', https];
  const db: [string, number, string, ServiceGuess] = ['192.0.2.20', 3306, 'db.shop.example', mysql];
  return [
    await completedRun(
      h,
      teamId,
      shop,
      day(1),
      { ips: shopIps, open: [web, ['192.0.2.10', 22, 'www.shop.example', ssh], db] },
      [nginx],
      summary(),
    ),
    await completedRun(
      h,
      teamId,
      shop,
      day(3),
      { ips: shopIps, open: [web, db] },
      [nginx],
      summary({ ports: { open: 2, opened: 0, reopened: 0, closed: 1 } }),
    ),
    await completedRun(
      h,
      teamId,
      assets['blog.example']!.id,
      day(4),
      {
        ips: [{ name: 'blog.example', address: '198.51.100.7' }],
        open: [['198.51.100.7', 80, 'blog.example', service('http')]],
      },
      [],
      summary({ names: 1, addresses: 1 }),
    ),
  ];
}

/** The rival team's one run, an address and a breach: records acme's members must never see. */
async function rivalRecords(h: Harness): Promise<SurfaceFixture['rival']> {
  const { teamId, assets } = await teamWithAssets(h, 'rivals', ['rival.example']);
  const assetId = assets['rival.example']!.id;
  const run = await completedRun(
    h,
    teamId,
    assetId,
    day(2),
    {
      ips: [{ name: 'db.rival.example', address: '203.0.113.5' }],
      open: [['203.0.113.5', 5432, 'db.rival.example', service('postgresql')]],
    },
    [],
    summary(),
  );
  const ip = (await h.runtime.store.ipAddresses.listOfAsset(teamId, assetId))[0]!;
  const breach = (await h.runtime.store.breaches.listOfAsset(teamId, assetId))[0]!;
  return { ip: ip.id, breach: breach.id, run };
}

/** Team `acme` (shop.example, blog.example) and team `rivals` (rival.example), each with an inventory. */
export async function seedSurface(h: Harness): Promise<SurfaceFixture> {
  const { teamId, assets } = await teamWithAssets(h, 'acme', ['shop.example', 'blog.example']);
  const v3 = (await h.key('acme', '--v3')).key;
  const runs = await acmeRuns(h, teamId, assets);
  const rival = await rivalRecords(h);
  const store = h.runtime.store;
  const ipRows = [
    ...(await store.ipAddresses.listOfAsset(teamId, assets['shop.example']!.id)),
    ...(await store.ipAddresses.listOfAsset(teamId, assets['blog.example']!.id)),
  ];
  const breachRows = await store.breaches.listOfAsset(teamId, assets['shop.example']!.id);
  return {
    h,
    v3,
    teamId,
    assets,
    ips: Object.fromEntries(ipRows.map((r) => [r.ipAddress, r.id])),
    breaches: Object.fromEntries(breachRows.map((b) => [`${b.policyId} ${b.assetName}`, b.id])),
    runs,
    rival,
  };
}
