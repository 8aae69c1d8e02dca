import { parseAssetName } from '../assets/asset-name.ts';
import type { Asset, ZoneSource } from '../assets/asset.types.ts';
import { AppError, appError, isAppError } from '../errors/app-error.ts';
import { assertCanCall, type Caller } from '../teams/caller.ts';
import type { Team } from '../teams/team.types.ts';
import { indexRecords, largeIndexRun, type RecordBatches } from './zone-index.service.ts';
import { parseNameServer } from './name-server.ts';
import { parseZoneName } from './zone-name.ts';
import { RootMatcher } from './root-matcher.ts';
import type { ZoneEngine } from './zone-engine.ts';
import type { ZoneDeps, ZonePorts, ZoneRepositories } from './zone-lookup.types.ts';

/** Largest zone file (spec). */
export const zoneFileLimit = 5 * 1024 * 1024;
/** Largest zone lookup list (spec). */
export const zoneLookupLimit = 50 * 1024 * 1024;
/** Time limit of a zone transfer. */
export const zoneTransferTimeoutMs = 60_000;

/** What a zone upload or transfer did. */
export interface ZoneIndexResult {
  /** Distinct names indexed (the wire's `indexed`). */
  indexed: number;
  /** The root asset added for the zone's apex, when the team had neither it nor a root above it. */
  addedAsset: Asset | undefined;
}

/** Who uploads, for the apex a zone may add: the key must be able to call the assets endpoints. */
export interface ZoneUploader {
  team: Team;
  caller: Caller;
}

/**
 * Indexes an uploaded zone file (RFC 1035 master format) under the team's root domain assets,
 * streaming from parser to store inside one transaction: a syntax error anywhere (2421 naming
 * the line) indexes nothing. An origin the team does not have becomes a root asset first, in
 * the same transaction (see indexZone). Without an origin the file is read from the root, as
 * before, and the zone it names itself (its first `$ORIGIN` or SOA owner, see
 * ZoneEngine.findZoneOrigin) is its apex, as a given origin would be; a name the origin
 * parameter would refuse (2411) is not taken from a file, which is then read as one that names
 * no zone: indexed under the team's roots alone.
 */
export async function uploadZoneFile(
  deps: ZoneDeps,
  engine: ZoneEngine,
  uploader: ZoneUploader,
  origin: string | undefined,
  body: AsyncIterable<Buffer>,
): Promise<ZoneIndexResult> {
  const isGiven = origin !== undefined && origin !== '';
  const zone = isGiven ? parseZoneName(origin) : '.';
  if (zone === undefined) throw appError(2411, `Zone origin malformed: "${origin}" is not a domain name`, ['origin']);
  let apexName = zone === '.' ? undefined : zone;
  let input = body;
  if (!isGiven) {
    const found = await engine.findZoneOrigin(body);
    input = found.input;
    const named = found.origin === undefined ? undefined : parseZoneName(found.origin);
    if (named !== undefined && named !== '.') apexName = named;
  }
  const apex = apexName === undefined ? undefined : { name: apexName, parameter: 'origin' };
  return indexZone(deps, uploader, apex, engine.parseZone(input, zone), 'zone-file');
}

/**
 * Transfers a zone (AXFR over TCP, through the egress guard) and indexes it like a zone file,
 * atomically. 2412 for a malformed server, 2413 for a malformed zone; a transfer the name
 * server refuses or fails, or the egress guard denies, is 2412 saying which (zoneTransferFailed).
 */
export async function transferAndIndex(
  deps: ZoneDeps,
  engine: ZoneEngine,
  uploader: ZoneUploader,
  rawServer: unknown,
  rawZone: unknown,
): Promise<ZoneIndexResult> {
  const server = parseNameServer(rawServer);
  if (server === undefined)
    throw appError(
      2412,
      `Zone server malformed: "${String(rawServer ?? '')}" is not a host name or IP address with an optional :port`,
      ['nameServer'],
    );
  const zone = parseZoneName(rawZone);
  if (zone === undefined || zone === '.')
    throw appError(2413, `Zone name malformed: "${String(rawZone ?? '')}" is not a domain name`, ['zone']);
  const signal = AbortSignal.timeout(zoneTransferTimeoutMs);
  return indexZone(
    deps,
    uploader,
    { name: zone, parameter: 'zone' },
    engine.transferZone(server, zone, signal),
    'zone-transfer',
  );
}

/** A zone's apex and the request parameter that named it (what an asset error points at). */
interface ZoneApex {
  name: string;
  parameter: string;
}

/**
 * Indexes a zone in one transaction: all of it, or (on any failure, a syntax error or a failed
 * transfer included) nothing. When the apex is neither an asset of the team nor under one of
 * its root domain assets, it is added first as a root asset (added_by the source, unverified,
 * the asset service's rules and errors), so a zone that fails leaves no asset behind.
 */
async function indexZone(
  deps: ZoneDeps,
  uploader: ZoneUploader,
  apex: ZoneApex | undefined,
  batches: RecordBatches,
  source: ZoneSource,
): Promise<ZoneIndexResult> {
  const { team } = uploader;
  const { store, ports } = deps;
  let hasRun = false;
  const result = await store.transaction(async (tx) => {
    // The records stream once (upload, transfer): a re-run (after a deadlock) would index none, so it fails instead.
    if (hasRun)
      throw new Error('zone indexing: rolled back to break a deadlock; its streamed records cannot be read again');
    hasRun = true;
    // Held before the apex is looked up: two uploads of one new zone add it once.
    await tx.zones.lockIndexing(team.id);
    const addedAsset = apex === undefined ? undefined : await addApexIfNew(tx, ports, uploader, apex, source);
    return { indexed: await indexRecords(tx, team, batches, source), addedAsset };
  });
  if (result.indexed >= largeIndexRun) await store.zones.refreshStatistics();
  return result;
}

async function addApexIfNew(
  tx: ZoneRepositories,
  ports: ZonePorts,
  { team, caller }: ZoneUploader,
  apex: ZoneApex,
  source: ZoneSource,
): Promise<Asset | undefined> {
  if (new RootMatcher(await tx.zones.rootDomains(team.id)).match(apex.name) !== undefined) return undefined;
  if ((await tx.assets.findByName(team.id, apex.name)) !== undefined) return undefined;
  try {
    // Adding an asset is an assets operation: a key limited to the zones endpoints may not.
    assertCanCall(caller, team, 'assets');
  } catch (err) {
    throw new AppError(
      1009,
      `This API key cannot access the assets endpoints, and ${apex.name} is not an asset of the team: adding it needs them`,
      { cause: err },
    );
  }
  try {
    return (await ports.assets.addAssetInTransaction(tx, team, parseAssetName(apex.name), source)).asset;
  } catch (err) {
    // The asset service's error (2012 …), pointed at the parameter that carried the name.
    if (isAppError(err)) throw new AppError(err.code, err.message, { parameters: [apex.parameter], cause: err });
    throw err;
  }
}
