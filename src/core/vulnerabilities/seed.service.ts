import type { Asset, AssetStore } from '../assets/asset.types.ts';
import { isAppError } from '../errors/app-error.ts';
import { newToken } from '../shared/ids.ts';
import type { Team } from '../teams/team.types.ts';
import { cvss31 } from './cvss.ts';
import { recordScan, type IngestionOptions } from './ingestion.service.ts';
import { seedChecks, type SeedCheck } from './seed-catalogue.ts';
import { changeMark, tagVulnerability } from './vulnerability-status.service.ts';
import type { FindingInput, ScanSource, Severity } from './vulnerability.types.ts';
import type { VulnerabilityStore } from './vulnerability.repository.ts';

/** A small deterministic random source (mulberry32), so a seed is reproducible. */
export function randomSource(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 3.1 base vector per severity whose score rates it so (0, 3.1, 5.4, 7.5, 9.8). */
const seedVectors: Record<Severity, string> = {
  information: 'AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N',
  low: 'AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
  medium: 'AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N',
  high: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
  critical: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
};

const words =
  'request response parameter header payload session token server client origin redirect cookie script policy certificate cipher version library endpoint query'.split(
    ' ',
  );

function sentence(rand: () => number, length: number): string {
  let out = '';
  while (out.length < length) out += `${words[Math.floor(rand() * words.length)]} `;
  return out.slice(0, length).trim();
}

/** One realistic finding of a check on a host; about one in 5000 carries a Markdown detail over 16,000 characters. */
export function makeFinding(
  rand: () => number,
  check: SeedCheck,
  host: string,
  variant: number,
  scannedAt: Date,
): FindingInput {
  const url = `https://${host}${check.path}${check.path.endsWith('=') ? `v${variant}` : variant > 0 ? `?v=${variant}` : ''}`;
  const isLong = rand() < 0.0002;
  // The random draws happen in this order (definition, exchange, details): a seed stays the same data.
  return {
    checkId: check.id,
    location: url,
    host,
    title: check.title,
    severity: check.severity,
    severityV3: check.severity,
    cwe: check.cwe,
    cvss: { cvss_3_1: cvss31(seedVectors[check.severity]) },
    definition: seedDefinition(rand, check, host),
    owasp: [{ classification: check.owasp, year: 2021 }],
    references: [
      { link: `https://cwe.mitre.org/data/definitions/${check.cwe}.html`, name: `CWE-${check.cwe}`, source: 'cwe' },
    ],
    source: url,
    ...seedExchange(rand, url),
    details: seedDetails(rand, isLong),
    ...seedCookie(check, host, scannedAt),
  };
}

/** The check's definition as a finding carries it; one in five crowdsourced. */
function seedDefinition(rand: () => number, check: SeedCheck, host: string): FindingInput['definition'] {
  return {
    title: check.title,
    description: check.description,
    risk: `${check.title} may let an attacker act against ${host}.`,
    module_version: '1.4.2',
    module_release: new Date(Date.UTC(2026, 5, 1)),
    is_crowdsourced: rand() < 0.2,
  };
}

/** The request and response of half the findings; nothing for the other half. */
function seedExchange(rand: () => number, url: string): Pick<FindingInput, 'request' | 'response'> {
  return rand() < 0.5
    ? {
        request: { method: 'GET', url, body: '', headers: [{ name: 'User-Agent', value: 'perimeter-scanner/1.0' }] },
        response: {
          body: sentence(rand, 40 + Math.floor(rand() * 80)),
          status_code: 200,
          headers: [{ name: 'Content-Type', value: 'text/html' }],
        },
      }
    : {};
}

/** The details: evidence text always, an HTML excerpt, a long Markdown response, a location and a graph now and then. */
function seedDetails(rand: () => number, isLong: boolean): FindingInput['details'] {
  return {
    text: [
      {
        topic: 'Evidence',
        highlights: [{ field: 'value', value: 'payload', length: 7, offset: 0 }],
        value: sentence(rand, 60 + Math.floor(rand() * 160)),
      },
    ],
    html:
      rand() < 0.2
        ? [{ topic: 'Response excerpt', highlights: [], value: `<div class="result">${sentence(rand, 120)}</div>` }]
        : [],
    markdown: isLong
      ? [
          {
            topic: 'Full response',
            highlights: [],
            value: `# Response\n\n${sentence(rand, 20_000)}`,
            fallback: sentence(rand, 17_000),
          },
        ]
      : [],
    geography:
      rand() < 0.05
        ? [
            {
              topic: 'Server location',
              highlights: [],
              city: 'Stockholm',
              country_code: 'SE',
              country_name: 'Sweden',
              latitude: '59.33',
              longitude: '18.07',
              region: 'Stockholm',
              zip: '111 20',
            },
          ]
        : [],
    graph:
      rand() < 0.02 ? [{ topic: 'Response times', highlights: [], data: { ms: [12, 15, 11, 240] }, unit: 'ms' }] : [],
  };
}

/** The session cookie a cookie check found (its flags as the check names them); nothing for other checks. */
function seedCookie(check: SeedCheck, host: string, scannedAt: Date): Pick<FindingInput, 'cookie'> {
  return check.id.startsWith('cookie')
    ? {
        cookie: {
          domain: host,
          name: 'session',
          path: '/',
          value: 'redacted',
          expires: new Date(scannedAt.getTime() + 86_400_000),
          httponly: check.id !== 'cookie-no-httponly',
          secure: check.id !== 'cookie-no-secure',
        },
      }
    : {};
}

/** What a seed made. */
export interface SeedResult {
  assets: number;
  scans: number;
  vulnerabilities: number;
  marked: number;
}

/**
 * What seeding asks of the assets area: an asset added as by hand (addAsset implements it), and
 * made verified as by an operator (recordOwnershipCheck implements it).
 */
export interface SeedAssetAdder {
  addAsset(store: AssetStore, team: Team, rawName: unknown): Promise<{ asset: Asset }>;
  recordOwnershipCheck(store: AssetStore, asset: Pick<Asset, 'id' | 'teamId'>, isVerified: boolean): Promise<void>;
}

/** What the seed's steps act through: the store, the assets port, the ingestion's options. */
interface SeedDeps {
  store: VulnerabilityStore;
  ports: { assets: SeedAssetAdder };
  options: IngestionOptions;
}

/** One scan target of an asset: surface monitoring or an application scan under a profile. */
interface SeedTarget {
  source: ScanSource;
  profile: string | null;
}

/**
 * Fills a team with about `count` realistic vulnerabilities through the ingestion service:
 * several verified assets with subdomain hosts, application scans under a few profiles and
 * surface monitoring, three rounds of scans for a fifth of the targets (so some are patched and
 * some regress), a few manual marks and tags.
 */
export async function seedVulnerabilities(
  { store, ports }: { store: VulnerabilityStore; ports: { assets: SeedAssetAdder } },
  team: Team,
  count: number,
  options: IngestionOptions & { onProgress?: (done: number) => void },
): Promise<SeedResult> {
  const deps: SeedDeps = { store, ports, options };
  const rand = randomSource(count);
  const assets = await seedAssets(deps, team, Math.min(40, Math.max(3, Math.ceil(count / 25_000))));
  const perAsset = Math.ceil(count / assets.length);
  const result: SeedResult = { assets: assets.length, scans: 0, vulnerabilities: 0, marked: 0 };
  const start = Date.now() - 90 * 86_400_000;
  for (const [index, asset] of assets.entries()) {
    const hosts = seedHosts(rand, asset);
    const targets: SeedTarget[] = [
      { source: 'surface-monitoring', profile: null },
      { source: 'application-scanning', profile: newToken() },
      { source: 'application-scanning', profile: newToken() },
    ];
    const want = Math.min(perAsset, count - result.vulnerabilities);
    if (want <= 0) break;
    for (const [t, target] of targets.entries()) {
      const share = Math.floor(want / targets.length) + (t === 0 ? want % targets.length : 0);
      const first = new Date(start + index * 3_600_000 + t * 60_000);
      const all = seedFindings(rand, target, hosts, share, t, first);
      result.scans += await seedScans(deps, team, asset, target, all, first, (index + t) % 5 === 0);
      result.vulnerabilities += share;
      options.onProgress?.(result.vulnerabilities);
    }
  }
  result.marked = await markSome(store, team, Math.max(3, Math.floor(count / 200)));
  return result;
}

/** The seed's assets (`seed<i>-<team>.example.com`), added (or found, when an earlier seed added them) and verified. */
async function seedAssets({ store, ports }: SeedDeps, team: Team, assetCount: number): Promise<Asset[]> {
  const assets: Asset[] = [];
  for (let i = 0; i < assetCount; i++) {
    const name = `seed${i}-${team.token.slice(0, 6)}.example.com`;
    let asset: Asset;
    try {
      asset = (await ports.assets.addAsset(store, team, name)).asset;
    } catch (err) {
      if (!isAppError(err) || err.code !== 2018) throw err;
      asset = (await store.assets.findByName(team.id, name))!;
    }
    await ports.assets.recordOwnershipCheck(store, asset, true);
    assets.push(asset);
  }
  return assets;
}

/** The asset's name and three to eight of its subdomains. */
function seedHosts(rand: () => number, asset: Asset): string[] {
  return [
    asset.name,
    ...Array.from(
      { length: 3 + Math.floor(rand() * 6) },
      (_, i) => `${['www', 'api', 'shop', 'mail', 'dev', 'cdn', 'app', 'vpn'][i]}.${asset.name}`,
    ),
  ];
}

/** `share` findings of a target's checks, spread over the hosts (variants past one round of checks × hosts). */
function seedFindings(
  rand: () => number,
  target: SeedTarget,
  hosts: readonly string[],
  share: number,
  t: number,
  scannedAt: Date,
): FindingInput[] {
  const checks = seedChecks.filter((c) => c.source === 'both' || c.source === target.source);
  return Array.from({ length: share }, (_, k) =>
    makeFinding(
      rand,
      checks[k % checks.length]!,
      hosts[Math.floor(k / checks.length) % hosts.length]!,
      Math.floor(k / (checks.length * hosts.length)) + t * 100_000,
      scannedAt,
    ),
  );
}

/** A target's first scan, and with `rounds` two more a month apart (80% seen again, then a few patched ones back); returns how many scans. */
async function seedScans(
  { store, options }: SeedDeps,
  team: Team,
  asset: Asset,
  target: SeedTarget,
  all: FindingInput[],
  first: Date,
  rounds: boolean,
): Promise<number> {
  const report = {
    teamId: team.id,
    asset: { id: asset.id, token: asset.token, name: asset.name },
    scanSource: target.source,
    scanProfileToken: target.profile,
    isComplete: true,
  };
  await recordScan(store, { ...report, scannedAt: first }, all, options);
  if (!rounds) return 1;
  // Two more rounds: 80% seen again (the rest patched), then a few patched ones come back.
  await recordScan(
    store,
    { ...report, scannedAt: new Date(first.getTime() + 30 * 86_400_000) },
    all.filter((_, i) => i % 5 !== 0),
    options,
  );
  await recordScan(
    store,
    { ...report, scannedAt: new Date(first.getTime() + 60 * 86_400_000) },
    all.filter((_, i) => i % 5 !== 0 || i % 25 === 0),
    options,
  );
  return 3;
}

async function markSome(store: VulnerabilityStore, team: Team, howMany: number): Promise<number> {
  let marked = 0;
  let afterId: number | undefined;
  const step = 97;
  while (marked < howMany) {
    const page = await store.vulnerabilities.listPage({ teamId: team.id, filter: {}, afterId, limit: step });
    if (page.length === 0) break;
    const row = page[page.length - 1]!;
    const uuid = (JSON.parse(row.document) as { uuid: string }).uuid;
    const kind = marked % 4;
    if (kind === 3) await tagVulnerability(store, team, uuid, marked % 8 === 3 ? 'pci' : 'triage');
    else
      await changeMark(
        store,
        team,
        uuid,
        kind === 0 ? 'accepted_risk' : kind === 1 ? 'false_positive' : 'fixed',
        true,
        'seed',
      );
    marked++;
    afterId = row.id;
  }
  return marked;
}
