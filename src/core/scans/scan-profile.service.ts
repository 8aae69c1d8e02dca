import type { Asset } from '../assets/asset.types.ts';
import { appError, type AppError } from '../errors/app-error.ts';
import { isToken, newToken } from '../shared/ids.ts';
import { plans } from '../teams/plans.ts';
import type { Team } from '../teams/team.types.ts';
import {
  assertEndpointOfAsset,
  assetNamesHolding,
  isInsideAsset,
  parseEndpoint,
  type ParsedEndpoint,
} from './endpoint.ts';
import type { ScanEngine } from './scan-engine.ts';
import {
  applyScanProfileSettings,
  defaultScanProfileSettings,
  type ProfileSettingsInput,
  type ScanProfileSettings,
} from './scan-profile-settings.ts';
import type { Scan, ScanPorts, ScanProfile, ScanStore } from './scan.types.ts';

/** Longest profile name. */
export const maxProfileNameLength = 255;

/** What profile creation needs beside the store. */
export interface ProfileDeps {
  store: ScanStore;
  ports: ScanPorts;
  engine: Pick<ScanEngine, 'probe'>;
  /** Endpoint validation time limit (the spec's 10 s). */
  validationTimeoutMs: number;
}

/** A profile with its latest scan, as the listings show it. */
export interface ProfileView {
  profile: ScanProfile;
  latest: Scan | undefined;
}

/** 2601: a scan profile token path parameter that is not a token. */
export function malformedProfileToken(): AppError {
  return appError(2601, 'Scan profile token malformed: a token is 32 lowercase hexadecimal characters', [
    'scanProfileToken',
  ]);
}

/** 2601 when the token is malformed, 2604 when the team has no such profile. */
export async function requireProfile(
  store: Pick<ScanStore, 'scanProfiles'>,
  team: Team,
  token: string,
): Promise<ScanProfile> {
  if (!isToken(token)) throw malformedProfileToken();
  const profile = await store.scanProfiles.findByToken(team.id, token);
  if (profile === undefined) throw appError(2604, 'Scan profile does not exist', ['scanProfileToken']);
  return profile;
}

function parseName(raw: unknown, endpoint: string): string {
  if (raw === undefined || raw === null || raw === '') return endpoint;
  if (typeof raw !== 'string')
    throw appError(2602, 'Scan profile name must be a string of at most 255 characters', ['name']);
  const name = raw.trim();
  if ([...name].length > maxProfileNameLength)
    throw appError(2602, `Scan profile name longer than 255 characters (${[...name].length})`, ['name']);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\x00-\x1f\x7f]/.test(name)) throw appError(2602, 'Scan profile name may not hold control characters', ['name']);
  return name === '' ? endpoint : name;
}

/**
 * Creates a profile from `{asset_token, endpoint, name?}` or the older `{domain_token, endpoint,
 * name?, unique?, valid?}`. The asset must be verified (2021); the endpoint well-formed (2606),
 * inside the asset (2607), unique in the team (2605, or the existing profile with `unique: true`)
 * and answering HTTP(S) within the time-out (2609); the plan limits the count (2618).
 *
 * The oldest body, `{endpoint, name?, unique, valid?}` with no token at all (the original
 * service's public example sends it right after adding the domain), names its asset by the
 * endpoint: the longest root asset of the team holding the host (2607 when none). As the older
 * API did, it is created without the ownership and reachability checks: the asset may be
 * unverified (its scans answer 2021 until it is) and nothing is sent to the endpoint; scans start
 * from the scheme and port the endpoint names, else https on 443 (http: 80).
 */
export async function createScanProfile(
  deps: ProfileDeps,
  team: Team,
  body: Record<string, unknown>,
): Promise<ScanProfile> {
  const { store } = deps;
  const fields = readProfileFields(body);
  const { asset, endpoint } = await profileTarget(deps, team, body, fields);
  const name = parseName(body['name'], endpoint.text);
  const early = await existingOrFree(store, team, endpoint, body);
  if (early !== undefined) return early;
  const origin = await profileOrigin(deps, endpoint, asset, fields.isOldestBody);
  return store.transaction(async (tx) => {
    await tx.assets.lockTeam(team.id);
    const existing = await existingOrFree(tx, team, endpoint, body);
    if (existing !== undefined) return existing;
    const now = new Date();
    return tx.scanProfiles.insert({
      teamId: team.id,
      assetId: asset.id,
      token: newToken(),
      name,
      endpoint: endpoint.text,
      endpointKey: endpoint.key,
      scheme: origin.scheme,
      port: origin.port,
      settings: { ...defaultScanProfileSettings },
      isActive: true,
      schedule: { frequency: 'never', first: null, next: null },
      created: now,
      updated: now,
    });
  });
}

/** How a create body names its asset: by `asset_token`, the older `domain_token`, or (the oldest body) not at all. */
interface ProfileFields {
  tokenField: 'asset_token' | 'domain_token';
  assetToken: unknown;
  isOldestBody: boolean;
}

/** Reads how a create body names its asset, and checks its token and flags: 1050, 2011, 1051. */
function readProfileFields(body: Record<string, unknown>): ProfileFields {
  const tokenField = body['asset_token'] !== undefined ? 'asset_token' : 'domain_token';
  const assetToken = body[tokenField];
  const isOldestBody = assetToken === undefined && body['unique'] !== undefined;
  if (assetToken === undefined && !isOldestBody)
    throw appError(1050, 'Request body missing asset_token (or the older domain_token): the asset to scan', [
      'asset_token',
    ]);
  if (assetToken !== undefined && (typeof assetToken !== 'string' || !isToken(assetToken))) {
    throw appError(2011, `Domain token malformed: ${tokenField} is 32 lowercase hexadecimal characters`, [tokenField]);
  }
  for (const flag of ['unique', 'valid'] as const) {
    if (body[flag] !== undefined && typeof body[flag] !== 'boolean')
      throw appError(1051, `Request body malformed: ${flag} must be true or false`, [flag]);
  }
  return { tokenField, assetToken, isOldestBody };
}

/**
 * The asset and endpoint of a new profile: the verified asset its token names (2021), with the
 * endpoint inside it (2606, 2607); for the oldest body, the root asset holding the endpoint.
 */
async function profileTarget(
  deps: ProfileDeps,
  team: Team,
  body: Record<string, unknown>,
  { tokenField, assetToken }: ProfileFields,
): Promise<{ asset: Pick<Asset, 'id' | 'name'>; endpoint: ParsedEndpoint }> {
  const { store, ports } = deps;
  if (typeof assetToken !== 'string') {
    const endpoint = parseEndpoint(body['endpoint']);
    return { asset: await inferRootAsset(store, team, endpoint), endpoint };
  }
  const target = await ports.assets.requireTokenTarget(store, team, assetToken);
  if (target.asset === undefined)
    throw appError(
      2021,
      `Asset not verified: ${target.discovered.name} is a discovered name, not an asset; add it as an asset first`,
      [tokenField],
    );
  const asset = target.asset;
  if (target.asset.status !== 'verified')
    throw appError(2021, `Asset not verified: only verified assets can be scanned, and ${asset.name} is not verified`, [
      tokenField,
    ]);
  const endpoint = parseEndpoint(body['endpoint']);
  assertEndpointOfAsset(endpoint, asset);
  return { asset, endpoint };
}

/**
 * The team's profile of the endpoint when the body says `unique: true`; else undefined when the
 * team may add it: 2605 when it has one already, 2618 when the plan's limit is reached.
 */
async function existingOrFree(
  s: Pick<ScanStore, 'scanProfiles'>,
  team: Team,
  endpoint: ParsedEndpoint,
  body: Record<string, unknown>,
): Promise<ScanProfile | undefined> {
  const existing = await s.scanProfiles.findByEndpointKey(team.id, endpoint.key);
  if (existing !== undefined) {
    if (body['unique'] === true) return existing;
    throw appError(
      2605,
      `Scan profile already exists: the team has a profile for ${endpoint.text} (${existing.token})`,
      ['endpoint'],
    );
  }
  const limit = plans[team.plan].scanProfiles;
  if ((await s.scanProfiles.count(team.id)) >= limit) {
    throw appError(
      2618,
      `Scan profile limit of the subscription reached: the ${team.plan} plan allows ${limit} profiles`,
    );
  }
  return undefined;
}

/**
 * Where a new profile's scans start: for the oldest body, the scheme and port the endpoint names
 * (else https on 443, http on 80) without a request; otherwise what a probe of the endpoint
 * answered within the time-out (2609 when nothing did).
 */
async function profileOrigin(
  deps: ProfileDeps,
  endpoint: ParsedEndpoint,
  asset: Pick<Asset, 'name'>,
  isOldestBody: boolean,
): Promise<{ scheme: 'http' | 'https'; port: number }> {
  if (isOldestBody) {
    const scheme = endpoint.scheme ?? 'https';
    return { scheme, port: endpoint.port ?? (scheme === 'https' ? 443 : 80) };
  }
  const probe = await deps.engine.probe(
    endpoint,
    asset.name,
    AbortSignal.timeout(deps.validationTimeoutMs + 1000),
    deps.validationTimeoutMs,
  );
  if (!probe.isReachable) {
    throw appError(
      2609,
      `Endpoint validation failed: ${endpoint.text} did not answer an HTTP(S) GET within ${deps.validationTimeoutMs / 1000} s (${probe.observations.join('; ')})`,
      ['endpoint'],
    );
  }
  return probe;
}

/**
 * The root asset of the team that holds the endpoint's host, verified or not: the longest one
 * (`sub.example.com` before `example.com`); an IP asset holds its own address only. 2607 when
 * none does. Only the caller's team is searched.
 */
async function inferRootAsset(store: Pick<ScanStore, 'assets'>, team: Team, endpoint: ParsedEndpoint): Promise<Asset> {
  const candidates = assetNamesHolding(endpoint.host);
  const roots = await store.assets.findRootsByName(team.id, candidates);
  const holder = candidates
    .map((n) => roots.find((r) => r.name === n && isInsideAsset(endpoint.host, r.name)))
    .find((r) => r !== undefined);
  if (holder === undefined) {
    throw appError(
      2607,
      `Endpoint does not match the associated asset name: ${endpoint.host} is neither an asset of the team nor a subdomain of one`,
      ['endpoint'],
    );
  }
  return holder;
}

/** The team's profiles (or one asset's: 2011/2014 for a bad asset token) with their latest scans. */
export async function listScanProfiles(
  { store, ports }: { store: ScanStore; ports: ScanPorts },
  team: Team,
  assetToken?: string,
): Promise<ProfileView[]> {
  let assetId: number | undefined;
  if (assetToken !== undefined) {
    const target = await ports.assets.requireTokenTarget(store, team, assetToken);
    if (target.asset === undefined) return [];
    assetId = target.asset.id;
  }
  const profiles = await store.scanProfiles.list(team.id, assetId);
  const latest = await store.scans.latestOf(
    team.id,
    profiles.map((p) => p.id),
  );
  return profiles.map((profile) => ({ profile, latest: latest.get(profile.id) }));
}

/** Deletes a profile; a live scan is stopped first (its worker sees the profile gone and stops). */
export async function deleteScanProfile(store: ScanStore, team: Team, token: string): Promise<void> {
  const profile = await requireProfile(store, team, token);
  await store.transaction(async (tx) => {
    await tx.scans.requestStop(team.id, profile.id, new Date());
    if (!(await tx.scanProfiles.delete(team.id, profile.id)))
      throw appError(2604, 'Scan profile does not exist', ['scanProfileToken']);
  });
}

/** The settings of a profile. */
export async function getProfileSettings(store: ScanStore, team: Team, token: string): Promise<ScanProfileSettings> {
  return (await requireProfile(store, team, token)).settings;
}

/**
 * Applies a partial settings update, read (and checked) once the profile is found (2604 first).
 * Changing scan_region is a team permission: it needs the enterprise plan (1009 otherwise);
 * setting it to the value it has is always accepted.
 */
export async function updateProfileSettings(
  store: ScanStore,
  team: Team,
  token: string,
  body: () => ProfileSettingsInput,
): Promise<ScanProfileSettings> {
  const profile = await requireProfile(store, team, token);
  const next = applyScanProfileSettings(profile.settings, body());
  if (next.scan_region !== profile.settings.scan_region && team.plan !== 'enterprise') {
    throw appError(1009, `Changing scan_region needs the enterprise plan; the team is on the ${team.plan} plan`, [
      'scan_region',
    ]);
  }
  await store.scanProfiles.updateSettings(team.id, profile.id, next, new Date());
  return next;
}

/** Activates or deactivates a profile (operators; a deactivated profile cannot be scanned: 2616). */
export async function setProfileActive(
  store: ScanStore,
  team: Team,
  token: string,
  isActive: boolean,
): Promise<ScanProfile> {
  const profile = await requireProfile(store, team, token);
  await store.scanProfiles.setActive(team.id, profile.id, isActive, new Date());
  if (!isActive) await store.scans.requestStop(team.id, profile.id, new Date());
  return { ...profile, isActive };
}
